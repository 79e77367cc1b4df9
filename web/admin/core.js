/*
 * Folio admin, shared helpers (window.folioAdmin): building elements,
 * words for API errors, inline notices, dialogs, dates, paging, the
 * signed-in user's capabilities, post types and taxonomies from the API,
 * and the screen registry that app.js routes to. Every request goes
 * through the bundled client, folio.api.
 */
(function (window, document) {
	'use strict';

	const api = window.folio.api;
	const A = window.folioAdmin = window.folioAdmin || {};
	A.api = api;
	A.screens = [];

	// el builds an element: el('p', {class: 'x', onclick: fn}, 'text', child).
	// Strings become text nodes, so nothing is ever parsed as HTML; on*
	// attributes become event listeners (never inline handlers).
	A.el = function (tag, attrs, ...children) {
		const node = document.createElement(tag);
		for (const [k, v] of Object.entries(attrs || {})) {
			if (v === null || v === undefined || v === false) {
				continue;
			}
			if (k === 'text') {
				node.textContent = v;
			} else if (k.slice(0, 2) === 'on' && typeof v === 'function') {
				node.addEventListener(k.slice(2), v);
			} else if (k === 'value' && (tag === 'input' || tag === 'textarea' || tag === 'select')) {
				node.value = v;
				node.setAttribute('value', v);
			} else if (v === true) {
				node.setAttribute(k, '');
			} else {
				node.setAttribute(k, v);
			}
		}
		A.append(node, children);
		return node;
	};
	A.append = function (node, children) {
		for (const c of [].concat(children).flat(Infinity)) {
			if (c === null || c === undefined || c === false || c === '') {
				continue;
			}
			node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
		}
		return node;
	};
	A.clear = function (node) {
		node.textContent = '';
		return node;
	};
	const el = A.el;

	let uid = 0;
	// id returns a fresh element id with the given prefix.
	A.id = function (prefix) {
		uid += 1;
		return (prefix || 'f') + '-' + uid;
	};

	// raw gives the editable text of a {raw, rendered} field (the raw value
	// when the response has it, else the rendered HTML as plain text).
	A.raw = function (field) {
		if (field && typeof field === 'object') {
			return field.raw !== undefined ? field.raw : A.plain(field.rendered || '');
		}
		return field === null || field === undefined ? '' : String(field);
	};

	// plain turns HTML into its text without running or loading anything
	// (DOMParser documents are inert).
	A.plain = function (html) {
		const doc = new window.DOMParser().parseFromString(String(html || ''), 'text/html');
		return (doc.body.textContent || '').replace(/\s+/g, ' ').trim();
	};

	// Dates. The API gives local wall-clock times of the site's time zone
	// without a zone ("2030-01-01T12:00:18"); they are shown as they are,
	// never converted, and written back with the zone's offset
	// (withOffset).
	const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
	A.formatDate = function (s) {
		const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(s || '');
		if (!m) {
			return '';
		}
		return parseInt(m[3], 10) + ' ' + months[parseInt(m[2], 10) - 1] + ' ' + m[1] + ' at ' + m[4] + ':' + m[5];
	};
	// The site's time zone (an IANA name, from the API index's
	// timezone_string; app.js sets it at start): the zone the local
	// `date` fields are written in. Empty means the browser's zone.
	A.siteTimezone = '';
	const pad = (n) => String(n).padStart(2, '0');
	// wallClock gives the wall clock of the instant ms in zone (the
	// site's when empty and known, else the browser's) as the API writes
	// it: "2030-01-01T12:00:18".
	A.wallClock = function (ms, zone) {
		zone = zone || A.siteTimezone;
		if (zone) {
			try {
				const parts = {};
				new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
					.formatToParts(new Date(ms)).forEach((x) => {
						parts[x.type] = x.value;
					});
				return parts.year + '-' + parts.month + '-' + parts.day + 'T' + parts.hour + ':' + parts.minute + ':' + parts.second;
			} catch (e) {
				// An unknown zone: the browser's below.
			}
		}
		const d = new Date(ms);
		return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
	};
	// nowLocal is the current wall clock in the site's time zone.
	A.nowLocal = function () {
		return A.wallClock(Date.now());
	};
	// withOffset turns a wall clock of the site's time zone
	// ("2030-01-01T12:00:00") into the same time with its offset from UTC
	// ("2030-01-01T12:00:00+09:00"), which the API reads as that instant
	// whatever its rules for dates without an offset; with no known zone it
	// is returned as it is.
	A.withOffset = function (local) {
		const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(local || '');
		if (!m || !A.siteTimezone) {
			return local;
		}
		const asUTC = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
		const offsetAt = (ms) => {
			const w = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(A.wallClock(ms));
			return Date.UTC(+w[1], +w[2] - 1, +w[3], +w[4], +w[5], +w[6]) - ms;
		};
		// The offset at the instant the wall clock names; twice, for the
		// hours around a change of offset.
		let off = offsetAt(asUTC);
		off = offsetAt(asUTC - off);
		const mins = Math.round(off / 60000);
		const sign = mins < 0 ? '-' : '+';
		return local + sign + pad(Math.floor(Math.abs(mins) / 60)) + ':' + pad(Math.abs(mins) % 60);
	};

	// parseQuery and query read and write the part of the hash after "?".
	A.parseQuery = function (q) {
		const out = {};
		new window.URLSearchParams(q || '').forEach((v, k) => {
			out[k] = v;
		});
		return out;
	};
	A.query = function (params) {
		const u = new window.URLSearchParams();
		for (const [k, v] of Object.entries(params)) {
			if (v !== '' && v !== undefined && v !== null) {
				u.set(k, v);
			}
		}
		const s = u.toString();
		return s ? '?' + s : '';
	};

	// errorOf gives {code, message, status, data} for anything a request
	// can fail with: a jqXHR, the client's own rejections, an Error.
	A.errorOf = function (err) {
		if (err && err.getResponseHeader) {
			return api.utils.errorOf(err);
		}
		if (err instanceof Error) {
			return { code: 'folio_admin_error', message: err.message, status: 0 };
		}
		return err || {};
	};

	// errorText says in words what went wrong, with the server's reasons
	// for invalid parameters and the error code for reference.
	A.errorText = function (err) {
		const e = A.errorOf(err);
		if (e.code === 'rest_cookie_invalid_nonce' || e.code === 'rest_not_logged_in') {
			return 'Your session has ended. Reload the page and sign in again.';
		}
		if (e.status === 0 && e.code === 'http_error') {
			return 'The server could not be reached. Check the connection and try again.';
		}
		if (e.status >= 500 && e.code === 'http_error') {
			return 'The server had a problem (HTTP ' + e.status + '). Try again in a moment.';
		}
		let text = e.message || 'The request failed.';
		const params = e.data && e.data.params;
		if (params && typeof params === 'object') {
			const reasons = Object.keys(params).map((k) => params[k]).filter(Boolean);
			if (reasons.length) {
				text += ' ' + reasons.join('; ') + '.';
			}
		}
		if (e.status === 403 || e.status === 401) {
			text += ' Your account is not allowed to do this.';
		}
		return text + (e.code && e.code !== 'http_error' ? ' (' + e.code + ')' : '');
	};

	// notice shows a message in box (an element with role=status or alert),
	// styled by kind: 'ok', 'error', 'busy' or 'info'. An empty message
	// clears it.
	A.notice = function (box, message, kind) {
		box.textContent = message || '';
		box.className = 'notice ' + (message ? (kind || 'info') : '');
		if (kind === 'error' && message) {
			box.setAttribute('role', 'alert');
		} else {
			box.setAttribute('role', 'status');
		}
		return box;
	};
	// noticeBox makes an empty live region for inline messages.
	A.noticeBox = function (attrs) {
		return el('p', Object.assign({ 'class': 'notice', role: 'status', 'aria-live': 'polite' }, attrs || {}));
	};
	// failInto shows an API error in box; it is the rejection handler of
	// most requests.
	A.failInto = function (box) {
		return function (err) {
			A.notice(box, A.errorText(err), 'error');
		};
	};

	// flash is a message for the next screen (after a navigation).
	let flash = null;
	A.flash = function (message, kind) {
		flash = { message: message, kind: kind || 'ok' };
	};
	A.takeFlash = function () {
		const f = flash;
		flash = null;
		return f;
	};

	// Signed-in user and capabilities (set by app.js at start).
	A.me = null;
	A.can = function (cap) {
		return !!(A.me && A.me.capabilities && A.me.capabilities[cap]);
	};
	// typeCan maps a post type or taxonomy's capability name (edit_posts,
	// publish_posts, manage_terms, ...) to the user's primitive capability.
	A.typeCan = function (type, cap) {
		const caps = type && type.capabilities;
		return A.can((caps && caps[cap]) || cap);
	};

	// canEditPost mirrors the edit_post meta capability: own posts need
	// edit_posts (and edit_published_posts once published), others' posts
	// edit_others_posts (and edit_private_posts when private).
	A.canEditPost = function (type, post) {
		if (!A.typeCan(type, 'edit_posts')) {
			return false;
		}
		const own = post.author === A.me.id;
		if (!own && !A.typeCan(type, 'edit_others_posts')) {
			return false;
		}
		if ((post.status === 'publish' || post.status === 'future') && !A.typeCan(type, 'edit_published_posts')) {
			return false;
		}
		if (post.status === 'private' && !own && !A.typeCan(type, 'edit_private_posts')) {
			return false;
		}
		return true;
	};
	A.canDeletePost = function (type, post) {
		const own = post.author === A.me.id;
		if (!A.typeCan(type, 'delete_posts')) {
			return false;
		}
		if (!own && !A.typeCan(type, 'delete_others_posts')) {
			return false;
		}
		if ((post.status === 'publish' || post.status === 'future') && !A.typeCan(type, 'delete_published_posts')) {
			return false;
		}
		if (post.status === 'private' && !A.typeCan(type, 'delete_private_posts')) {
			return false;
		}
		return true;
	};

	// linkBase returns the last path segment of a resource's items link
	// (the REST base of a type or taxonomy: "posts", "categories").
	A.linkBase = function (rec) {
		const links = rec._links || {};
		const key = Object.keys(links).find((k) => k === 'wp:items' || /[:/]items$/.test(k));
		if (!key || !links[key][0]) {
			return null;
		}
		const path = links[key][0].href.split('?')[0].replace(/\/+$/, '');
		return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
	};

	// Post types and taxonomies, loaded once by app.js: each has slug,
	// name, base, hierarchical, capabilities, labels; taxonomies also
	// types (the post types they belong to).
	A.types = [];
	A.taxonomies = [];
	A.typeByBase = function (base) {
		return A.types.find((t) => t.base === base) || null;
	};
	A.taxonomyByBase = function (base) {
		return A.taxonomies.find((t) => t.base === base) || null;
	};
	A.taxonomiesOf = function (type) {
		return A.taxonomies.filter((t) => (t.types || []).indexOf(type.slug) >= 0);
	};
	A.singular = function (rec) {
		return (rec.labels && rec.labels.singular_name) || api.utils.singular(rec.name || rec.slug);
	};

	// Collection and model classes by REST base ("posts" → Posts / Post).
	A.collectionClass = function (base) {
		const Coll = Object.values(api.collections).find((C) => C.prototype.route && C.prototype.route.words.join('/') === base);
		return Coll || null;
	};
	A.modelClass = function (base) {
		const C = A.collectionClass(base);
		return C ? C.prototype.model : null;
	};
	A.revisionsClass = function (base) {
		return Object.values(api.collections).find((C) => C.prototype.route && C.prototype.route.words.join('/') === base + '/revisions') || null;
	};

	// schemas caches OPTIONS answers by REST base.
	const schemas = {};
	A.schema = function (base) {
		if (!schemas[base]) {
			schemas[base] = api.request({ method: 'OPTIONS', path: base }).then((d) => d, (err) => {
				delete schemas[base];
				return window.jQuery.Deferred().reject(err).promise();
			});
		}
		return schemas[base];
	};

	// fetchAll reads every page of a collection (100 at a time) into one
	// collection instance.
	A.fetchAll = async function (Coll, data, options) {
		const coll = new Coll([], options);
		await coll.fetch({ data: Object.assign({ per_page: 100 }, data) });
		while (coll.hasMore()) {
			await coll.more();
		}
		return coll;
	};

	// total asks for the number of items a query matches (X-API-Total of
	// a one-item page).
	A.total = async function (path, data) {
		const xhr = api.request({ path: path, data: Object.assign({}, data, { per_page: 1 }) });
		await xhr;
		const n = parseInt(api.utils.responseHeader(xhr, 'Total'), 10);
		return isNaN(n) ? 0 : n;
	};

	// limit runs fn over items with at most n calls in flight.
	A.limit = async function (items, n, fn) {
		let i = 0;
		const workers = Array.from({ length: Math.min(n, items.length) }, async () => {
			while (i < items.length) {
				const item = items[i];
				i += 1;
				await fn(item);
			}
		});
		await Promise.all(workers);
	};

	// Screens. A screen is {match(path) → args or null, render(args, q, view)}.
	// view: {main, token, alive()} where alive() turns false once the user
	// has moved on, so late answers are dropped.
	A.screen = function (def) {
		A.screens.push(def);
	};

	// heading fills the main region for a new screen: an h1 (which takes
	// focus, so screen readers announce the screen) and optional actions.
	A.heading = function (view, title, ...actions) {
		const h = el('h1', { id: 'view-title', tabindex: '-1', text: title });
		A.clear(view.main);
		view.main.appendChild(el('div', { 'class': 'screen-head' }, h, actions));
		document.title = title + ' \u2039 ' + (document.body.getAttribute('data-site-title') || 'Admin');
		const f = A.takeFlash();
		const box = A.noticeBox({ id: 'screen-notice' });
		if (f) {
			A.notice(box, f.message, f.kind);
		}
		view.main.appendChild(box);
		view.notice = box;
		h.focus();
		return h;
	};

	// navigate goes to a hash route (through the unsaved-changes guard).
	A.navigate = function (hash, replace) {
		hash = hash.charAt(0) === '#' ? hash : '#' + hash;
		if (replace) {
			window.history.replaceState(null, '', hash);
			A.route();
		} else if (window.location.hash === hash) {
			A.route();
		} else {
			window.location.hash = hash;
		}
	};

	// Unsaved changes: a screen with a form sets A.dirty to a function that
	// says whether it has unsaved changes; the router and beforeunload ask.
	A.dirty = null;
	A.isDirty = function () {
		return !!(A.dirty && A.dirty());
	};

	// dialog shows a modal <dialog> with a title, body and buttons; it
	// resolves with the value of the button pressed (null for Escape).
	A.dialog = function (opts) {
		return new Promise((resolve) => {
			const titleId = A.id('dialog-title');
			const d = el('dialog', { 'class': 'modal ' + (opts.className || ''), 'aria-labelledby': titleId });
			const done = (v) => {
				d.close();
				d.remove();
				resolve(v);
				if (opts.returnFocus && document.body.contains(opts.returnFocus)) {
					opts.returnFocus.focus();
				}
			};
			const buttons = (opts.buttons || [{ label: 'OK', value: true, primary: true }]).map((b) => el('button', {
				type: 'button',
				'class': (b.primary ? 'button primary' : 'button') + (b.danger ? ' danger' : ''),
				text: b.label,
				onclick: () => done(b.value)
			}));
			A.append(d, [
				el('h2', { id: titleId, text: opts.title }),
				el('div', { 'class': 'modal-body' }, opts.body),
				el('div', { 'class': 'modal-actions' }, buttons)
			]);
			d.addEventListener('cancel', (e) => {
				e.preventDefault();
				done(null);
			});
			document.body.appendChild(d);
			d.showModal();
			if (opts.onOpen) {
				opts.onOpen(d, done);
			}
			const focus = d.querySelector('[autofocus]') || buttons.find((b, i) => !(opts.buttons || [])[i] || !opts.buttons[i].danger) || buttons[0];
			if (focus) {
				focus.focus();
			}
		});
	};
	A.confirm = function (title, message, okLabel, danger, returnFocus) {
		return A.dialog({
			title: title,
			body: el('p', { text: message }),
			returnFocus: returnFocus,
			buttons: [
				{ label: 'Cancel', value: false },
				{ label: okLabel || 'OK', value: true, primary: !danger, danger: !!danger }
			]
		}).then((v) => v === true);
	};

	// pager is the paging bar of a list: first, previous, page n of m,
	// next, last.
	A.pager = function (page, pages, total, hrefFor, noun) {
		page = page || 1;
		pages = Math.max(1, pages || 1);
		const link = (n, label, rel) => (n >= 1 && n <= pages && n !== page) ?
			el('a', { href: hrefFor(n), rel: rel || null, 'class': 'button small', text: label }) :
			el('span', { 'class': 'button small disabled', 'aria-hidden': 'true', text: label });
		return el('nav', { 'class': 'pager', 'aria-label': 'Pages' },
			el('span', { 'class': 'page-count', text: total + ' ' + (total === 1 ? noun[0] : noun[1]) + ' \u2014 page ' + page + ' of ' + pages }),
			el('span', { 'class': 'pager-links' },
				link(1, '\u00ab First'), link(page - 1, '\u2039 Previous', 'prev'), link(page + 1, 'Next \u203a', 'next'), link(pages, 'Last \u00bb')));
	};

	// thumbURL is the smallest image of a media record that is at least
	// min pixels wide, else its original.
	A.thumbURL = function (media, min) {
		const sizes = (media.media_details && media.media_details.sizes) || {};
		const fits = Object.values(sizes).filter((s) => s && s.source_url && s.width >= (min || 150)).sort((a, b) => a.width - b.width);
		return (fits[0] && fits[0].source_url) || media.source_url || '';
	};
	// mediaPreview shows an image of a media record, or a placeholder with
	// its file type when it is not an image or the image cannot be loaded.
	A.mediaPreview = function (media, min) {
		const kind = (media.mime_type || '').split('/')[1] || media.media_type || 'file';
		const placeholder = el('span', { 'class': 'file-icon', 'aria-hidden': 'true', text: kind.toUpperCase().slice(0, 4) });
		if (media.media_type !== 'image') {
			return placeholder;
		}
		const img = el('img', { src: A.thumbURL(media, min), alt: media.alt_text || '', loading: 'lazy', decoding: 'async' });
		img.addEventListener('error', () => {
			if (img.parentNode) {
				img.parentNode.replaceChild(placeholder, img);
			}
		});
		return img;
	};

	// field builds a labelled control: field('Title', input, 'hint').
	A.field = function (label, control, hint, attrs) {
		if (!control.id) {
			control.id = A.id('field');
		}
		let hintEl = null;
		if (hint) {
			hintEl = el('span', { 'class': 'hint', id: control.id + '-hint', text: hint });
			control.setAttribute('aria-describedby', hintEl.id);
		}
		return el('div', Object.assign({ 'class': 'field' }, attrs || {}), el('label', { 'for': control.id, text: label }), control, hintEl);
	};

	// fieldErrors shows the reasons of an invalid-parameter error next to
	// the fields they name (controls: {name: element}): each control gets
	// aria-invalid and a message tied to it by aria-describedby, and the
	// first one takes focus. It returns how many it placed.
	// clearFieldErrors removes them from a form.
	A.fieldErrors = function (controls, err) {
		const e = A.errorOf(err);
		const params = (e.data && e.data.params) || {};
		let first = null;
		let n = 0;
		Object.keys(params).forEach((name) => {
			const c = controls[name];
			if (!c || typeof params[name] !== 'string') {
				return;
			}
			const msg = el('span', { 'class': 'field-error', id: c.id + '-error', text: params[name] });
			(c.closest('.field, .check') || c.parentNode).appendChild(msg);
			c.setAttribute('aria-invalid', 'true');
			c.setAttribute('aria-describedby', ((c.getAttribute('aria-describedby') || '') + ' ' + msg.id).trim());
			first = first || c;
			n += 1;
		});
		if (first) {
			first.focus();
		}
		return n;
	};
	A.clearFieldErrors = function (form) {
		form.querySelectorAll('.field-error').forEach((msg) => {
			const c = form.querySelector('[aria-describedby~="' + msg.id + '"]');
			if (c) {
				c.removeAttribute('aria-invalid');
				const rest = c.getAttribute('aria-describedby').split(/\s+/).filter((id) => id !== msg.id).join(' ');
				if (rest) {
					c.setAttribute('aria-describedby', rest);
				} else {
					c.removeAttribute('aria-describedby');
				}
			}
			msg.remove();
		});
	};

	// busy marks a button as working (disabled) until the promise settles.
	A.busy = async function (button, promise) {
		button.disabled = true;
		button.setAttribute('aria-busy', 'true');
		try {
			return await promise;
		} finally {
			button.disabled = false;
			button.removeAttribute('aria-busy');
		}
	};

	// statusLabel names a post status in words.
	A.statusLabels = { publish: 'Published', future: 'Scheduled', draft: 'Draft', pending: 'Pending review', private: 'Private', trash: 'Trash', inherit: 'Inherit' };
	A.statusLabel = function (s) {
		return A.statusLabels[s] || s;
	};
	A.roleLabels = { administrator: 'Administrator', editor: 'Editor', author: 'Author', contributor: 'Contributor', subscriber: 'Subscriber' };
	A.roleLabel = function (r) {
		return A.roleLabels[r] || (r ? r.charAt(0).toUpperCase() + r.slice(1) : 'No role');
	};
})(window, document);
