/*
 * Folio admin, start-up and routing: loads the signed-in user, the post
 * types and the taxonomies, builds the navigation the user's role allows,
 * routes the URL fragment (#posts, #posts/12, #media, ...) to the screens
 * the other scripts registered, shows "not found" for anything else, and
 * guards unsaved changes.
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const api = A.api;
	const el = A.el;
	const main = document.getElementById('main');
	const navList = document.getElementById('nav-list');
	const who = document.getElementById('who');
	const statusBox = document.getElementById('status');

	// Types and taxonomies are read in edit context (which carries their
	// capabilities) when the user may, else in view context with the
	// capabilities WordPress gives by default.
	function defaultCaps(slug) {
		const plural = slug === 'page' ? 'pages' : 'posts';
		const caps = {};
		['edit', 'edit_others', 'edit_published', 'edit_private', 'publish', 'delete', 'delete_others', 'delete_published', 'delete_private', 'read_private'].forEach((c) => {
			caps[c + '_posts'] = c + '_' + plural;
		});
		caps.create_posts = 'edit_' + plural;
		return caps;
	}
	async function loadRecords(path) {
		let data;
		try {
			data = await api.request({ path: path, data: { context: 'edit' } });
		} catch (err) {
			data = await api.request({ path: path });
		}
		return Object.values(data || {});
	}

	async function load() {
		const me = new api.models.Me();
		const [, types, taxes, index] = await Promise.all([
			me.fetch({ data: { context: 'edit' } }),
			loadRecords('types'),
			loadRecords('taxonomies'),
			// The API root tells the site's time zone (dates are written
			// in it); without it the browser's zone stands in.
			api.request({ url: api.settings.root, data: { _fields: 'name,timezone_string' } }).then((d) => d, () => ({}))
		]);
		A.siteTimezone = (index && index.timezone_string) || '';
		A.me = me.toJSON();
		A.types = types.map((t) => Object.assign({}, t, {
			base: A.linkBase(t),
			capabilities: t.capabilities || defaultCaps(t.slug)
		})).filter((t) => t.base && A.collectionClass(t.base));
		A.taxonomies = taxes.map((t) => Object.assign({}, t, {
			base: A.linkBase(t),
			capabilities: t.capabilities || { manage_terms: 'manage_categories', edit_terms: 'manage_categories', delete_terms: 'manage_categories', assign_terms: 'edit_posts' }
		})).filter((t) => t.base && A.collectionClass(t.base));
	}

	// navItems lists what this user may open, in menu order.
	function navItems() {
		const items = [];
		A.types.filter((t) => t.slug !== 'attachment' && A.typeCan(t, 'edit_posts')).forEach((t) => {
			items.push({ hash: t.base, label: t.name });
		});
		if (A.can('upload_files') && A.collectionClass('media')) {
			items.push({ hash: 'media', label: 'Media' });
		}
		if (A.can('moderate_comments') && A.collectionClass('comments')) {
			items.push({ hash: 'comments', label: 'Comments' });
		}
		A.taxonomies.filter((t) => A.typeCan(t, 'manage_terms')).forEach((t) => {
			items.push({ hash: t.base, label: t.name });
		});
		if (A.can('list_users') && A.collectionClass('users')) {
			items.push({ hash: 'users', label: 'Users' });
		}
		if (A.can('manage_options')) {
			items.push({ hash: 'settings', label: 'Settings' });
		}
		items.push({ hash: 'profile', label: 'Profile' });
		return items;
	}
	A.navItems = navItems;

	function buildNav() {
		A.clear(navList);
		navItems().forEach((it) => {
			navList.appendChild(el('li', {}, el('a', { href: '#' + it.hash, 'data-nav': it.hash, text: it.label })));
		});
		const role = (A.me.roles || [])[0];
		A.clear(who);
		A.append(who, ['Signed in as ', el('a', { href: '#profile', 'class': 'who-name', text: A.me.name || A.me.username }),
			role ? el('span', { 'class': 'who-role', text: ' (' + A.roleLabel(role) + ')' }) : null]);
	}

	function markNav(path) {
		const first = path.split('/')[0];
		navList.querySelectorAll('a').forEach((a) => {
			if (a.getAttribute('data-nav') === first) {
				a.setAttribute('aria-current', 'page');
			} else {
				a.removeAttribute('aria-current');
			}
		});
	}

	function split(hash) {
		const h = (hash || '').replace(/^#\/?/, '');
		const i = h.indexOf('?');
		return { path: (i < 0 ? h : h.slice(0, i)).replace(/\/+$/, ''), query: i < 0 ? '' : h.slice(i + 1) };
	}

	let token = 0;
	let current = null;

	// route renders the screen for the current fragment.
	A.route = function () {
		const { path, query } = split(window.location.hash);
		if (path === '') {
			const first = navItems()[0];
			window.history.replaceState(null, '', '#' + first.hash);
			A.route();
			return;
		}
		token += 1;
		const mine = token;
		current = window.location.hash;
		A.dirty = null;
		A.notice(statusBox, '');
		document.body.classList.remove('nav-open');
		document.getElementById('menu-toggle').setAttribute('aria-expanded', 'false');
		markNav(path);
		const view = { main: main, path: path, alive: () => token === mine };
		for (const s of A.screens) {
			const args = s.match(path);
			if (args) {
				Promise.resolve().then(() => s.render(args, A.parseQuery(query), view)).catch((err) => {
					if (view.alive()) {
						A.heading(view, 'Something went wrong');
						main.appendChild(el('p', { 'class': 'notice error', role: 'alert', text: A.errorText(err) }));
					}
				});
				return;
			}
		}
		notFound(view, path);
	};

	function notFound(view, path) {
		A.heading(view, 'Not found');
		const first = navItems()[0];
		A.append(view.main, [
			el('p', { text: 'There is no admin screen at \u201c#' + path + '\u201d, or it is not available to your account.' }),
			el('p', {}, el('a', { href: '#' + first.hash, text: 'Go to ' + first.label }))
		]);
	}
	A.notFound = notFound;

	// notAllowed is the screen for something this role may not do.
	A.notAllowed = function (view, what) {
		A.heading(view, 'Not available');
		const first = navItems()[0];
		A.append(view.main, [
			el('p', { text: 'Your account cannot ' + what + '.' }),
			el('p', {}, el('a', { href: '#' + first.hash, text: 'Go to ' + first.label }))
		]);
	};

	// The unsaved-changes guard: leaving a screen with unsaved changes asks
	// first; staying puts the old fragment back.
	let guarding = false;
	window.addEventListener('hashchange', async function () {
		if (guarding) {
			return;
		}
		if (A.isDirty() && window.location.hash !== current) {
			const target = window.location.hash;
			guarding = true;
			window.history.replaceState(null, '', current);
			guarding = false;
			const leave = await A.confirm('Leave without saving?', 'You have unsaved changes on this screen. If you leave now, they will be lost.', 'Leave', true);
			if (!leave) {
				return;
			}
			A.dirty = null;
			window.history.pushState(null, '', target);
		}
		A.route();
	});
	window.addEventListener('beforeunload', function (e) {
		if (A.isDirty()) {
			e.preventDefault();
			e.returnValue = '';
		}
	});

	// The skip link moves focus to the main region without touching the
	// fragment, which names the screen.
	document.querySelector('.skip-link').addEventListener('click', function (e) {
		e.preventDefault();
		main.focus();
	});

	// A menu link to the screen already shown opens it afresh (after the
	// same unsaved-changes question), as a link to any other screen would.
	navList.addEventListener('click', async function (e) {
		const a = e.target.closest('a');
		if (!a || a.getAttribute('href') !== window.location.hash) {
			return;
		}
		e.preventDefault();
		if (A.isDirty() && !(await A.confirm('Leave without saving?', 'You have unsaved changes on this screen. If you leave now, they will be lost.', 'Leave', true))) {
			return;
		}
		A.dirty = null;
		A.route();
	});

	document.getElementById('menu-toggle').addEventListener('click', function () {
		const open = document.body.classList.toggle('nav-open');
		this.setAttribute('aria-expanded', open ? 'true' : 'false');
		if (open) {
			const a = navList.querySelector('a');
			if (a) {
				a.focus();
			}
		}
	});

	api.on('error', function (err) {
		if (err.code === 'rest_cookie_invalid_nonce') {
			A.notice(statusBox, A.errorText(err), 'error');
		}
	});

	(api.loadPromise || api.init()).then(load).then(function () {
		buildNav();
		document.body.setAttribute('data-ready', 'true');
		A.route();
	}, function (err) {
		A.clear(main);
		main.appendChild(el('h1', { text: 'The admin could not start' }));
		main.appendChild(el('p', { 'class': 'notice error', role: 'alert', text: A.errorText(err) }));
	});
})(window, document);
