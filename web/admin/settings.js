/*
 * Folio admin, site settings (#settings): what the API tells about the
 * site (name, description, addresses, namespaces). The API has no
 * settings endpoint, so the screen says where the options are changed
 * instead of offering a form that could not save.
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

	// settingsRoute finds a settings route in the namespace, if the API
	// ever offers one.
	function settingsRoute() {
		return Object.values(api.collections).concat(Object.values(api.models)).find((C) => C.prototype.route && C.prototype.route.words.join('/') === 'settings') || null;
	}

	async function render(view) {
		if (!A.can('manage_options')) {
			A.notAllowed(view, 'change the site\u2019s settings');
			return;
		}
		A.heading(view, 'Settings');
		let index;
		try {
			index = await api.request({ url: api.settings.root });
		} catch (err) {
			if (view.alive()) {
				A.notice(view.notice, 'The site\u2019s details could not be loaded: ' + A.errorText(err), 'error');
			}
			return;
		}
		if (!view.alive()) {
			return;
		}
		const facts = [
			['Site title', index.name || '(none)'],
			['Tagline', index.description || '(none)'],
			['Site address', index.home || index.url || ''],
			['API address', api.settings.root],
			['API namespaces', (index.namespaces || []).join(', ')]
		];
		A.append(view.main, [
			el('section', { 'class': 'panel', 'aria-labelledby': 'general-heading' },
				el('h2', { id: 'general-heading', text: 'General' }),
				el('dl', { 'class': 'facts', id: 'site-facts' }, facts.map(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]))),
			settingsRoute() ? null : el('section', { 'class': 'panel', id: 'settings-missing', 'aria-labelledby': 'change-heading' },
				el('h2', { id: 'change-heading', text: 'Changing settings' }),
				el('p', { text: 'This site\u2019s API has no settings endpoint, so the site title, tagline, time zone and comment rules cannot be changed here.' }),
				el('p', {}, 'Set them in the ', el('code', { text: 'folio.toml' }), ' file the server starts with (', el('code', { text: '[site]' }), ': ',
					el('code', { text: 'title' }), ', ', el('code', { text: 'description' }), ', ', el('code', { text: 'timezone' }), ', ',
					el('code', { text: 'comment_moderation' }), ', ', el('code', { text: 'allow_anonymous_comments' }), ', \u2026) and restart it.'))
		]);
	}
})(window, document);
