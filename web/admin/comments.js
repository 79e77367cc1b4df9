/*
 * Folio admin, comment moderation (#comments): status tabs with counts,
 * search, the comments with their post, approve, unapprove, spam, trash,
 * restore, delete permanently and edit, and paging.
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const el = A.el;
	const PER_PAGE = 20;

	A.screen({
		match: (path) => (path === 'comments' ? {} : null),
		render: (args, q, view) => render(q, view)
	});

	const tabs = [['all', 'All'], ['hold', 'Pending'], ['approve', 'Approved'], ['spam', 'Spam'], ['trash', 'Trash']];
	const stateNames = { approved: 'Approved', hold: 'Pending', spam: 'Spam', trash: 'Trash' };

	async function render(q, view) {
		if (!A.can('moderate_comments')) {
			A.notAllowed(view, 'moderate comments');
			return;
		}
		const status = tabs.some(([s]) => s === q.status) ? q.status : 'hold';
		const page = Math.max(1, parseInt(q.page, 10) || 1);
		const search = q.search || '';
		A.heading(view, 'Comments');
		const m = view.main;
		const href = (over) => '#comments' + A.query(Object.assign({ status: status, search: search, page: '' }, over));
		const tabList = el('ul', { 'class': 'tabs', id: 'comment-tabs' });
		m.appendChild(el('nav', { 'aria-label': 'Filter by status' }, tabList));
		tabs.forEach(([s, label]) => {
			const count = el('span', { 'class': 'count' });
			tabList.appendChild(el('li', {}, el('a', { href: href({ status: s, search: '' }), 'aria-current': s === status ? 'page' : null }, label, ' ', count)));
			A.total('comments', { status: s, context: 'edit' }).then((n) => {
				count.textContent = '(' + n + ')';
			}, () => {});
		});
		const searchInput = el('input', { type: 'search', value: search });
		const form = el('form', { 'class': 'filters', role: 'search' }, A.field('Search comments', searchInput), el('button', { type: 'submit', 'class': 'button secondary', text: 'Search' }));
		form.addEventListener('submit', (e) => {
			e.preventDefault();
			A.navigate(href({ search: searchInput.value }));
		});
		m.appendChild(form);
		const region = el('div', { id: 'comments-list', 'aria-busy': 'true' }, el('p', { 'class': 'loading', text: 'Loading\u2026' }));
		m.appendChild(region);
		const comments = new (A.collectionClass('comments'))();
		const data = { context: 'edit', status: status, per_page: PER_PAGE, page: page, _embed: 1 };
		if (search) {
			data.search = search;
		}
		try {
			await comments.fetch({ data: data });
		} catch (err) {
			if (view.alive()) {
				region.setAttribute('aria-busy', 'false');
				A.clear(region).appendChild(el('p', { 'class': 'notice error', role: 'alert', text: 'The comments could not be loaded: ' + A.errorText(err) }));
			}
			return;
		}
		if (!view.alive()) {
			return;
		}
		region.setAttribute('aria-busy', 'false');
		A.clear(region);
		if (!comments.length) {
			region.appendChild(el('p', { 'class': 'empty', text: 'No comments here.' }));
			return;
		}
		region.appendChild(el('ul', { 'class': 'comments' }, comments.map((c) => item(c))));
		region.appendChild(A.pager(page, comments.state.totalPages, comments.state.totalObjects, (n) => href({ page: n }), ['comment', 'comments']));
	}

	function item(c) {
		const x = c.toJSON();
		const who = x.author_name || 'Anonymous';
		const notice = A.noticeBox();
		const post = x._embedded && x._embedded.up && x._embedded.up[0];
		const postType = post && A.types.find((t) => t.slug === post.type);
		const postTitle = post ? (A.plain(post.title && post.title.rendered) || '(no title)') : '#' + x.post;
		const act = (label, fn) => el('button', { type: 'button', 'class': 'link', text: label, 'aria-label': label + ' the comment by ' + who, onclick: fn });
		const setStatus = (s, done) => async (e) => {
			try {
				await A.busy(e.target, c.save({ status: s }, { patch: true, wait: true }));
				A.flash(done);
				A.route();
			} catch (err) {
				A.notice(notice, A.errorText(err), 'error');
			}
		};
		const actions = [];
		if (x.status === 'hold') {
			actions.push(act('Approve', setStatus('approved', 'Comment approved.')));
		}
		if (x.status === 'approved') {
			actions.push(act('Unapprove', setStatus('hold', 'Comment unapproved.')));
		}
		if (x.status === 'spam') {
			actions.push(act('Not spam', setStatus('unspam', 'Comment restored from spam.')));
		} else if (x.status !== 'trash') {
			actions.push(act('Spam', setStatus('spam', 'Comment marked as spam.')));
		}
		if (x.status === 'trash') {
			actions.push(act('Restore', setStatus('untrash', 'Comment restored.')));
		} else {
			actions.push(act('Trash', setStatus('trash', 'Comment moved to the Trash.')));
		}
		if (x.status === 'trash' || x.status === 'spam') {
			actions.push(act('Delete permanently', async (e) => {
				if (!(await A.confirm('Delete permanently?', 'Delete the comment by ' + who + ' permanently? This cannot be undone.', 'Delete permanently', true, e.target))) {
					return;
				}
				try {
					await c.destroy({ wait: true, force: true });
					A.flash('Comment deleted permanently.');
					A.route();
				} catch (err) {
					A.notice(notice, A.errorText(err), 'error');
				}
			}));
		}
		const text = el('blockquote', { 'class': 'comment-text', text: A.raw(x.content) });
		const li = el('li', { 'data-id': x.id, 'class': 'comment status-' + x.status });
		actions.push(act('Edit', () => {
			const area = el('textarea', { rows: 5, id: 'edit-comment-' + x.id });
			area.value = A.raw(x.content);
			const save = el('button', { type: 'button', 'class': 'button primary small', text: 'Save comment' });
			const cancel = el('button', { type: 'button', 'class': 'button secondary small', text: 'Cancel' });
			const box = el('div', { 'class': 'comment-edit' }, A.field('Comment text', area), el('div', { 'class': 'actions' }, save, cancel));
			text.replaceWith(box);
			area.focus();
			A.dirty = () => area.value !== A.raw(x.content);
			cancel.addEventListener('click', () => {
				A.dirty = null;
				box.replaceWith(text);
			});
			save.addEventListener('click', async () => {
				try {
					await A.busy(save, c.save({ content: area.value }, { patch: true, wait: true }));
				} catch (err) {
					A.notice(notice, A.errorText(err), 'error');
					return;
				}
				A.dirty = null;
				x.content = c.get('content');
				text.textContent = A.raw(x.content);
				box.replaceWith(text);
				A.notice(notice, 'Comment saved.', 'ok');
			});
		}));
		return A.append(li, [
			el('p', { 'class': 'meta' },
				el('strong', { text: who }),
				x.author_email ? el('span', { 'class': 'email', text: ' <' + x.author_email + '>' }) : null,
				el('span', { 'class': 'state', text: ' \u2014 ' + (stateNames[x.status] || x.status) })),
			el('p', { 'class': 'meta' }, 'On ',
				postType && A.typeCan(postType, 'edit_posts') ? el('a', { href: '#' + postType.base + '/' + x.post, text: postTitle }) : el('span', { text: postTitle }),
				', ', el('time', { datetime: x.date, text: A.formatDate(x.date) })),
			text,
			el('p', { 'class': 'row-actions' }, actions),
			notice
		]);
	}
})(window, document);
