/*
 * Folio admin, the screens of each taxonomy (#categories, #tags,
 * #<rest_base>): an "add new" form, the terms as a tree (for hierarchical
 * taxonomies) with description, slug and count, search, paging, delete;
 * and the edit screen (#categories/<id>).
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const el = A.el;
	const PER_PAGE = 30;

	A.screen({
		match: (path) => A.taxonomyByBase(path),
		render: (tax, q, view) => list(tax, q, view)
	});
	A.screen({
		match: (path) => {
			const m = /^([\w-]+)\/(\d+)$/.exec(path);
			const tax = m && A.taxonomyByBase(m[1]);
			return tax ? { tax: tax, id: parseInt(m[2], 10) } : null;
		},
		render: (args, q, view) => edit(args.tax, args.id, view)
	});

	function termForm(tax, terms, term, submitLabel) {
		const single = A.singular(tax);
		const name = el('input', { type: 'text', name: 'name', id: 'term-name', value: term ? term.name : '', required: true });
		const slug = el('input', { type: 'text', name: 'slug', id: 'term-slug', value: term ? term.slug : '' });
		const description = el('textarea', { name: 'description', id: 'term-description', rows: 4 });
		description.value = term ? term.description || '' : '';
		let parent = null;
		if (tax.hierarchical) {
			parent = el('select', { name: 'parent', id: 'term-parent' }, el('option', { value: '0', text: 'None' }));
			const skip = new Set(term ? [term.id] : []);
			A.termTree(terms).forEach(({ term: t, depth }) => {
				if (skip.has(t.id) || skip.has(t.parent)) {
					skip.add(t.id);
					return;
				}
				parent.appendChild(el('option', { value: t.id, selected: term && term.parent === t.id, text: '\u2014 '.repeat(depth) + t.name }));
			});
		}
		const button = el('button', { type: 'submit', 'class': 'button primary', text: submitLabel });
		const result = A.noticeBox({ 'class': 'notice save-result' });
		const form = el('form', { 'class': 'term-form', novalidate: true },
			A.field('Name', name),
			A.field('Slug', slug, 'The name in addresses: lower-case letters, numbers and hyphens. Leave empty to make one from the name.'),
			parent ? A.field('Parent ' + single.toLowerCase(), parent) : null,
			A.field('Description', description),
			el('div', { 'class': 'actions' }, button, result));
		const initial = { name: name.value, slug: slug.value, description: description.value, parent: parent ? parent.value : '0' };
		return {
			form: form,
			name: name,
			button: button,
			result: result,
			values: () => {
				const v = { name: name.value.trim(), slug: slug.value.trim(), description: description.value };
				if (parent) {
					v.parent = parseInt(parent.value, 10) || 0;
				}
				return v;
			},
			changed: () => name.value !== initial.name || slug.value !== initial.slug || description.value !== initial.description || (parent && parent.value !== initial.parent)
		};
	}

	async function list(tax, q, view) {
		if (!A.typeCan(tax, 'manage_terms')) {
			A.notAllowed(view, 'manage ' + tax.name.toLowerCase());
			return;
		}
		const single = A.singular(tax);
		A.heading(view, tax.name);
		const m = view.main;
		const Coll = A.collectionClass(tax.base);
		let all;
		try {
			all = await A.fetchAll(Coll, { context: 'edit', orderby: 'name' });
		} catch (err) {
			if (view.alive()) {
				A.notice(view.notice, tax.name + ' could not be loaded: ' + A.errorText(err), 'error');
			}
			return;
		}
		if (!view.alive()) {
			return;
		}
		const terms = all.toJSON();
		const search = (q.search || '').toLowerCase();
		const page = Math.max(1, parseInt(q.page, 10) || 1);

		// Add new.
		const f = termForm(tax, terms, null, 'Add new ' + single.toLowerCase());
		A.dirty = () => f.changed();
		f.form.addEventListener('submit', async (e) => {
			e.preventDefault();
			const v = f.values();
			if (!v.name) {
				A.notice(f.result, 'Type a name.', 'error');
				f.name.focus();
				return;
			}
			if (!v.slug) {
				delete v.slug;
			}
			const term = new (A.modelClass(tax.base))(v);
			try {
				await A.busy(f.button, term.save(null, { wait: true }));
			} catch (err) {
				A.notice(f.result, A.errorText(err), 'error');
				return;
			}
			A.dirty = null;
			A.flash('\u201c' + term.get('name') + '\u201d added.');
			A.route();
		});
		const addBox = el('section', { 'class': 'panel add-term-panel', 'aria-labelledby': 'add-term-heading' },
			el('h2', { id: 'add-term-heading', text: 'Add new ' + single.toLowerCase() }), f.form);

		// The list: the whole tree (or the matches), a page at a time.
		let rows = tax.hierarchical ? A.termTree(terms) : terms.slice().sort((a, b) => a.name.localeCompare(b.name)).map((t) => ({ term: t, depth: 0 }));
		if (search) {
			rows = rows.filter(({ term }) => term.name.toLowerCase().indexOf(search) >= 0 || term.slug.indexOf(search) >= 0);
		}
		const pages = Math.max(1, Math.ceil(rows.length / PER_PAGE));
		const shown = rows.slice((page - 1) * PER_PAGE, page * PER_PAGE);
		const searchInput = el('input', { type: 'search', value: q.search || '' });
		const form = el('form', { 'class': 'filters', role: 'search' }, A.field('Search ' + tax.name.toLowerCase(), searchInput), el('button', { type: 'submit', 'class': 'button secondary', text: 'Search' }));
		form.addEventListener('submit', (e) => {
			e.preventDefault();
			A.navigate('#' + tax.base + A.query({ search: searchInput.value }));
		});
		const listOf = A.types.find((t) => (tax.types || []).indexOf(t.slug) >= 0 && t.slug !== 'attachment' && A.typeCan(t, 'edit_posts'));
		const byId = {};
		terms.forEach((t) => {
			byId[t.id] = t;
		});
		const table = el('table', { 'class': 'items terms', id: 'terms-list' },
			el('caption', { 'class': 'screen-reader-text', text: tax.name }),
			el('thead', {}, el('tr', {},
				el('th', { scope: 'col', text: 'Name' }),
				el('th', { scope: 'col', 'class': 'col-desc', text: 'Description' }),
				el('th', { scope: 'col', text: 'Slug' }),
				tax.hierarchical ? el('th', { scope: 'col', text: 'Parent' }) : null,
				el('th', { scope: 'col', 'class': 'num', text: 'Count' }))),
			el('tbody', {}, shown.map(({ term, depth }) => {
				const notice = A.noticeBox();
				const del = el('button', { type: 'button', 'class': 'link danger', text: 'Delete', 'aria-label': 'Delete \u201c' + term.name + '\u201d' });
				del.addEventListener('click', async () => {
					if (!(await A.confirm('Delete ' + single.toLowerCase() + '?', 'Delete \u201c' + term.name + '\u201d? Posts keep their other ' + tax.name.toLowerCase() + '. This cannot be undone.', 'Delete', true, del))) {
						return;
					}
					try {
						await A.busy(del, new (A.modelClass(tax.base))({ id: term.id }).destroy({ wait: true, force: true }));
						A.flash('\u201c' + term.name + '\u201d deleted.');
						A.route();
					} catch (err) {
						A.notice(notice, A.errorText(err), 'error');
					}
				});
				return el('tr', { 'data-id': term.id },
					el('td', {},
						el('span', { 'class': 'depth', 'aria-hidden': 'true', text: '\u2014 '.repeat(depth) }),
						el('a', { href: '#' + tax.base + '/' + term.id, 'class': 'row-title', text: term.name }),
						el('div', { 'class': 'row-actions' }, el('a', { href: '#' + tax.base + '/' + term.id, 'aria-label': 'Edit \u201c' + term.name + '\u201d', text: 'Edit' }), ' ', del),
						notice),
					el('td', { 'class': 'col-desc', text: term.description || '\u2014' }),
					el('td', { text: term.slug }),
					tax.hierarchical ? el('td', { text: term.parent && byId[term.parent] ? byId[term.parent].name : '\u2014' }) : null,
					el('td', { 'class': 'num' }, term.count && tax.hierarchical && listOf ? el('a', {
						href: '#' + listOf.base + A.query({ [tax.base]: term.id }),
						'aria-label': term.count + ' items in “' + term.name + '”',
						text: String(term.count)
					}) : String(term.count || 0)));
			})));
		m.appendChild(el('div', { 'class': 'terms-layout' },
			addBox,
			el('div', { 'class': 'terms-main' }, form,
				shown.length ? el('div', { 'class': 'table-wrap' }, table) : el('p', { 'class': 'empty', text: search ? 'Nothing matches \u201c' + q.search + '\u201d.' : 'No ' + tax.name.toLowerCase() + ' yet.' }),
				A.pager(page, pages, rows.length, (n) => '#' + tax.base + A.query({ search: q.search || '', page: n }), [single.toLowerCase(), tax.name.toLowerCase()]))));
	}

	async function edit(tax, id, view) {
		if (!A.typeCan(tax, 'manage_terms')) {
			A.notAllowed(view, 'manage ' + tax.name.toLowerCase());
			return;
		}
		const single = A.singular(tax);
		const Model = A.modelClass(tax.base);
		const term = new Model({ id: id });
		let all;
		try {
			[all] = await Promise.all([A.fetchAll(A.collectionClass(tax.base), { orderby: 'name' }), term.fetch({ data: { context: 'edit' } })]);
		} catch (err) {
			if (!view.alive()) {
				return;
			}
			if (A.errorOf(err).status === 404) {
				A.notFound(view, tax.base + '/' + id);
				return;
			}
			A.heading(view, 'Edit ' + single.toLowerCase());
			A.notice(view.notice, A.errorText(err), 'error');
			return;
		}
		if (!view.alive()) {
			return;
		}
		const t = term.toJSON();
		A.heading(view, 'Edit ' + single.toLowerCase(), el('a', { href: '#' + tax.base, 'class': 'button secondary', text: '\u2190 All ' + tax.name.toLowerCase() }));
		const f = termForm(tax, all.toJSON(), t, 'Update');
		A.dirty = () => f.changed();
		f.form.addEventListener('submit', async (e) => {
			e.preventDefault();
			const v = f.values();
			const patch = {};
			Object.keys(v).forEach((k) => {
				if (v[k] !== t[k] && !(k === 'slug' && v[k] === '')) {
					patch[k] = v[k];
				}
			});
			if (!Object.keys(patch).length) {
				A.notice(f.result, 'No changes to save.', 'info');
				return;
			}
			try {
				await A.busy(f.button, term.save(patch, { patch: true, wait: true }));
			} catch (err) {
				A.notice(f.result, A.errorText(err), 'error');
				return;
			}
			A.dirty = null;
			A.flash('\u201c' + term.get('name') + '\u201d updated.');
			A.navigate('#' + tax.base);
		});
		const del = el('button', { type: 'button', 'class': 'button danger', text: 'Delete ' + single.toLowerCase() });
		const delResult = A.noticeBox();
		del.addEventListener('click', async () => {
			if (!(await A.confirm('Delete ' + single.toLowerCase() + '?', 'Delete \u201c' + t.name + '\u201d? This cannot be undone.', 'Delete', true, del))) {
				return;
			}
			try {
				await A.busy(del, term.destroy({ wait: true, force: true }));
			} catch (err) {
				A.notice(delResult, A.errorText(err), 'error');
				return;
			}
			A.dirty = null;
			A.flash('\u201c' + t.name + '\u201d deleted.');
			A.navigate('#' + tax.base);
		});
		A.append(view.main, [
			el('p', { 'class': 'meta', text: 'Used by ' + (t.count || 0) + ' item' + (t.count === 1 ? '' : 's') + '.' }),
			f.form,
			el('div', { 'class': 'actions danger-zone' }, del, delResult)
		]);
	}
})(window, document);
