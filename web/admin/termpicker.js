/*
 * Folio admin, term pickers for the post editor: a searchable tree of
 * checkboxes with "add new" for hierarchical taxonomies (categories), and
 * a token field with suggestions that creates missing terms for flat ones
 * (tags).
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const el = A.el;

	// A.termPicker returns {node, getValue(), ready} for taxonomy tax with
	// the term ids selected; onChange is called on every change.
	A.termPicker = function (tax, selected, onChange) {
		return tax.hierarchical ? treePicker(tax, selected || [], onChange) : tokenPicker(tax, selected || [], onChange);
	};

	function treePicker(tax, selected, onChange) {
		const Coll = A.collectionClass(tax.base);
		const chosen = new Set(selected);
		const name = tax.name;
		const single = A.singular(tax);
		const notice = A.noticeBox();
		const summary = el('p', { 'class': 'picked', 'aria-live': 'polite' });
		const search = el('input', { type: 'search', 'class': 'picker-search', id: 'search-' + tax.base, placeholder: 'Search ' + name.toLowerCase() });
		const list = el('div', { 'class': 'tree', id: tax.base + '-tree', role: 'group', 'aria-label': name }, el('p', { 'class': 'loading', text: 'Loading ' + name.toLowerCase() + '\u2026' }));
		let terms = [];
		let byId = {};

		function path(t) {
			const names = [];
			let cur = byId[t.parent];
			let guard = 0;
			while (cur && guard < 50) {
				names.unshift(cur.name);
				cur = byId[cur.parent];
				guard += 1;
			}
			return names;
		}

		function updateSummary() {
			const names = Array.from(chosen).map((id) => byId[id] && byId[id].name).filter(Boolean);
			summary.textContent = names.length ? 'Selected: ' + names.join(', ') : 'None selected';
		}

		function draw() {
			A.clear(list);
			if (!terms.length) {
				list.appendChild(el('p', { 'class': 'empty', text: 'No ' + name.toLowerCase() + ' yet.' }));
				return;
			}
			const q = search.value.trim().toLowerCase();
			const tree = A.termTree(terms);
			const visible = new Set();
			if (q) {
				tree.forEach(({ term }) => {
					if (term.name.toLowerCase().indexOf(q) >= 0) {
						visible.add(term.id);
						let p = byId[term.parent];
						while (p && !visible.has(p.id)) {
							visible.add(p.id);
							p = byId[p.parent];
						}
					}
				});
			}
			const ul = el('ul', { 'class': 'tree-list' });
			let shown = 0;
			tree.forEach(({ term, depth }) => {
				if (q && !visible.has(term.id)) {
					return;
				}
				shown += 1;
				const id = 'term-' + tax.base + '-' + term.id;
				const where = path(term);
				const box = el('input', { type: 'checkbox', id: id, value: term.id, checked: chosen.has(term.id) });
				box.addEventListener('change', () => {
					if (box.checked) {
						chosen.add(term.id);
					} else {
						chosen.delete(term.id);
					}
					updateSummary();
					onChange();
				});
				ul.appendChild(el('li', { style: 'padding-left:' + (depth * 1.25) + 'rem', 'data-depth': depth },
					box, ' ',
					el('label', { 'for': id, title: where.concat(term.name).join(' \u203a ') }, term.name,
						where.length ? el('span', { 'class': 'screen-reader-text', text: ', in ' + where.join(' \u203a ') }) : null)));
			});
			list.appendChild(shown ? ul : el('p', { 'class': 'empty', text: 'No ' + name.toLowerCase() + ' match \u201c' + search.value + '\u201d.' }));
		}
		search.addEventListener('input', draw);
		search.addEventListener('keydown', (e) => {
			if (e.key === 'Enter') {
				e.preventDefault();
			}
		});

		// Add new.
		const canAdd = A.typeCan(tax, 'edit_terms');
		const newName = el('input', { type: 'text', id: 'new-' + tax.base + '-name' });
		const newParent = el('select', { id: 'new-' + tax.base + '-parent' });
		const addButton = el('button', { type: 'button', 'class': 'button secondary small', text: 'Add new ' + single.toLowerCase() });
		const addForm = el('div', { 'class': 'add-term', hidden: true },
			A.field('New ' + single.toLowerCase() + ' name', newName),
			A.field('Parent ' + single.toLowerCase(), newParent),
			addButton);
		const toggle = el('button', { type: 'button', 'class': 'link', 'aria-expanded': 'false', text: '+ Add new ' + single.toLowerCase() });
		toggle.addEventListener('click', () => {
			addForm.hidden = !addForm.hidden;
			toggle.setAttribute('aria-expanded', addForm.hidden ? 'false' : 'true');
			if (!addForm.hidden) {
				fillParents();
				newName.focus();
			}
		});
		function fillParents() {
			A.clear(newParent);
			newParent.appendChild(el('option', { value: '0', text: '\u2014 No parent \u2014' }));
			A.termTree(terms).forEach(({ term, depth }) => {
				newParent.appendChild(el('option', { value: term.id, text: '\u2014 '.repeat(depth) + term.name }));
			});
		}
		async function add() {
			const n = newName.value.trim();
			if (!n) {
				A.notice(notice, 'Type a name for the new ' + single.toLowerCase() + '.', 'error');
				newName.focus();
				return;
			}
			const Model = A.modelClass(tax.base);
			const term = new Model({ name: n, parent: parseInt(newParent.value, 10) || 0 });
			try {
				await A.busy(addButton, term.save(null, { wait: true }));
			} catch (err) {
				A.notice(notice, A.errorText(err), 'error');
				return;
			}
			const t = term.toJSON();
			terms.push(t);
			byId[t.id] = t;
			chosen.add(t.id);
			newName.value = '';
			search.value = '';
			draw();
			updateSummary();
			fillParents();
			onChange();
			A.notice(notice, '\u201c' + t.name + '\u201d added and selected.', 'ok');
		}
		addButton.addEventListener('click', add);
		newName.addEventListener('keydown', (e) => {
			if (e.key === 'Enter') {
				e.preventDefault();
				add();
			}
		});

		const ready = A.fetchAll(Coll, { orderby: 'name', order: 'asc' }).then((coll) => {
			terms = coll.toJSON();
			byId = {};
			terms.forEach((t) => {
				byId[t.id] = t;
			});
			draw();
			updateSummary();
		}, (err) => {
			A.clear(list);
			A.notice(notice, name + ' could not be loaded: ' + A.errorText(err), 'error');
		});

		return {
			node: el('div', { 'class': 'term-picker hierarchical', id: tax.base + '-picker' },
				summary,
				A.field('Search ' + name.toLowerCase(), search),
				list,
				canAdd ? el('div', {}, toggle, addForm) : null,
				notice),
			getValue: () => Array.from(chosen).sort((a, b) => a - b),
			ready: ready
		};
	}

	function tokenPicker(tax, selected, onChange) {
		const Coll = A.collectionClass(tax.base);
		const Model = A.modelClass(tax.base);
		const name = tax.name;
		const single = A.singular(tax);
		// Until the names are loaded, the selected terms are known by id.
		const chosen = selected.map((id) => ({ id: id, name: '#' + id }));
		const notice = A.noticeBox();
		const tokens = el('ul', { 'class': 'tokens', 'aria-label': 'Selected ' + name.toLowerCase() });
		const listId = A.id('suggest');
		const input = el('input', {
			type: 'text',
			id: 'add-' + tax.base,
			autocomplete: 'off',
			role: 'combobox',
			'aria-autocomplete': 'list',
			'aria-expanded': 'false',
			'aria-controls': listId
		});
		const suggestions = el('ul', { 'class': 'suggestions', id: listId, role: 'listbox', hidden: true, 'aria-label': 'Suggested ' + name.toLowerCase() });
		const addButton = el('button', { type: 'button', 'class': 'button secondary small', text: 'Add' });

		function drawTokens() {
			A.clear(tokens);
			chosen.forEach((t) => {
				tokens.appendChild(el('li', { 'class': 'token' }, el('span', { text: t.name }),
					el('button', {
						type: 'button',
						'class': 'remove',
						'aria-label': 'Remove ' + single.toLowerCase() + ' \u201c' + t.name + '\u201d',
						text: '\u00d7',
						onclick: () => {
							chosen.splice(chosen.indexOf(t), 1);
							drawTokens();
							onChange();
							input.focus();
						}
					})));
			});
			if (!chosen.length) {
				tokens.appendChild(el('li', { 'class': 'empty', text: 'None' }));
			}
		}

		function pick(t) {
			if (!chosen.some((c) => c.id === t.id)) {
				chosen.push(t);
				drawTokens();
				onChange();
			}
		}

		// addNames adds each comma-separated name: an existing term of that
		// name, else a new one.
		async function addNames(text) {
			const names = text.split(',').map((s) => s.trim()).filter(Boolean);
			if (!names.length) {
				return;
			}
			A.notice(notice, '');
			const failed = [];
			for (const n of names) {
				try {
					const found = new Coll();
					await found.fetch({ data: { search: n, per_page: 100 } });
					let hit = found.find((t) => t.get('name').toLowerCase() === n.toLowerCase());
					if (!hit) {
						hit = new Model({ name: n });
						await hit.save(null, { wait: true });
					}
					pick(hit.toJSON());
				} catch (err) {
					failed.push('\u201c' + n + '\u201d: ' + A.errorText(err));
				}
			}
			input.value = '';
			hideSuggestions();
			if (failed.length) {
				A.notice(notice, 'Could not add ' + failed.join(' '), 'error');
			}
		}

		function hideSuggestions() {
			suggestions.hidden = true;
			input.setAttribute('aria-expanded', 'false');
		}

		let timer = null;
		let seq = 0;
		input.addEventListener('input', () => {
			clearTimeout(timer);
			const q = input.value.split(',').pop().trim();
			if (q.length < 2) {
				hideSuggestions();
				return;
			}
			timer = setTimeout(async () => {
				seq += 1;
				const mine = seq;
				const found = new Coll();
				try {
					await found.fetch({ data: { search: q, per_page: 10, orderby: 'count', order: 'desc' } });
				} catch (err) {
					return;
				}
				if (mine !== seq) {
					return;
				}
				A.clear(suggestions);
				found.each((t) => {
					suggestions.appendChild(el('li', { role: 'option', id: A.id('opt'), tabindex: '-1', 'data-id': t.id, text: t.get('name'), onmousedown: (e) => e.preventDefault(), onclick: () => {
						pick(t.toJSON());
						input.value = '';
						hideSuggestions();
						input.focus();
					} }));
				});
				suggestions.hidden = !found.length;
				input.setAttribute('aria-expanded', found.length ? 'true' : 'false');
			}, 250);
		});
		input.addEventListener('keydown', (e) => {
			const opts = Array.from(suggestions.querySelectorAll('[role=option]'));
			const active = suggestions.querySelector('[aria-selected=true]');
			let i = opts.indexOf(active);
			if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && !suggestions.hidden && opts.length) {
				e.preventDefault();
				i = e.key === 'ArrowDown' ? (i + 1) % opts.length : (i <= 0 ? opts.length - 1 : i - 1);
				opts.forEach((o) => o.removeAttribute('aria-selected'));
				opts[i].setAttribute('aria-selected', 'true');
				input.setAttribute('aria-activedescendant', opts[i].id);
			} else if (e.key === 'Enter' || e.key === ',') {
				e.preventDefault();
				if (active && !suggestions.hidden) {
					active.click();
				} else {
					addNames(input.value);
				}
			} else if (e.key === 'Escape') {
				hideSuggestions();
			}
		});
		input.addEventListener('blur', () => setTimeout(hideSuggestions, 150));
		addButton.addEventListener('click', () => addNames(input.value));

		drawTokens();
		const ready = (selected.length ? A.fetchAll(Coll, { include: selected.join(',') }) : Promise.resolve(null)).then((coll) => {
			if (coll) {
				chosen.forEach((c, i) => {
					const t = coll.get(c.id);
					if (t) {
						chosen[i] = t.toJSON();
					}
				});
			}
			drawTokens();
		}, (err) => {
			A.notice(notice, name + ' could not be loaded: ' + A.errorText(err), 'error');
		});

		return {
			node: el('div', { 'class': 'term-picker flat', id: tax.base + '-picker' },
				el('div', { 'class': 'field' },
					el('label', { 'for': input.id, text: 'Add ' + name.toLowerCase() }),
					el('div', { 'class': 'token-input' }, input, addButton),
					el('span', { 'class': 'hint', text: 'Separate with commas or press Enter. New ones are created.' })),
				suggestions,
				tokens,
				notice),
			getValue: () => chosen.map((t) => t.id),
			ready: ready
		};
	}
})(window, document);
