/*
 * Folio admin, the list screen of every post type (#posts, #pages,
 * #<rest_base>): status tabs with counts, search, category and author
 * filters, the list with title, author, terms, comments, date and status,
 * row actions, bulk actions (trash, restore, delete, publish) and paging.
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const api = A.api;
	const el = A.el;
	const PER_PAGE = 20;

	// listType returns the post type listed at path, if any.
	function listType(path) {
		const t = A.typeByBase(path);
		return t && t.slug !== 'attachment' ? t : null;
	}

	A.screen({
		match: (path) => listType(path),
		render: (type, q, view) => render(type, q, view)
	});

	// termNames gives the names of a post's embedded terms of a taxonomy.
	function embeddedTerms(post, taxonomy) {
		const groups = (post._embedded && (post._embedded['wp:term'] || post._embedded['https://api.w.org/term'])) || [];
		const out = [];
		groups.forEach((g) => (g || []).forEach((t) => {
			if (t && t.taxonomy === taxonomy) {
				out.push(t);
			}
		}));
		return out;
	}

	function stateLabels(post) {
		const out = [];
		if (post.status !== 'publish' && post.status !== 'trash') {
			out.push(A.statusLabel(post.status));
		}
		if (post.password) {
			out.push('Password protected');
		}
		if (post.sticky) {
			out.push('Sticky');
		}
		return out;
	}

	async function render(type, q, view) {
		if (!A.typeCan(type, 'edit_posts')) {
			A.notAllowed(view, 'edit ' + type.name.toLowerCase());
			return;
		}
		const base = type.base;
		const Coll = A.collectionClass(base);
		const schema = await A.schema(base);
		if (!view.alive()) {
			return;
		}
		const props = (schema.schema && schema.schema.properties) || {};
		const listArgs = ((schema.endpoints || []).find((e) => e.methods.indexOf('GET') >= 0) || {}).args || {};
		const status = q.status || 'any';
		const page = Math.max(1, parseInt(q.page, 10) || 1);
		const search = q.search || '';
		const mine = q.author === 'me';
		const taxes = A.taxonomiesOf(type).filter((t) => props[t.base]);
		const filterTax = taxes.find((t) => t.hierarchical && listArgs[t.base]);
		const termFilter = filterTax ? (q[filterTax.base] || '') : '';
		const canCreate = A.typeCan(type, 'create_posts');
		const canPublish = A.typeCan(type, 'publish_posts');
		const href = (over) => '#' + base + A.query(Object.assign({ status: status === 'any' ? '' : status, search: search, author: mine ? 'me' : '', page: '' }, filterTax ? { [filterTax.base]: termFilter } : {}, over));

		A.heading(view, type.name, canCreate ? el('a', { href: '#' + base + '/new', 'class': 'button', id: 'add-new', text: (type.labels && type.labels.add_new_item) || 'Add new' }) : null);
		const m = view.main;

		// Status tabs, counted with one small request each.
		const tabs = el('ul', { 'class': 'tabs', id: 'status-tabs' });
		m.appendChild(el('nav', { 'aria-label': 'Filter by status' }, tabs));
		const tabDefs = [['any', 'All'], ['mine', 'Mine'], ['publish', 'Published'], ['future', 'Scheduled'], ['draft', 'Drafts'], ['pending', 'Pending'], ['private', 'Private'], ['trash', 'Trash']];
		tabDefs.forEach(([s, label]) => {
			const isCurrent = s === 'mine' ? mine && status === 'any' : !mine && s === status;
			const count = el('span', { 'class': 'count', text: '' });
			const a = el('a', { href: s === 'mine' ? href({ status: '', author: 'me' }) : href({ status: s === 'any' ? '' : s, author: '' }), 'aria-current': isCurrent ? 'page' : null }, label, ' ', count);
			const li = el('li', { 'data-status': s }, a);
			tabs.appendChild(li);
			const data = s === 'mine' ? { status: 'any', author: A.me.id } : { status: s };
			A.total(base, data).then((n) => {
				count.textContent = '(' + n + ')';
				if (n === 0 && !isCurrent && s !== 'any') {
					li.hidden = true;
				}
			}, () => {
				li.hidden = !isCurrent;
			});
		});

		// Search and filters.
		const searchInput = el('input', { type: 'search', name: 'search', value: search });
		const filterForm = el('form', { 'class': 'filters', role: 'search', id: 'list-filters' },
			A.field('Search ' + type.name.toLowerCase(), searchInput));
		let termSelect = null;
		if (filterTax) {
			termSelect = el('select', { name: filterTax.base }, el('option', { value: '', text: 'All ' + filterTax.name.toLowerCase() }));
			filterForm.appendChild(A.field(A.singular(filterTax), termSelect));
			A.fetchAll(A.collectionClass(filterTax.base), { orderby: 'name', order: 'asc' }).then((terms) => {
				A.termTree(terms.toJSON()).forEach(({ term, depth }) => {
					termSelect.appendChild(el('option', { value: term.id, selected: String(term.id) === termFilter, text: '\u2014 '.repeat(depth) + term.name }));
				});
			}, () => {});
		}
		filterForm.appendChild(el('button', { type: 'submit', 'class': 'button secondary', text: 'Filter' }));
		filterForm.addEventListener('submit', (e) => {
			e.preventDefault();
			const over = { search: searchInput.value, page: '' };
			if (filterTax) {
				over[filterTax.base] = termSelect.value;
			}
			A.navigate(href(over));
		});
		m.appendChild(filterForm);

		// Bulk actions.
		const actions = status === 'trash' ?
			[['restore', 'Restore'], ['delete', 'Delete permanently']] :
			[['trash', 'Move to Trash']].concat(canPublish ? [['publish', 'Publish']] : []);
		const bulkSelect = el('select', { id: 'bulk-action' }, el('option', { value: '', text: 'Bulk actions' }), actions.map(([v, l]) => el('option', { value: v, text: l })));
		const bulkButton = el('button', { type: 'button', 'class': 'button secondary', id: 'bulk-apply', text: 'Apply' });
		const bulkNotice = A.noticeBox({ id: 'bulk-notice' });
		m.appendChild(el('div', { 'class': 'bulk' },
			el('label', { 'for': 'bulk-action', 'class': 'screen-reader-text', text: 'Bulk action' }), bulkSelect, bulkButton, bulkNotice));

		const region = el('div', { id: 'posts-list', 'class': 'list-region', 'aria-busy': 'true' }, el('p', { 'class': 'loading', text: 'Loading\u2026' }));
		m.appendChild(region);

		const data = { context: 'edit', _embed: 1, per_page: PER_PAGE, page: page, status: status };
		if (search) {
			data.search = search;
		}
		if (mine) {
			data.author = A.me.id;
		}
		if (filterTax && termFilter) {
			data[filterTax.base] = termFilter;
		}
		const posts = new Coll();
		try {
			await posts.fetch({ data: data });
		} catch (err) {
			if (!view.alive()) {
				return;
			}
			region.setAttribute('aria-busy', 'false');
			A.clear(region).appendChild(el('p', { 'class': 'notice error', role: 'alert', text: 'The list could not be loaded: ' + A.errorText(err) }));
			return;
		}
		if (!view.alive()) {
			return;
		}
		region.setAttribute('aria-busy', 'false');
		A.clear(region);
		if (!posts.length) {
			region.appendChild(el('p', { 'class': 'empty', text: search ? 'Nothing matches \u201c' + search + '\u201d.' : ((type.labels && (status === 'trash' ? type.labels.not_found_in_trash : type.labels.not_found)) || 'Nothing here yet.') }));
			return;
		}
		const hasAuthor = !!props.author;
		const commentsCountable = !!A.collectionClass('comments') && !!props.comment_status;
		const selectAll = el('input', { type: 'checkbox', id: 'select-all', 'aria-label': 'Select all' });
		const cols = [
			el('td', { 'class': 'check' }, selectAll),
			el('th', { scope: 'col', text: 'Title' }),
			hasAuthor ? el('th', { scope: 'col', 'class': 'col-author', text: 'Author' }) : null,
			taxes.map((t) => el('th', { scope: 'col', 'class': 'col-terms', text: t.name })),
			props.parent ? el('th', { scope: 'col', text: 'Parent' }) : null,
			commentsCountable ? el('th', { scope: 'col', 'class': 'col-comments', text: 'Comments' }) : null,
			el('th', { scope: 'col', 'class': 'col-date', text: 'Date' }),
			el('th', { scope: 'col', 'class': 'col-status', text: 'Status' })
		];
		const rows = posts.map((p) => row(type, p, taxes, { hasAuthor, commentsCountable, parent: !!props.parent, view }));
		const table = el('table', { 'class': 'items posts' },
			el('caption', { 'class': 'screen-reader-text', text: type.name }),
			el('thead', {}, el('tr', {}, cols)),
			el('tbody', {}, rows.map((r) => r.tr)));
		region.appendChild(el('div', { 'class': 'table-wrap' }, table));
		region.appendChild(A.pager(page, posts.state.totalPages, posts.state.totalObjects, (n) => href({ page: n }), ['item', 'items']));

		selectAll.addEventListener('change', () => {
			region.querySelectorAll('tbody input[type=checkbox]').forEach((c) => {
				c.checked = selectAll.checked;
			});
		});

		// Parents are named after the list is shown.
		const parentIds = Array.from(new Set(rows.map((r) => r.post.parent).filter(Boolean)));
		if (props.parent && parentIds.length) {
			api.request({ path: base, data: { include: parentIds.join(','), per_page: 100, status: 'any', context: 'edit' } }).then((list) => {
				const names = {};
				(list || []).forEach((x) => {
					names[x.id] = A.raw(x.title) || '(no title)';
				});
				region.querySelectorAll('td.col-parent[data-parent]').forEach((td) => {
					const n = names[td.getAttribute('data-parent')];
					if (n) {
						td.textContent = n;
					}
				});
			}, () => {});
		}

		// Comment counts come after the list, a few requests at a time.
		if (commentsCountable) {
			A.limit(rows, 4, async (r) => {
				try {
					const n = await A.total('comments', { post: r.post.id });
					r.comments.textContent = String(n);
				} catch (err) {
					r.comments.textContent = '\u2014';
				}
			});
		}

		bulkButton.addEventListener('click', async () => {
			const action = bulkSelect.value;
			const ids = Array.from(region.querySelectorAll('tbody input[type=checkbox]:checked')).map((c) => parseInt(c.value, 10));
			if (!action) {
				A.notice(bulkNotice, 'Choose a bulk action first.', 'error');
				return;
			}
			if (!ids.length) {
				A.notice(bulkNotice, 'Select at least one item first.', 'error');
				return;
			}
			if (action === 'delete' && !(await A.confirm('Delete permanently?', 'Delete ' + ids.length + ' item(s) permanently? This cannot be undone.', 'Delete permanently', true, bulkButton))) {
				return;
			}
			A.notice(bulkNotice, 'Working\u2026', 'busy');
			const failures = [];
			await A.busy(bulkButton, A.limit(ids, 3, async (id) => {
				try {
					await applyAction(posts.get(id), action);
				} catch (err) {
					failures.push('\u201c' + (A.raw(posts.get(id).get('title')) || '#' + id) + '\u201d: ' + A.errorText(err));
				}
			}));
			const done = ids.length - failures.length;
			const verbs = { trash: 'moved to the Trash', restore: 'restored', delete: 'deleted permanently', publish: 'published' };
			const msg = done + ' item' + (done === 1 ? '' : 's') + ' ' + verbs[action] + '.';
			if (failures.length) {
				A.notice(bulkNotice, msg + ' ' + failures.length + ' failed: ' + failures.join(' '), 'error');
				return;
			}
			A.flash(msg);
			A.route();
		});
	}

	// applyAction does one row or bulk action on a post model.
	function applyAction(post, action) {
		switch (action) {
		case 'trash':
			return post.destroy({ wait: true });
		case 'delete':
			return post.destroy({ wait: true, force: true });
		case 'restore':
			// The API does not say which status a trashed post had; as
			// WordPress does, a restored post comes back as a draft.
			return post.save({ status: 'draft' }, { patch: true, wait: true });
		case 'publish':
			return post.save({ status: 'publish' }, { patch: true, wait: true });
		}
		return Promise.reject(new Error('unknown action ' + action));
	}
	A.applyPostAction = applyAction;

	function row(type, model, taxes, opts) {
		const p = model.toJSON();
		const title = A.raw(p.title) || '(no title)';
		const editable = A.canEditPost(type, p);
		const deletable = A.canDeletePost(type, p);
		const links = [];
		const rowNotice = A.noticeBox({ 'class': 'notice row-notice' });
		const act = (label, action, danger) => el('button', {
			type: 'button',
			'class': 'link' + (danger ? ' danger' : ''),
			'aria-label': label + ' \u201c' + title + '\u201d',
			text: label,
			onclick: async (e) => {
				if (action === 'delete' && !(await A.confirm('Delete permanently?', 'Delete \u201c' + title + '\u201d permanently? This cannot be undone.', 'Delete permanently', true, e.target))) {
					return;
				}
				try {
					await applyAction(model, action);
					A.flash({ trash: '\u201c' + title + '\u201d moved to the Trash.', delete: '\u201c' + title + '\u201d deleted permanently.', restore: '\u201c' + title + '\u201d restored as a draft.' }[action]);
					A.route();
				} catch (err) {
					A.notice(rowNotice, A.errorText(err), 'error');
				}
			}
		});
		if (p.status === 'trash') {
			if (deletable) {
				links.push(act('Restore', 'restore'), act('Delete permanently', 'delete', true));
			}
		} else {
			if (editable) {
				links.push(el('a', { href: '#' + type.base + '/' + p.id, 'aria-label': 'Edit \u201c' + title + '\u201d', text: 'Edit' }));
			}
			if (deletable) {
				links.push(act('Trash', 'trash', true));
			}
			if (p.link && (p.status === 'publish' || p.status === 'private')) {
				links.push(el('a', { href: p.link, 'aria-label': 'View \u201c' + title + '\u201d', text: 'View' }));
			}
		}
		const author = (p._embedded && p._embedded.author && p._embedded.author[0]) || null;
		const comments = el('span', { text: '\u2026' });
		const tr = el('tr', { 'data-id': p.id },
			el('td', { 'class': 'check' }, el('input', { type: 'checkbox', value: p.id, 'aria-label': 'Select \u201c' + title + '\u201d', disabled: !(editable || deletable) })),
			el('td', { 'class': 'col-title' },
				el('strong', {}, editable && p.status !== 'trash' ? el('a', { href: '#' + type.base + '/' + p.id, 'class': 'row-title', text: title }) : el('span', { 'class': 'row-title', text: title }),
					stateLabels(p).length ? el('span', { 'class': 'states', text: ' \u2014 ' + stateLabels(p).join(', ') }) : null),
				el('div', { 'class': 'row-actions' }, links),
				rowNotice),
			opts.hasAuthor ? el('td', { 'class': 'col-author', text: author ? author.name : '#' + p.author }) : null,
			taxes.map((t) => el('td', { 'class': 'col-terms', text: embeddedTerms(p, t.slug).map((x) => x.name).join(', ') || '\u2014' })),
			opts.parent ? el('td', { 'class': 'col-parent', 'data-parent': p.parent || null, text: p.parent ? '#' + p.parent : '\u2014' }) : null,
			opts.commentsCountable ? el('td', { 'class': 'col-comments' }, comments) : null,
			el('td', { 'class': 'col-date' },
				el('span', { 'class': 'date-label', text: p.status === 'publish' ? 'Published' : p.status === 'future' ? 'Scheduled' : 'Last modified' }), el('br'),
				el('time', { datetime: p.status === 'publish' || p.status === 'future' ? p.date : p.modified, text: A.formatDate(p.status === 'publish' || p.status === 'future' ? p.date : p.modified) })),
			el('td', { 'class': 'col-status', text: A.statusLabel(p.status) }));
		return { tr: tr, post: p, comments: comments };
	}

	// termTree orders terms parent-first with their depth, children sorted
	// by name; terms whose parent is missing are roots.
	A.termTree = function (terms) {
		const byParent = {};
		const ids = new Set(terms.map((t) => t.id));
		terms.forEach((t) => {
			const p = t.parent && ids.has(t.parent) ? t.parent : 0;
			(byParent[p] = byParent[p] || []).push(t);
		});
		Object.values(byParent).forEach((list) => list.sort((a, b) => a.name.localeCompare(b.name)));
		const out = [];
		const walk = (parent, depth, seen) => {
			(byParent[parent] || []).forEach((t) => {
				if (seen.has(t.id)) {
					return;
				}
				seen.add(t.id);
				out.push({ term: t, depth: depth });
				walk(t.id, depth + 1, seen);
			});
		};
		walk(0, 0, new Set());
		return out;
	};
})(window, document);
