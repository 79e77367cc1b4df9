/*
 * Folio admin, media: the library as a grid (#media) with type filter,
 * search and "load more"; uploads by drag and drop or file choice with a
 * progress bar per file; the details screen (#media/<id>) to edit title,
 * alternative text, caption and description or delete the file; and the
 * media picker dialog the editor uses for featured images.
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const api = A.api;
	const el = A.el;

	A.screen({
		match: (path) => (path === 'media' ? {} : null),
		render: (args, q, view) => library(q, view)
	});
	A.screen({
		match: (path) => {
			const m = /^media\/(\d+)$/.exec(path);
			return m ? { id: parseInt(m[1], 10) } : null;
		},
		render: (args, q, view) => details(args.id, view)
	});

	// uploader builds a drop zone with a file input; each file dropped or
	// chosen is uploaded with a progress bar, and onUploaded gets its
	// media model.
	A.uploader = function (onUploaded, opts) {
		opts = opts || {};
		const input = el('input', { type: 'file', id: A.id('upload-input'), multiple: true, accept: opts.accept || null, 'class': 'screen-reader-text' });
		const progress = el('ul', { 'class': 'uploads', 'aria-live': 'polite', 'aria-label': 'Uploads' });
		const zone = el('div', { 'class': 'drop-zone', id: opts.id || null },
			el('p', { 'class': 'drop-title', text: 'Drop files here to upload' }),
			el('p', {}, 'or ', el('label', { 'for': input.id, 'class': 'button secondary', tabindex: '0', role: 'button', text: 'Choose files' }), input),
			el('p', { 'class': 'hint', text: 'Images, documents, audio and video the site allows.' }));
		zone.querySelector('label[role=button]').addEventListener('keydown', (e) => {
			if (e.key === 'Enter' || e.key === ' ') {
				e.preventDefault();
				input.click();
			}
		});
		function send(file) {
			const bar = el('progress', { max: 100, value: 0, 'aria-label': 'Uploading ' + file.name });
			const state = el('span', { 'class': 'upload-state', text: 'Uploading\u2026' });
			const item = el('li', { 'class': 'upload' }, el('span', { 'class': 'upload-name', text: file.name }), bar, state);
			progress.insertBefore(item, progress.firstChild);
			return api.upload(file, {}, {
				progress: (loaded, total) => {
					bar.value = total ? Math.round(loaded / total * 100) : 0;
				}
			}).then((media) => {
				bar.value = 100;
				state.textContent = 'Uploaded';
				item.classList.add('done');
				onUploaded(media);
			}, (err) => {
				item.classList.add('failed');
				state.textContent = 'Failed: ' + A.errorText(err);
				state.setAttribute('role', 'alert');
			});
		}
		function take(files) {
			Array.from(files || []).forEach(send);
		}
		input.addEventListener('change', () => {
			take(input.files);
			input.value = '';
		});
		['dragenter', 'dragover'].forEach((ev) => zone.addEventListener(ev, (e) => {
			e.preventDefault();
			zone.classList.add('over');
		}));
		['dragleave', 'drop'].forEach((ev) => zone.addEventListener(ev, (e) => {
			e.preventDefault();
			zone.classList.remove('over');
		}));
		zone.addEventListener('drop', (e) => take(e.dataTransfer && e.dataTransfer.files));
		return el('div', { 'class': 'uploader' }, zone, progress);
	};

	// grid shows media records as buttons (or links) in a grid with load
	// more; it returns {node, prepend(model)}.
	function grid(coll, makeTile) {
		const list = el('ul', { 'class': 'media-grid', id: 'media-grid' });
		const more = el('button', { type: 'button', 'class': 'button secondary', id: 'media-more', text: 'Load more', hidden: true });
		const count = el('p', { 'class': 'page-count', 'aria-live': 'polite' });
		const notice = A.noticeBox();
		function draw() {
			A.clear(list);
			coll.each((m) => list.appendChild(el('li', { 'data-id': m.id }, makeTile(m))));
			if (!coll.length) {
				list.appendChild(el('li', { 'class': 'empty', text: 'No media found.' }));
			}
			more.hidden = !coll.hasMore();
			count.textContent = 'Showing ' + coll.length + ' of ' + (coll.state.totalObjects || coll.length);
		}
		more.addEventListener('click', async () => {
			try {
				const before = coll.length;
				await A.busy(more, coll.more());
				draw();
				const next = list.children[before] && list.children[before].querySelector('a,button');
				if (next) {
					next.focus();
				}
			} catch (err) {
				A.notice(notice, A.errorText(err), 'error');
			}
		});
		return {
			node: el('div', { 'class': 'media-browser' }, count, list, more, notice),
			draw: draw,
			prepend: (m) => {
				coll.add(m, { at: 0 });
				coll.state.totalObjects = (coll.state.totalObjects || 0) + 1;
				draw();
			}
		};
	}

	function tileBody(m) {
		const title = A.raw(m.get('title')) || ('#' + m.id);
		return [el('span', { 'class': 'tile-image' }, A.mediaPreview(m.toJSON(), 150)), el('span', { 'class': 'tile-title', text: title })];
	}

	async function library(q, view) {
		if (!A.can('upload_files')) {
			A.notAllowed(view, 'manage media');
			return;
		}
		A.heading(view, 'Media library');
		const m = view.main;
		const schema = await A.schema('media');
		if (!view.alive()) {
			return;
		}
		const getArgs = ((schema.endpoints || []).find((e) => e.methods.indexOf('GET') >= 0) || {}).args || {};
		const typeEnum = (getArgs.media_type && getArgs.media_type.enum) || [];
		const coll = new (A.collectionClass('media'))();
		const g = grid(coll, (x) => el('a', { href: '#media/' + x.id, 'class': 'tile', 'aria-label': (A.raw(x.get('title')) || '#' + x.id) + ' (' + (x.get('mime_type') || x.get('media_type')) + ')' }, tileBody(x)));
		m.appendChild(A.uploader((media) => g.prepend(media), { id: 'media-drop' }));

		const typeSelect = el('select', { name: 'media_type' }, el('option', { value: '', text: 'All media' }),
			typeEnum.map((t) => el('option', { value: t, selected: q.media_type === t, text: t.charAt(0).toUpperCase() + t.slice(1) })));
		const search = el('input', { type: 'search', name: 'search', value: q.search || '' });
		const form = el('form', { 'class': 'filters', role: 'search', id: 'media-filters' },
			typeEnum.length ? A.field('Type', typeSelect) : null,
			A.field('Search media', search),
			el('button', { type: 'submit', 'class': 'button secondary', text: 'Filter' }));
		form.addEventListener('submit', (e) => {
			e.preventDefault();
			A.navigate('#media' + A.query({ media_type: typeSelect.value, search: search.value }));
		});
		m.appendChild(form);
		m.appendChild(g.node);
		const data = { per_page: 40 };
		if (q.media_type) {
			data.media_type = q.media_type;
		}
		if (q.search) {
			data.search = q.search;
		}
		try {
			await coll.fetch({ data: data });
		} catch (err) {
			A.notice(view.notice, 'The library could not be loaded: ' + A.errorText(err), 'error');
			return;
		}
		if (view.alive()) {
			g.draw();
		}
	}

	async function details(id, view) {
		if (!A.can('upload_files')) {
			A.notAllowed(view, 'manage media');
			return;
		}
		const Model = A.modelClass('media');
		const media = new Model({ id: id });
		try {
			await media.fetch({ data: { context: 'edit' } });
		} catch (err) {
			if (!view.alive()) {
				return;
			}
			if (A.errorOf(err).status === 404) {
				A.notFound(view, 'media/' + id);
				return;
			}
			A.heading(view, 'Media');
			A.notice(view.notice, A.errorText(err), 'error');
			return;
		}
		if (!view.alive()) {
			return;
		}
		const x = media.toJSON();
		A.heading(view, 'Edit media', el('a', { href: '#media', 'class': 'button secondary', text: '\u2190 Back to the library' }));
		const m = view.main;
		const d = x.media_details || {};
		const facts = [
			['File name', (x.source_url || '').split('/').pop()],
			['File type', x.mime_type],
			['Uploaded on', A.formatDate(x.date)],
			d.width ? ['Dimensions', d.width + ' \u00d7 ' + d.height + ' pixels'] : null,
			d.filesize ? ['File size', Math.round(d.filesize / 1024) + ' KB'] : null,
			x.post ? ['Attached to', '#' + x.post] : null
		].filter(Boolean);
		const title = el('input', { type: 'text', name: 'title', value: A.raw(x.title) });
		const alt = el('input', { type: 'text', name: 'alt_text', value: x.alt_text || '' });
		const caption = el('textarea', { name: 'caption', rows: 3 });
		caption.value = A.raw(x.caption);
		const description = el('textarea', { name: 'description', rows: 4 });
		description.value = A.raw(x.description);
		const url = el('input', { type: 'url', readonly: true, value: x.source_url || '' });
		const save = el('button', { type: 'submit', 'class': 'button primary', id: 'save-media', text: 'Save' });
		const result = A.noticeBox({ id: 'media-result' });
		const del = el('button', { type: 'button', 'class': 'button danger', id: 'delete-media', text: 'Delete permanently' });
		const delResult = A.noticeBox();
		const initial = { title: A.raw(x.title), alt_text: x.alt_text || '', caption: A.raw(x.caption), description: A.raw(x.description) };
		const values = () => ({ title: title.value, alt_text: alt.value, caption: caption.value, description: description.value });
		const changes = () => {
			const v = values();
			const out = {};
			Object.keys(v).forEach((k) => {
				if (v[k] !== initial[k]) {
					out[k] = v[k];
				}
			});
			return out;
		};
		A.dirty = () => Object.keys(changes()).length > 0;
		const form = el('form', { 'class': 'media-details', id: 'media-form', novalidate: true },
			el('div', { 'class': 'media-preview' },
				x.media_type === 'image' ? el('a', { href: x.source_url }, A.mediaPreview(x, 600)) : el('p', {}, A.mediaPreview(x), ' ', el('a', { href: x.source_url, text: 'Open the file' })),
				el('dl', { 'class': 'facts' }, facts.map(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]))),
			el('div', { 'class': 'media-fields' },
				A.field('Title', title),
				x.media_type === 'image' ? A.field('Alternative text', alt, 'Describe the image for people who cannot see it. Leave empty if it is only decoration.') : null,
				A.field('Caption', caption),
				A.field('Description', description),
				A.field('File URL', url),
				el('div', { 'class': 'actions' }, save, result),
				el('div', { 'class': 'actions danger-zone' }, del, delResult)));
		form.addEventListener('submit', async (e) => {
			e.preventDefault();
			const patch = changes();
			if (!Object.keys(patch).length) {
				A.notice(result, 'No changes to save.', 'info');
				return;
			}
			A.notice(result, 'Saving\u2026', 'busy');
			try {
				await A.busy(save, media.save(patch, { patch: true, wait: true }));
				Object.assign(initial, patch);
				A.notice(result, 'Media saved.', 'ok');
			} catch (err) {
				A.notice(result, A.errorText(err), 'error');
			}
		});
		del.addEventListener('click', async () => {
			if (!(await A.confirm('Delete permanently?', 'Delete \u201c' + (A.raw(x.title) || x.source_url) + '\u201d permanently? Posts that show it will lose it. This cannot be undone.', 'Delete permanently', true, del))) {
				return;
			}
			try {
				await A.busy(del, media.destroy({ wait: true, force: true }));
				A.dirty = null;
				A.flash('\u201c' + (A.raw(x.title) || '#' + x.id) + '\u201d deleted permanently.');
				A.navigate('#media');
			} catch (err) {
				A.notice(delResult, A.errorText(err), 'error');
			}
		});
		m.appendChild(form);
	}

	// A.pickMedia opens the media picker: a grid of images with search and
	// an upload zone. It resolves with the chosen media record or null.
	A.pickMedia = function (opts) {
		opts = opts || {};
		const coll = new (A.collectionClass('media'))();
		let chosen = null;
		const useButton = { label: opts.action || 'Use this image', value: 'use', primary: true };
		let dialogNode = null;
		const g = grid(coll, (x) => el('button', {
			type: 'button',
			'class': 'tile',
			'aria-pressed': 'false',
			'aria-label': A.raw(x.get('title')) || '#' + x.id,
			onclick: (e) => {
				chosen = x.toJSON();
				dialogNode.querySelectorAll('.tile[aria-pressed=true]').forEach((b) => b.setAttribute('aria-pressed', 'false'));
				e.currentTarget.setAttribute('aria-pressed', 'true');
				picked.textContent = 'Selected: ' + (A.raw(x.get('title')) || '#' + x.id);
				dialogNode.querySelector('.modal-actions .primary').disabled = false;
			},
			ondblclick: () => dialogNode.querySelector('.modal-actions .primary').click()
		}, tileBody(x)));
		const picked = el('p', { 'class': 'picked', 'aria-live': 'polite', text: 'Nothing selected' });
		const search = el('input', { type: 'search', id: A.id('media-search') });
		const notice = A.noticeBox();
		const load = async () => {
			try {
				await coll.fetch({ data: { per_page: 30, media_type: 'image', search: search.value || undefined } });
				g.draw();
			} catch (err) {
				A.notice(notice, A.errorText(err), 'error');
			}
		};
		const form = el('form', { 'class': 'filters', role: 'search' }, A.field('Search images', search), el('button', { type: 'submit', 'class': 'button secondary', text: 'Search' }));
		form.addEventListener('submit', (e) => {
			e.preventDefault();
			load();
		});
		const body = el('div', { 'class': 'picker' },
			A.can('upload_files') && A.uploader((media) => {
				g.prepend(media);
				const tile = dialogNode.querySelector('.media-grid li[data-id="' + media.id + '"] .tile');
				if (tile) {
					tile.click();
				}
			}, { accept: 'image/*', id: 'picker-drop' }),
			form, notice, g.node, picked);
		load();
		return A.dialog({
			title: opts.title || 'Choose an image',
			className: 'wide',
			body: body,
			returnFocus: opts.returnFocus,
			buttons: [{ label: 'Cancel', value: null }, useButton],
			onOpen: (d) => {
				dialogNode = d;
				d.querySelector('.modal-actions .primary').disabled = true;
			}
		}).then((v) => (v === 'use' ? chosen : null));
	};
})(window, document);
