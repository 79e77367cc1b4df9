/*
 * Folio admin, site settings (#settings), for administrators
 * (manage_options): the API's settings route (GET and POST settings) as a
 * form: site title, tagline, time zone, the default category and
 * discussion statuses of new posts, the comment rules and avatars. Only the
 * values changed are sent; the reasons the server gives for invalid values
 * show next to their fields and the result next to the button. The
 * [site] options of folio.toml are the defaults; a value saved here wins
 * over them.
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const api = A.api;
	const el = A.el;

	A.screen({
		match: (path) => (path === 'settings' ? {} : null),
		render: (args, q, view) => render(view)
	});

	// SECTIONS are the settings the screen edits, in groups. kind says the
	// control: text, timezone, category, number, bool (a checkbox), open (a
	// checkbox for "open"/"closed") or readonly (shown, never sent).
	const SECTIONS = [
		{ id: 'general', title: 'General', fields: [
			{ name: 'title', label: 'Site title', kind: 'text' },
			{ name: 'description', label: 'Tagline', kind: 'text', hint: 'In a few words, what this site is about.' },
			{ name: 'url', label: 'Site address (URL)', kind: 'readonly', hint: 'site.url in folio.toml, or the address the site is reached at; it is not changed here.' },
			{ name: 'timezone', label: 'Time zone', kind: 'timezone', hint: 'A city in the same time zone as you, such as Europe/Paris, or UTC. Dates of posts and comments written from now on are in this zone; saved dates do not move.' }
		] },
		{ id: 'writing', title: 'Writing', fields: [
			{ name: 'default_category', label: 'Default post category', kind: 'category', hint: 'Posts saved without a category get this one; it cannot be deleted.' }
		] },
		{ id: 'discussion', title: 'Discussion', fields: [
			{ name: 'default_comment_status', label: 'Allow people to submit comments on new posts', kind: 'open' },
			{ name: 'default_ping_status', label: 'Allow link notifications from other sites (pingbacks and trackbacks) on new posts', kind: 'open' },
			{ name: 'allow_anonymous_comments', label: 'Let visitors comment without signing in', kind: 'bool' },
			{ name: 'comment_moderation', label: 'Hold every new comment for moderation', kind: 'bool' },
			{ name: 'comment_previously_approved', label: 'Hold a comment unless its author already has an approved comment', kind: 'bool' },
			{ name: 'comment_max_links', label: 'Hold a comment with this many links or more', kind: 'number', hint: '0 turns this check off.' }
		] },
		{ id: 'avatars', title: 'Avatars', fields: [
			{ name: 'show_avatars', label: 'Show the avatars of users and commenters', kind: 'bool' }
		] }
	];

	// timezones lists the zone names the browser knows, for suggestions.
	function timezones() {
		let zones = [];
		try {
			zones = Intl.supportedValuesOf('timeZone');
		} catch (e) {
			zones = [];
		}
		return ['UTC'].concat(zones.filter((z) => z !== 'UTC'));
	}

	// categoryOptions lists the categories as a tree, children indented
	// under their parent.
	function categoryOptions(cats, selected) {
		const byParent = {};
		cats.forEach((c) => {
			(byParent[c.parent || 0] = byParent[c.parent || 0] || []).push(c);
		});
		const out = [];
		const walk = (parent, depth) => {
			(byParent[parent] || []).forEach((c) => {
				out.push(el('option', { value: String(c.id), selected: c.id === selected, text: '\u2003'.repeat(depth) + A.plain(c.name) }));
				walk(c.id, depth + 1);
			});
		};
		walk(0, 0);
		if (!cats.some((c) => c.id === selected)) {
			out.unshift(el('option', { value: String(selected), selected: true, text: 'Category #' + selected }));
		}
		return out;
	}

	async function render(view) {
		if (!A.can('manage_options')) {
			A.notAllowed(view, 'change the site\u2019s settings');
			return;
		}
		A.heading(view, 'Settings');
		let data;
		let cats = [];
		try {
			[data, cats] = await Promise.all([
				api.request({ path: 'settings' }),
				A.fetchAll(A.collectionClass('categories'), { orderby: 'name', hide_empty: false }).then((c) => c.toJSON(), () => [])
			]);
		} catch (err) {
			if (!view.alive()) {
				return;
			}
			const e = A.errorOf(err);
			A.notice(view.notice, e.code === 'rest_no_route' ?
				'This site\u2019s API has no settings route: the site\u2019s options are set in folio.toml ([site]).' :
				'The settings could not be loaded: ' + A.errorText(err), 'error');
			return;
		}
		if (!view.alive()) {
			return;
		}
		const controls = {};
		const make = (f) => {
			const id = 'setting-' + f.name;
			const v = data[f.name];
			switch (f.kind) {
			case 'readonly':
				return el('div', { 'class': 'field' }, el('span', { 'class': 'label', text: f.label }), el('p', { 'class': 'static', id: id, text: v || '' }), f.hint ? el('span', { 'class': 'hint', text: f.hint }) : null);
			case 'bool':
			case 'open':
				controls[f.name] = el('input', { type: 'checkbox', id: id, name: f.name, checked: f.kind === 'open' ? v === 'open' : !!v });
				return el('div', { 'class': 'check' }, controls[f.name], el('label', { 'for': id, text: f.label }));
			case 'number':
				controls[f.name] = el('input', { type: 'number', id: id, name: f.name, min: '0', step: '1', inputmode: 'numeric', value: String(v) });
				break;
			case 'category':
				controls[f.name] = el('select', { id: id, name: f.name }, categoryOptions(cats, v));
				break;
			case 'timezone':
				controls[f.name] = el('input', { type: 'text', id: id, name: f.name, list: 'timezone-names', autocomplete: 'off', spellcheck: 'false', value: v || '' });
				break;
			default:
				controls[f.name] = el('input', { type: 'text', id: id, name: f.name, value: v || '' });
			}
			return A.field(f.label, controls[f.name], f.hint);
		};
		const save = el('button', { type: 'submit', 'class': 'button primary', id: 'save-settings', text: 'Save changes' });
		const result = A.noticeBox({ id: 'settings-result', 'class': 'notice save-result' });
		const form = el('form', { id: 'settings-form', 'class': 'settings-form', novalidate: true },
			el('p', { 'class': 'hint', text: 'The [site] options of folio.toml are the defaults; what is saved here wins over them, on every server of the site.' }),
			SECTIONS.map((s) => {
				const fields = s.fields.filter((f) => data[f.name] !== undefined);
				return fields.length ? el('fieldset', { id: 'settings-' + s.id }, el('legend', { text: s.title }), fields.map(make)) : null;
			}),
			el('datalist', { id: 'timezone-names' }, timezones().map((z) => el('option', { value: z }))),
			el('div', { 'class': 'actions' }, save, result));
		view.main.appendChild(form);

		// read gives each control's value as the API writes it; a number
		// field that holds no integer is sent as typed, for the server to
		// say why.
		const kinds = {};
		SECTIONS.forEach((s) => s.fields.forEach((f) => {
			kinds[f.name] = f.kind;
		}));
		const read = () => {
			const v = {};
			Object.keys(controls).forEach((k) => {
				const c = controls[k];
				switch (kinds[k]) {
				case 'bool':
					v[k] = c.checked;
					break;
				case 'open':
					v[k] = c.checked ? 'open' : 'closed';
					break;
				case 'number':
				case 'category': {
					const n = Number(c.value);
					v[k] = c.value.trim() !== '' && Number.isInteger(n) ? n : c.value;
					break;
				}
				default:
					v[k] = c.value;
				}
			});
			return v;
		};
		let initial = read();
		const changes = () => {
			const v = read();
			const out = {};
			Object.keys(v).forEach((k) => {
				if (v[k] !== initial[k]) {
					out[k] = v[k];
				}
			});
			return out;
		};
		A.dirty = () => Object.keys(changes()).length > 0;
		form.addEventListener('submit', async (e) => {
			e.preventDefault();
			A.clearFieldErrors(form);
			const patch = changes();
			if (!Object.keys(patch).length) {
				A.notice(result, 'No changes to save.', 'info');
				return;
			}
			A.notice(result, 'Saving\u2026', 'busy');
			let saved;
			try {
				saved = await A.busy(save, api.request({ method: 'POST', path: 'settings', data: patch }));
			} catch (err) {
				const placed = A.fieldErrors(controls, err);
				A.notice(result, (placed ? 'Not saved: check the highlighted field' + (placed > 1 ? 's' : '') + '. ' : '') + A.errorText(err), 'error');
				return;
			}
			Object.keys(controls).forEach((k) => {
				const c = controls[k];
				if (saved[k] === undefined) {
					return;
				}
				if (kinds[k] === 'bool') {
					c.checked = !!saved[k];
				} else if (kinds[k] === 'open') {
					c.checked = saved[k] === 'open';
				} else {
					c.value = String(saved[k]);
				}
			});
			initial = read();
			if (saved.timezone) {
				A.siteTimezone = saved.timezone;
			}
			if (patch.title !== undefined) {
				// The header and the window title follow at once.
				const title = saved.title || 'Folio';
				document.body.setAttribute('data-site-title', title);
				const link = document.querySelector('header .site a');
				if (link) {
					link.textContent = title;
				}
				document.title = 'Settings \u2039 ' + title;
			}
			A.notice(result, 'Settings saved.', 'ok');
		});
	}
})(window, document);
