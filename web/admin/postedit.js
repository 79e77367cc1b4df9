/*
 * Folio admin, the editor of every post type (#posts/new, #posts/<id>,
 * #pages/<id>, ...). It shows the fields the type's schema (OPTIONS) has:
 * title, content (visual and HTML), excerpt, status with scheduling,
 * visibility, date, author, sticky, format, parent and order, term
 * pickers, featured image, slug, discussion, revisions and preview.
 *
 * Saving sends only the fields whose value differs from the stored record
 * (PATCH), so whatever the user did not change stays exactly as stored;
 * with no change nothing is sent. The result shows next to the button.
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const api = A.api;
	const el = A.el;

	A.screen({
		match: (path) => {
			const m = /^([\w-]+)\/(new|\d+)$/.exec(path);
			if (!m) {
				return null;
			}
			const t = A.typeByBase(m[1]);
			return t && t.slug !== 'attachment' ? { type: t, id: m[2] === 'new' ? null : parseInt(m[2], 10) } : null;
		},
		render: (args, q, view) => render(args.type, args.id, view)
	});

	// A result to show next to the save button after the editor reloads.
	let pending = null;

	// normDate turns a datetime-local value into the API's form (seconds
	// included: Chromium leaves ":00" seconds out).
	function normDate(v) {
		if (!v) {
			return '';
		}
		return v.length === 16 ? v + ':00' : v.slice(0, 19);
	}
	function sameIds(a, b) {
		const x = (a || []).slice().sort((p, q) => p - q);
		const y = (b || []).slice().sort((p, q) => p - q);
		return x.length === y.length && x.every((v, i) => v === y[i]);
	}

	// blank is what a new post of the type holds before anything is typed:
	// a new post sends only the fields that differ from it.
	function blank(props, taxes) {
		const b = { title: { raw: '' }, content: { raw: '' }, excerpt: { raw: '' }, slug: '', status: 'draft', password: '', date: null, date_gmt: null, author: A.me.id, sticky: false, format: 'standard', parent: 0, menu_order: 0, featured_media: 0, comment_status: 'open', ping_status: 'open' };
		if (props.comment_status && props.comment_status.default) {
			b.comment_status = props.comment_status.default;
		}
		taxes.forEach((t) => {
			b[t.base] = [];
		});
		return b;
	}

	async function render(type, id, view) {
		const base = type.base;
		if (id === null ? !A.typeCan(type, 'create_posts') : !A.typeCan(type, 'edit_posts')) {
			A.notAllowed(view, (id === null ? 'create ' : 'edit ') + type.name.toLowerCase());
			return;
		}
		const Model = A.modelClass(base);
		const model = id === null ? null : new Model({ id: id });
		let schema;
		try {
			[schema] = await Promise.all([A.schema(base), model ? model.fetch({ data: { context: 'edit' } }) : null]);
		} catch (err) {
			if (!view.alive()) {
				return;
			}
			const e = A.errorOf(err);
			if (e.status === 404 || e.code === 'rest_post_invalid_id') {
				A.notFound(view, base + '/' + id);
				return;
			}
			A.heading(view, (type.labels && type.labels.edit_item) || 'Edit');
			A.notice(view.notice, 'This item could not be opened: ' + A.errorText(err), 'error');
			return;
		}
		if (!view.alive()) {
			return;
		}
		const props = (schema.schema && schema.schema.properties) || {};
		const writeArgs = ((schema.endpoints || []).find((e) => e.methods.indexOf('POST') >= 0) || {}).args || {};
		const taxes = A.taxonomiesOf(type).filter((t) => props[t.base]);
		const rec = model ? model.toJSON() : blank(props, taxes);
		const isNew = !model;
		const single = A.singular(type);
		if (model && !A.canEditPost(type, rec)) {
			A.notAllowed(view, 'edit this ' + single.toLowerCase());
			return;
		}
		if (rec.status === 'trash') {
			A.heading(view, (type.labels && type.labels.edit_item) || 'Edit');
			A.append(view.main, el('p', { text: 'This ' + single.toLowerCase() + ' is in the Trash. Restore it from the list to edit it.' }),
				el('p', {}, el('a', { href: '#' + base + '?status=trash', text: 'Go to the Trash' })));
			return;
		}
		const canPublish = A.typeCan(type, 'publish_posts');
		const canOthers = A.typeCan(type, 'edit_others_posts');
		const onChange = () => refresh();

		A.heading(view, isNew ? ((type.labels && type.labels.add_new_item) || 'Add new ' + single.toLowerCase()) : ((type.labels && type.labels.edit_item) || 'Edit ' + single.toLowerCase()),
			el('a', { href: '#' + base, 'class': 'button secondary', text: '\u2190 All ' + type.name.toLowerCase() }));

		// Main column.
		const fields = {};
		const mainCol = el('div', { 'class': 'editor-main' });
		if (props.title) {
			fields.title = el('input', { type: 'text', id: 'post-title', name: 'title', 'class': 'title-input', value: A.raw(rec.title), autocomplete: 'off' });
			mainCol.appendChild(A.field('Title', fields.title));
		}
		let rich = null;
		if (props.content) {
			rich = A.richText({ label: 'Content', value: A.raw(rec.content), onChange: onChange });
			mainCol.appendChild(rich.node);
		}
		if (props.excerpt) {
			fields.excerpt = el('textarea', { id: 'post-excerpt', name: 'excerpt', rows: 3 });
			fields.excerpt.value = A.raw(rec.excerpt);
			mainCol.appendChild(A.field('Excerpt', fields.excerpt, 'An optional summary. Without one, the start of the content is used.'));
		}

		// Publish panel.
		const statusOptions = [['draft', 'Draft'], ['pending', 'Pending review']];
		if (canPublish || rec.status === 'publish' || rec.status === 'private') {
			statusOptions.push(['publish', 'Published']);
		}
		if (canPublish || rec.status === 'future') {
			statusOptions.push(['future', 'Scheduled']);
		}
		const enumStatus = (props.status && props.status.enum) || [];
		const shownStatus = rec.status === 'private' ? 'publish' : rec.status;
		fields.status = el('select', { id: 'post-status', name: 'status' },
			statusOptions.filter(([v]) => !enumStatus.length || enumStatus.indexOf(v) >= 0 || v === rec.status).map(([v, l]) => el('option', { value: v, selected: v === shownStatus, text: l })));
		const visName = A.id('visibility');
		const visOptions = [['public', 'Public'], ['password', 'Password protected']];
		if ((canPublish || rec.status === 'private') && (!enumStatus.length || enumStatus.indexOf('private') >= 0)) {
			visOptions.push(['private', 'Private']);
		}
		const visNow = rec.status === 'private' ? 'private' : rec.password ? 'password' : 'public';
		const visRadios = visOptions.map(([v, l]) => {
			const input = el('input', { type: 'radio', name: visName, id: visName + '-' + v, value: v, checked: v === visNow });
			return el('div', { 'class': 'check' }, input, el('label', { 'for': input.id, text: l }));
		});
		fields.password = el('input', { type: 'text', id: 'post-password', name: 'password', value: rec.password || '', autocomplete: 'off' });
		const passwordField = A.field('Password', fields.password, 'Readers need it to see the content.');
		const floating = !rec.date_gmt;
		fields.date = el('input', { type: 'datetime-local', id: 'post-date', name: 'date', step: '1', value: floating ? '' : (rec.date || '').slice(0, 19) });
		const dateHint = el('span', { 'class': 'hint', id: 'post-date-hint' });
		fields.date.setAttribute('aria-describedby', dateHint.id);
		const saveButton = el('button', { type: 'submit', 'class': 'button primary', id: 'save-post', text: 'Save' });
		const result = A.noticeBox({ id: 'save-result', 'class': 'notice save-result' });
		const previewButton = el('button', { type: 'button', 'class': 'button secondary', id: 'preview-post', text: 'Preview' });
		const trashButton = !isNew && A.canDeletePost(type, rec) ? el('button', { type: 'button', 'class': 'link danger', id: 'trash-post', text: 'Move to Trash' }) : null;
		let stickyBox = null;
		if (props.sticky && canPublish && canOthers) {
			stickyBox = el('input', { type: 'checkbox', id: 'post-sticky', name: 'sticky', checked: !!rec.sticky });
		}
		const publishPanel = el('section', { 'class': 'panel publish-panel', 'aria-labelledby': 'publish-heading' },
			el('h2', { id: 'publish-heading', text: 'Publish' }),
			el('dl', { 'class': 'facts small' },
				el('dt', { text: 'Status' }), el('dd', { id: 'current-status', text: isNew ? 'New' : A.statusLabel(rec.status) }),
				!isNew && rec.modified ? [el('dt', { text: 'Last saved' }), el('dd', { text: A.formatDate(rec.modified) })] : null),
			A.field('Status', fields.status),
			el('fieldset', { 'class': 'visibility' }, el('legend', { text: 'Visibility' }), visRadios, passwordField),
			el('div', { 'class': 'field' }, el('label', { 'for': 'post-date', text: 'Publish date' }), fields.date, dateHint),
			stickyBox ? el('div', { 'class': 'check' }, stickyBox, el('label', { 'for': 'post-sticky', text: 'Stick to the top of the blog' })) : null,
			el('div', { 'class': 'publish-actions' }, previewButton, saveButton),
			result,
			trashButton ? el('div', { 'class': 'trash-action' }, trashButton) : null,
			!isNew && rec.link && (rec.status === 'publish' || rec.status === 'private') ? el('p', {}, el('a', { href: rec.link, id: 'view-post', text: 'View ' + single.toLowerCase() })) : null);

		const side = el('div', { 'class': 'editor-side' }, publishPanel);
		const panel = (title, idp, open, ...content) => {
			const d = el('details', { 'class': 'panel', id: idp, open: open }, el('summary', {}, el('h2', { text: title })), el('div', { 'class': 'panel-body' }, content));
			side.appendChild(d);
			return d;
		};

		if (props.author && canOthers) {
			fields.author = el('select', { id: 'post-author', name: 'author' });
			panel('Author', 'author-panel', false, A.field('Author', fields.author));
			const users = new Map();
			users.set(A.me.id, A.me.name || A.me.username);
			const fill = () => {
				A.clear(fields.author);
				if (!users.has(rec.author)) {
					users.set(rec.author, '#' + rec.author);
				}
				Array.from(users.entries()).sort((a, b) => a[1].localeCompare(b[1])).forEach(([uid, n]) => {
					fields.author.appendChild(el('option', { value: uid, selected: uid === rec.author, text: n }));
				});
			};
			fill();
			// Every user who can author posts (who=authors, for those
			// who may edit posts), not only those who have published.
			const Users = A.collectionClass('users');
			A.fetchAll(Users, { orderby: 'name', who: 'authors' }).catch(() => A.fetchAll(Users, { orderby: 'name' })).then((c) => {
				c.each((u) => users.set(u.id, u.get('name') || u.get('slug')));
				const cur = fields.author.value;
				fill();
				fields.author.value = cur;
				fields.author.setAttribute('data-loaded', 'true');
			}, () => {});
		}
		if (props.format && props.format.enum) {
			fields.format = el('select', { id: 'post-format', name: 'format' }, props.format.enum.map((f) => el('option', { value: f, selected: f === (rec.format || 'standard'), text: f.charAt(0).toUpperCase() + f.slice(1) })));
			panel('Format', 'format-panel', false, A.field('Format', fields.format));
		}
		if (props.parent || props.menu_order) {
			const body = [];
			if (props.parent) {
				fields.parent = el('select', { id: 'post-parent', name: 'parent' }, el('option', { value: '0', text: '(no parent)' }));
				body.push(A.field('Parent', fields.parent));
				const cur = rec.parent || 0;
				if (cur) {
					fields.parent.appendChild(el('option', { value: cur, selected: true, text: '#' + cur }));
				}
				A.fetchAll(A.collectionClass(base), { status: 'any', orderby: 'title', order: 'asc', context: 'edit' }).then((c) => {
					const items = c.map((p) => ({ id: p.id, parent: p.get('parent') || 0, name: A.raw(p.get('title')) || '(no title) #' + p.id }));
					const tree = A.termTree(items);
					// Leave out the post itself and its descendants.
					const skip = new Set(id ? [id] : []);
					const value = fields.parent.value;
					A.clear(fields.parent).appendChild(el('option', { value: '0', text: '(no parent)' }));
					tree.forEach(({ term, depth }) => {
						if (skip.has(term.id) || skip.has(term.parent)) {
							skip.add(term.id);
							return;
						}
						fields.parent.appendChild(el('option', { value: term.id, text: '\u2014 '.repeat(depth) + term.name }));
					});
					if (cur && !fields.parent.querySelector('option[value="' + cur + '"]')) {
						fields.parent.appendChild(el('option', { value: cur, text: '#' + cur }));
					}
					fields.parent.value = value;
				}, () => {});
			}
			if (props.menu_order) {
				fields.menu_order = el('input', { type: 'number', id: 'post-order', name: 'menu_order', step: '1', value: String(rec.menu_order || 0) });
				body.push(A.field('Order', fields.menu_order));
			}
			panel(props.parent ? 'Page attributes' : 'Order', 'attributes-panel', !!props.parent, body);
		}
		const pickers = {};
		taxes.forEach((t) => {
			if (!A.typeCan(t, 'assign_terms')) {
				return;
			}
			pickers[t.base] = A.termPicker(t, rec[t.base] || [], onChange);
			panel(t.name, t.base + '-panel', true, pickers[t.base].node);
		});
		let featured = rec.featured_media || 0;
		let featuredBody = null;
		if (props.featured_media && A.collectionClass('media')) {
			featuredBody = el('div', { 'class': 'featured', id: 'featured-image' });
			panel((type.labels && type.labels.featured_image) || 'Featured image', 'featured-panel', true, featuredBody);
		}
		if (props.slug) {
			fields.slug = el('input', { type: 'text', id: 'post-slug', name: 'slug', value: rec.slug || '', autocomplete: 'off' });
			panel('Slug', 'slug-panel', false, A.field('Slug', fields.slug, 'The last part of the address. Leave empty to make one from the title.'));
		}
		if (props.comment_status || props.ping_status) {
			const body = [];
			if (props.comment_status) {
				fields.comment_status = el('input', { type: 'checkbox', id: 'post-comments', checked: rec.comment_status === 'open' });
				body.push(el('div', { 'class': 'check' }, fields.comment_status, el('label', { 'for': 'post-comments', text: 'Allow comments' })));
			}
			if (props.ping_status) {
				fields.ping_status = el('input', { type: 'checkbox', id: 'post-pings', checked: rec.ping_status === 'open' });
				body.push(el('div', { 'class': 'check' }, fields.ping_status, el('label', { 'for': 'post-pings', text: 'Allow pingbacks and trackbacks' })));
			}
			panel('Discussion', 'discussion-panel', false, body);
		}
		const Revisions = A.revisionsClass(base);
		let revisionsBody = null;
		if (!isNew && Revisions) {
			revisionsBody = el('div', { id: 'revisions' }, el('p', { 'class': 'loading', text: 'Loading revisions\u2026' }));
			panel('Revisions', 'revisions-panel', false, revisionsBody);
		}

		const form = el('form', { id: 'post-form', 'class': 'editor', novalidate: true }, mainCol, side);
		view.main.appendChild(form);

		// values reads the form as API values.
		function visibility() {
			const r = form.querySelector('input[name="' + visName + '"]:checked');
			return r ? r.value : 'public';
		}
		function values() {
			const v = {};
			if (fields.title) {
				v.title = fields.title.value;
			}
			if (rich) {
				v.content = rich.getValue();
			}
			if (fields.excerpt) {
				v.excerpt = fields.excerpt.value;
			}
			const vis = visibility();
			v.status = vis === 'private' ? 'private' : fields.status.value;
			v.password = vis === 'password' ? fields.password.value : '';
			v.date = normDate(fields.date.value);
			if (fields.author) {
				v.author = parseInt(fields.author.value, 10);
			}
			if (stickyBox) {
				v.sticky = stickyBox.checked;
			}
			if (fields.format) {
				v.format = fields.format.value;
			}
			if (fields.parent) {
				v.parent = parseInt(fields.parent.value, 10) || 0;
			}
			if (fields.menu_order) {
				v.menu_order = parseInt(fields.menu_order.value, 10) || 0;
			}
			Object.keys(pickers).forEach((k) => {
				v[k] = pickers[k].getValue();
			});
			if (featuredBody) {
				v.featured_media = featured;
			}
			if (fields.slug) {
				v.slug = fields.slug.value.trim();
			}
			if (fields.comment_status) {
				v.comment_status = fields.comment_status.checked ? 'open' : 'closed';
			}
			if (fields.ping_status) {
				v.ping_status = fields.ping_status.checked ? 'open' : 'closed';
			}
			return v;
		}
		// stored gives the record's value of field k in the form's terms.
		function stored(k) {
			const was = rec[k];
			if (k === 'title' || k === 'content' || k === 'excerpt') {
				return A.raw(was);
			}
			if (k === 'date') {
				return floating ? '' : (was || '').slice(0, 19);
			}
			if (k === 'password' || k === 'slug') {
				return was || '';
			}
			return was;
		}
		function same(a, b) {
			return Array.isArray(a) || Array.isArray(b) ? sameIds(a, b) : a === b;
		}
		// changes is the patch. A field is sent only when the user changed
		// it (its value differs from what the form showed at first) and it
		// now differs from the stored record; content only once edited. So
		// a value the form cannot show exactly is never rewritten.
		function changes() {
			const v = values();
			const out = {};
			Object.keys(v).forEach((k) => {
				if (!writeArgs[k] && !props[k]) {
					return;
				}
				if (k === 'content') {
					if (rich.changed() && v.content !== stored('content')) {
						out.content = v.content;
					}
					return;
				}
				if (k === 'date' && v.date === '') {
					return;
				}
				if (same(v[k], initial[k]) || same(v[k], stored(k))) {
					return;
				}
				out[k] = v[k];
			});
			if (isNew) {
				out.status = v.status;
			}
			return out;
		}
		const initial = values();
		A.dirty = () => {
			const c = changes();
			if (isNew) {
				delete c.status;
			}
			return Object.keys(c).length > 0;
		};

		// refresh keeps the publish panel in step with the form.
		function refresh() {
			const v = values();
			passwordField.hidden = visibility() !== 'password';
			fields.status.disabled = visibility() === 'private';
			const future = v.date && v.date > A.nowLocal();
			const published = !isNew && (rec.status === 'publish' || rec.status === 'future' || rec.status === 'private');
			let label;
			if (published && (v.status === rec.status || (v.status === 'publish' && rec.status === 'future' && future))) {
				label = 'Update';
			} else {
				label = {
					publish: future ? 'Schedule' : 'Publish',
					future: 'Schedule',
					private: 'Publish privately',
					pending: canPublish ? 'Save as pending' : 'Submit for review',
					draft: 'Save draft'
				}[v.status] || 'Save';
			}
			saveButton.textContent = label;
			if (v.status === 'future' || (v.status === 'publish' && future)) {
				dateHint.textContent = v.date ? 'Scheduled for ' + A.formatDate(v.date) + '.' : 'Choose a date in the future.';
			} else if (!fields.date.value) {
				dateHint.textContent = 'Empty: the date it is published.';
			} else {
				dateHint.textContent = '';
			}
		}
		form.addEventListener('input', refresh);
		form.addEventListener('change', refresh);
		refresh();

		// Featured image.
		function drawFeatured(media) {
			if (!featuredBody) {
				return;
			}
			A.clear(featuredBody);
			const choose = el('button', { type: 'button', 'class': 'button secondary small', id: 'set-featured', text: featured ? 'Replace image' : 'Set featured image' });
			choose.addEventListener('click', async () => {
				const picked = await A.pickMedia({ title: 'Featured image', action: 'Set featured image', returnFocus: choose });
				if (picked) {
					featured = picked.id;
					drawFeatured(picked);
					refresh();
					const again = featuredBody.querySelector('#set-featured');
					if (again) {
						again.focus();
					}
				}
			});
			if (featured) {
				featuredBody.appendChild(el('div', { 'class': 'featured-preview' }, media ? A.mediaPreview(media, 300) : el('span', { 'class': 'file-icon', text: '#' + featured }),
					el('span', { 'class': 'featured-name', text: media ? A.raw(media.title) || '#' + featured : 'Image #' + featured })));
				const remove = el('button', { type: 'button', 'class': 'link danger', id: 'remove-featured', text: 'Remove featured image' });
				remove.addEventListener('click', () => {
					featured = 0;
					drawFeatured(null);
					refresh();
					choose.focus();
				});
				featuredBody.appendChild(el('div', { 'class': 'actions' }, choose, remove));
			} else {
				featuredBody.appendChild(el('p', { 'class': 'empty', text: 'No featured image.' }));
				featuredBody.appendChild(choose);
			}
		}
		if (featuredBody) {
			drawFeatured(null);
			if (featured) {
				api.request({ path: 'media/' + featured }).then((mRec) => {
					if (featured === mRec.id) {
						drawFeatured(mRec);
					}
				}, () => {});
			}
		}

		// Revisions.
		async function loadRevisions() {
			const coll = new Revisions([], { parent: id });
			try {
				await coll.fetch({ data: { context: 'edit' } });
			} catch (err) {
				A.clear(revisionsBody).appendChild(el('p', { 'class': 'notice error', text: A.errorText(err) }));
				return;
			}
			A.clear(revisionsBody);
			const notice = A.noticeBox({ id: 'revisions-notice' });
			if (!coll.length) {
				revisionsBody.appendChild(el('p', { 'class': 'empty', text: 'No revisions yet. One is kept each time the title, content or excerpt changes.' }));
				return;
			}
			const list = el('ol', { 'class': 'revisions' });
			coll.each((r) => {
				const x = r.toJSON();
				const when = A.formatDate(x.date || x.modified);
				const show = el('button', { type: 'button', 'class': 'link', text: 'Show', 'aria-label': 'Show the revision of ' + when });
				const restore = el('button', { type: 'button', 'class': 'link', text: 'Restore', 'aria-label': 'Restore the revision of ' + when });
				show.addEventListener('click', () => A.dialog({
					title: 'Revision of ' + when,
					className: 'wide',
					returnFocus: show,
					body: el('div', { 'class': 'revision-view' },
						el('h3', { text: A.raw(x.title) || '(no title)' }),
						el('pre', { 'class': 'revision-content', text: A.raw(x.content) }),
						A.raw(x.excerpt) ? el('p', {}, el('strong', { text: 'Excerpt: ' }), A.raw(x.excerpt)) : null),
					buttons: [{ label: 'Close', value: null, primary: true }]
				}));
				restore.addEventListener('click', async () => {
					if (A.isDirty() && !(await A.confirm('Discard your changes?', 'Restoring a revision replaces the title, content and excerpt, and your unsaved changes are lost.', 'Restore', true, restore))) {
						return;
					}
					try {
						await A.busy(restore, model.save({ title: A.raw(x.title), content: A.raw(x.content), excerpt: A.raw(x.excerpt) }, { patch: true, wait: true }));
					} catch (err) {
						A.notice(notice, A.errorText(err), 'error');
						return;
					}
					A.dirty = null;
					pending = { message: 'Restored the revision of ' + when + '.', kind: 'ok' };
					A.route();
				});
				list.appendChild(el('li', {}, el('span', { 'class': 'rev-when', text: when }), ' ', el('span', { 'class': 'rev-title', text: '\u201c' + (A.raw(x.title) || '(no title)') + '\u201d' }), ' ', show, ' ', restore));
			});
			revisionsBody.appendChild(list);
			revisionsBody.appendChild(notice);
		}
		if (revisionsBody) {
			loadRevisions();
		}

		// Preview: the title, featured image and current content, in a
		// sandboxed frame that runs no scripts.
		previewButton.addEventListener('click', async () => {
			const v = values();
			let img = '';
			if (featured) {
				try {
					const mRec = await api.request({ path: 'media/' + featured });
					img = '<img src="' + String(mRec.source_url).replace(/"/g, '&quot;') + '" alt="">';
				} catch (err) {
					img = '';
				}
			}
			const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
			const body = window.DOMPurify.sanitize(A.autop(v.content || ''));
			const frame = el('iframe', { 'class': 'preview-frame', title: 'Preview', sandbox: '' });
			frame.srcdoc = '<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{font:18px/1.6 Georgia,serif;color:#1d2327;max-width:42rem;margin:1.5rem auto;padding:0 1rem}img,video{max-width:100%;height:auto}h1{font-family:system-ui,sans-serif;line-height:1.2}</style></head><body><article><h1>' +
				esc(v.title || '') + '</h1>' + img + body + '</article></body></html>';
			A.dialog({
				title: 'Preview' + (A.dirty() ? ' (unsaved changes)' : ''),
				className: 'wide preview',
				returnFocus: previewButton,
				body: [frame, el('p', { 'class': 'hint', text: 'Shortcodes and the site\u2019s theme are not applied in this preview.' })],
				buttons: [{ label: 'Close preview', value: null, primary: true }]
			});
		});

		if (trashButton) {
			trashButton.addEventListener('click', async () => {
				try {
					await A.busy(trashButton, model.destroy({ wait: true }));
				} catch (err) {
					A.notice(result, A.errorText(err), 'error');
					return;
				}
				A.dirty = null;
				A.flash('\u201c' + (A.raw(rec.title) || '#' + rec.id) + '\u201d moved to the Trash.');
				A.navigate('#' + base);
			});
		}

		form.addEventListener('submit', async (e) => {
			e.preventDefault();
			const patch = changes();
			if (!isNew && !Object.keys(patch).length) {
				A.notice(result, 'No changes to save.', 'info');
				return;
			}
			const v = values();
			if (v.status === 'future' && !(v.date && v.date > A.nowLocal())) {
				A.notice(result, 'To schedule, choose a publish date in the future.', 'error');
				fields.date.focus();
				return;
			}
			if (visibility() === 'password' && !v.password) {
				A.notice(result, 'Type the password readers will need, or choose another visibility.', 'error');
				fields.password.focus();
				return;
			}
			A.notice(result, 'Saving\u2026', 'busy');
			const target = isNew ? new Model() : model;
			if (patch.date) {
				// The field shows the site's wall clock; it is sent with
				// the site's offset, so that it means that time there.
				patch.date = A.withOffset(patch.date);
			}
			try {
				await A.busy(saveButton, target.save(patch, { patch: !isNew, wait: true }));
			} catch (err) {
				A.notice(result, A.errorText(err), 'error');
				return;
			}
			const saved = target.toJSON();
			const what = single;
			const message = saved.status === rec.status && saved.status !== 'draft' ? what + ' updated.' : {
				publish: what + ' published.',
				future: what + ' scheduled for ' + A.formatDate(saved.date) + '.',
				draft: 'Draft saved.',
				pending: canPublish ? what + ' saved as pending review.' : what + ' submitted for review.',
				private: what + ' published privately.'
			}[saved.status] || what + ' saved.';
			pending = { message: message, kind: 'ok' };
			A.dirty = null;
			if (isNew) {
				A.navigate('#' + base + '/' + saved.id, true);
			} else {
				A.route();
			}
		});

		if (pending) {
			A.notice(result, pending.message, pending.kind);
			pending = null;
			saveButton.focus();
		}
		await Promise.all(Object.values(pickers).map((p) => p.ready));
		form.setAttribute('data-loaded', 'true');
	}
})(window, document);
