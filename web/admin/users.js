/*
 * Folio admin, people: the users list (#users) with role tabs, search and
 * paging; adding (#users/new) and editing (#users/<id>) a user with role
 * and password; deleting with reassignment; and the signed-in user's
 * profile (#profile). Both edit screens manage application passwords and
 * browser sessions.
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const api = A.api;
	const el = A.el;
	const PER_PAGE = 20;
	const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];

	A.screen({
		match: (path) => (path === 'users' ? {} : null),
		render: (args, q, view) => list(q, view)
	});
	A.screen({
		match: (path) => {
			const m = /^users\/(new|\d+)$/.exec(path);
			return m ? { id: m[1] === 'new' ? null : parseInt(m[1], 10) } : null;
		},
		render: (args, q, view) => (args.id !== null && args.id === A.me.id ? A.navigate('#profile', true) : edit(args.id, view))
	});
	A.screen({
		match: (path) => (path === 'profile' ? {} : null),
		render: (args, q, view) => edit(A.me.id, view, true)
	});

	async function list(q, view) {
		if (!A.can('list_users')) {
			A.notAllowed(view, 'see the list of users');
			return;
		}
		const role = ROLES.indexOf(q.role) >= 0 ? q.role : '';
		const page = Math.max(1, parseInt(q.page, 10) || 1);
		const search = q.search || '';
		const href = (over) => '#users' + A.query(Object.assign({ role: role, search: search, page: '' }, over));
		A.heading(view, 'Users', A.can('create_users') ? el('a', { href: '#users/new', 'class': 'button', id: 'add-user', text: 'Add new user' }) : null);
		const m = view.main;
		const tabs = el('ul', { 'class': 'tabs', id: 'role-tabs' });
		m.appendChild(el('nav', { 'aria-label': 'Filter by role' }, tabs));
		[''].concat(ROLES).forEach((r) => {
			const count = el('span', { 'class': 'count' });
			const li = el('li', {}, el('a', { href: href({ role: r, search: '' }), 'aria-current': r === role ? 'page' : null }, r ? A.roleLabel(r) : 'All', ' ', count));
			tabs.appendChild(li);
			A.total('users', r ? { roles: r, context: 'edit' } : { context: 'edit' }).then((n) => {
				count.textContent = '(' + n + ')';
				if (!n && r && r !== role) {
					li.hidden = true;
				}
			}, () => {});
		});
		const searchInput = el('input', { type: 'search', value: search });
		const form = el('form', { 'class': 'filters', role: 'search' }, A.field('Search users', searchInput), el('button', { type: 'submit', 'class': 'button secondary', text: 'Search' }));
		form.addEventListener('submit', (e) => {
			e.preventDefault();
			A.navigate(href({ search: searchInput.value }));
		});
		m.appendChild(form);
		const region = el('div', { id: 'users-list', 'aria-busy': 'true' }, el('p', { 'class': 'loading', text: 'Loading\u2026' }));
		m.appendChild(region);
		const users = new (A.collectionClass('users'))();
		const data = { context: 'edit', per_page: PER_PAGE, page: page, orderby: 'name' };
		if (role) {
			data.roles = role;
		}
		if (search) {
			data.search = search;
		}
		try {
			await users.fetch({ data: data });
		} catch (err) {
			if (view.alive()) {
				region.setAttribute('aria-busy', 'false');
				A.clear(region).appendChild(el('p', { 'class': 'notice error', role: 'alert', text: 'The users could not be loaded: ' + A.errorText(err) }));
			}
			return;
		}
		if (!view.alive()) {
			return;
		}
		region.setAttribute('aria-busy', 'false');
		A.clear(region);
		if (!users.length) {
			region.appendChild(el('p', { 'class': 'empty', text: 'No users found.' }));
			return;
		}
		region.appendChild(el('div', { 'class': 'table-wrap' }, el('table', { 'class': 'items users' },
			el('caption', { 'class': 'screen-reader-text', text: 'Users' }),
			el('thead', {}, el('tr', {},
				el('th', { scope: 'col', text: 'Username' }),
				el('th', { scope: 'col', text: 'Name' }),
				el('th', { scope: 'col', text: 'Email' }),
				el('th', { scope: 'col', text: 'Role' }),
				el('th', { scope: 'col', 'class': 'col-date', text: 'Registered' }))),
			el('tbody', {}, users.map((u) => {
				const x = u.toJSON();
				return el('tr', { 'data-id': x.id },
					el('td', {}, el('a', { href: x.id === A.me.id ? '#profile' : '#users/' + x.id, 'class': 'row-title', text: x.username || x.slug })),
					el('td', { text: x.name || '' }),
					el('td', {}, x.email ? el('a', { href: 'mailto:' + x.email, text: x.email }) : ''),
					el('td', { text: (x.roles || []).map(A.roleLabel).join(', ') || 'No role' }),
					el('td', { 'class': 'col-date', text: A.formatDate(x.registered_date) }));
			})))));
		region.appendChild(A.pager(page, users.state.totalPages, users.state.totalObjects, (n) => href({ page: n }), ['user', 'users']));
	}

	// randomPassword makes a 24-character password from the browser's
	// cryptographic random source.
	function randomPassword() {
		const chars = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!@#%^*-_=+';
		const bytes = new Uint8Array(24);
		window.crypto.getRandomValues(bytes);
		return Array.from(bytes, (b) => chars[b % chars.length]).join('');
	}

	async function edit(id, view, isProfile) {
		const isNew = id === null;
		if (isNew ? !A.can('create_users') : (!isProfile && !A.can('edit_users'))) {
			A.notAllowed(view, isNew ? 'add users' : 'edit other users');
			return;
		}
		const Model = A.modelClass('users');
		const user = isNew ? new Model() : new Model({ id: id });
		if (!isNew) {
			try {
				await user.fetch({ data: { context: 'edit' } });
			} catch (err) {
				if (!view.alive()) {
					return;
				}
				if (A.errorOf(err).status === 404) {
					A.notFound(view, 'users/' + id);
					return;
				}
				A.heading(view, 'Edit user');
				A.notice(view.notice, A.errorText(err), 'error');
				return;
			}
			if (!view.alive()) {
				return;
			}
		}
		const u = user.toJSON();
		A.heading(view, isProfile ? 'Profile' : isNew ? 'Add new user' : 'Edit user \u201c' + (u.username || u.slug) + '\u201d',
			isProfile ? null : el('a', { href: '#users', 'class': 'button secondary', text: '\u2190 All users' }));
		const m = view.main;
		const f = {};
		const text = (name, type, value, extra) => {
			f[name] = el('input', Object.assign({ type: type || 'text', name: name, id: 'user-' + name, value: value || '' }, extra || {}));
			return f[name];
		};
		const canRole = !isProfile && A.can('promote_users');
		const roleSelect = canRole ? el('select', { id: 'user-role', name: 'role' },
			ROLES.map((r) => el('option', { value: r, selected: (u.roles || [])[0] ? u.roles[0] === r : r === 'subscriber', text: A.roleLabel(r) })),
			(u.roles || [])[0] && ROLES.indexOf(u.roles[0]) < 0 ? el('option', { value: u.roles[0], selected: true, text: A.roleLabel(u.roles[0]) }) : null) : null;
		f.description = el('textarea', { id: 'user-description', name: 'description', rows: 4 });
		f.description.value = u.description || '';
		const pass = text('password', 'text', '', { autocomplete: 'new-password', spellcheck: 'false' });
		const gen = el('button', { type: 'button', 'class': 'button secondary small', id: 'generate-password', text: 'Generate password' });
		gen.addEventListener('click', () => {
			pass.value = randomPassword();
			pass.dispatchEvent(new window.Event('input', { bubbles: true }));
			pass.focus();
			pass.select();
		});
		const save = el('button', { type: 'submit', 'class': 'button primary', id: 'save-user', text: isNew ? 'Add new user' : isProfile ? 'Update profile' : 'Update user' });
		const result = A.noticeBox({ id: 'user-result', 'class': 'notice save-result' });
		const form = el('form', { id: 'user-form', 'class': 'user-form', novalidate: true },
			el('fieldset', {}, el('legend', { text: 'Account' }),
				isNew ? A.field('Username (required)', text('username', 'text', '', { autocomplete: 'off', required: true })) : el('div', { 'class': 'field' }, el('span', { 'class': 'label', text: 'Username' }), el('p', { 'class': 'static', id: 'user-username', text: u.username || u.slug }), el('span', { 'class': 'hint', text: 'Usernames cannot be changed.' })),
				A.field('Email (required)', text('email', 'email', u.email, { required: true, autocomplete: 'email' })),
				roleSelect ? A.field('Role', roleSelect) : el('div', { 'class': 'field' }, el('span', { 'class': 'label', text: 'Role' }), el('p', { 'class': 'static', text: (u.roles || []).map(A.roleLabel).join(', ') || 'No role' })),
				el('div', { 'class': 'field' }, el('label', { 'for': pass.id, text: isNew ? 'Password (required)' : 'New password' }), el('div', { 'class': 'token-input' }, pass, gen),
					el('span', { 'class': 'hint', text: isNew ? 'Share it with the user in a safe way.' : 'Leave empty to keep the current password.' }))),
			el('fieldset', {}, el('legend', { text: 'Name' }),
				A.field('First name', text('first_name', 'text', u.first_name)),
				A.field('Last name', text('last_name', 'text', u.last_name)),
				A.field('Nickname', text('nickname', 'text', u.nickname)),
				A.field('Display name', text('name', 'text', u.name), 'Shown on the site as the author\u2019s name.')),
			el('fieldset', {}, el('legend', { text: 'About' }),
				A.field('Website', text('url', 'url', u.url)),
				A.field('Biographical info', f.description)),
			el('div', { 'class': 'actions' }, save, result));
		const initial = {};
		const read = () => {
			const v = {};
			Object.keys(f).forEach((k) => {
				v[k] = f[k].value;
			});
			if (roleSelect) {
				v.roles = [roleSelect.value];
			}
			return v;
		};
		Object.assign(initial, read());
		const changes = () => {
			const v = read();
			const out = {};
			Object.keys(v).forEach((k) => {
				if (k === 'roles') {
					if (v.roles[0] !== initial.roles[0]) {
						out.roles = v.roles;
					}
				} else if (v[k] !== initial[k] && !(k === 'password' && v[k] === '')) {
					out[k] = v[k];
				}
			});
			return out;
		};
		A.dirty = () => Object.keys(changes()).length > 0;
		form.addEventListener('submit', async (e) => {
			e.preventDefault();
			const patch = changes();
			if (isNew) {
				if (roleSelect) {
					patch.roles = [roleSelect.value];
				}
				const missing = ['username', 'email', 'password'].filter((k) => !f[k].value.trim());
				if (missing.length) {
					A.notice(result, 'Fill in the ' + missing.join(', ') + '.', 'error');
					f[missing[0]].focus();
					return;
				}
			} else if (!Object.keys(patch).length) {
				A.notice(result, 'No changes to save.', 'info');
				return;
			}
			A.notice(result, 'Saving\u2026', 'busy');
			try {
				await A.busy(save, user.save(patch, { patch: !isNew, wait: true }));
			} catch (err) {
				A.notice(result, A.errorText(err), 'error');
				return;
			}
			A.dirty = null;
			if (isNew) {
				A.flash('User \u201c' + user.get('username') + '\u201d added.');
				A.navigate('#users/' + user.id, true);
				return;
			}
			if (isProfile) {
				A.me = Object.assign(A.me, user.toJSON());
			}
			Object.assign(initial, read());
			pass.value = '';
			initial.password = '';
			A.notice(result, isProfile ? 'Profile updated.' : 'User updated.', 'ok');
		});
		m.appendChild(form);
		if (isNew) {
			return;
		}
		if (!isProfile && A.can('delete_users')) {
			m.appendChild(deleteSection(user));
		}
		m.appendChild(appPasswords(isProfile ? 'me' : id));
		m.appendChild(sessions(isProfile ? 'me' : id, isProfile));
	}

	function deleteSection(user) {
		const u = user.toJSON();
		const button = el('button', { type: 'button', 'class': 'button danger', id: 'delete-user', text: 'Delete user' });
		const result = A.noticeBox();
		button.addEventListener('click', async () => {
			const to = el('select', { id: 'reassign-to' }, el('option', { value: '', text: 'Loading users\u2026' }));
			A.fetchAll(A.collectionClass('users'), { context: 'edit', orderby: 'name' }).then((all) => {
				A.clear(to).appendChild(el('option', { value: '', text: 'Choose a user' }));
				all.each((x) => {
					if (x.id !== u.id) {
						to.appendChild(el('option', { value: x.id, selected: x.id === A.me.id, text: x.get('name') + ' (' + x.get('username') + ')' }));
					}
				});
			}, (err) => A.notice(result, A.errorText(err), 'error'));
			const ok = await A.dialog({
				title: 'Delete \u201c' + (u.username || u.slug) + '\u201d?',
				returnFocus: button,
				body: [el('p', { text: 'The account is removed for good. Its posts and pages go to the user you choose.' }), A.field('Give their content to', to)],
				buttons: [{ label: 'Cancel', value: false }, { label: 'Delete user', value: true, danger: true }]
			});
			if (!ok) {
				return;
			}
			if (!to.value) {
				A.notice(result, 'Choose who gets the user\u2019s content, then delete again.', 'error');
				return;
			}
			try {
				await A.busy(button, api.request({ method: 'DELETE', path: 'users/' + u.id, data: { force: true, reassign: parseInt(to.value, 10) } }));
			} catch (err) {
				A.notice(result, A.errorText(err), 'error');
				return;
			}
			A.dirty = null;
			A.flash('User \u201c' + (u.username || u.slug) + '\u201d deleted.');
			A.navigate('#users');
		});
		return el('section', { 'class': 'panel danger-zone', 'aria-labelledby': 'delete-heading' }, el('h2', { id: 'delete-heading', text: 'Delete user' }), el('div', { 'class': 'actions' }, button, result));
	}

	function appPasswords(userId) {
		const Coll = A.collectionClass('users/application-passwords');
		const section = el('section', { 'class': 'panel', id: 'app-passwords', 'aria-labelledby': 'app-heading' }, el('h2', { id: 'app-heading', text: 'Application passwords' }));
		if (!Coll) {
			section.appendChild(el('p', { text: 'This site does not offer application passwords.' }));
			return section;
		}
		section.appendChild(el('p', { 'class': 'hint', text: 'Programs that use the API sign in with the username and an application password, never the account password. Each can be revoked on its own.' }));
		const name = el('input', { type: 'text', id: 'app-name', autocomplete: 'off' });
		const add = el('button', { type: 'button', 'class': 'button secondary', id: 'add-app-password', text: 'Add application password' });
		const result = A.noticeBox({ id: 'app-result' });
		const fresh = el('div', { 'class': 'new-password', hidden: true, id: 'new-app-password' });
		const listBox = el('div', {});
		section.appendChild(el('div', { 'class': 'token-input' }, A.field('New application password name', name), add));
		section.appendChild(result);
		section.appendChild(fresh);
		section.appendChild(listBox);
		const coll = new Coll([], { params: { user_id: userId } });
		async function load() {
			try {
				await coll.fetch();
			} catch (err) {
				A.notice(result, A.errorText(err), 'error');
				return;
			}
			A.clear(listBox);
			if (!coll.length) {
				listBox.appendChild(el('p', { 'class': 'empty', text: 'No application passwords yet.' }));
				return;
			}
			listBox.appendChild(el('div', { 'class': 'table-wrap' }, el('table', { 'class': 'items' },
				el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'Name' }), el('th', { scope: 'col', text: 'Created' }), el('th', { scope: 'col', text: 'Last used' }), el('th', { scope: 'col', text: 'Last IP' }), el('td', {}))),
				el('tbody', {}, coll.map((p) => {
					const x = p.toJSON();
					const revoke = el('button', { type: 'button', 'class': 'button danger small', text: 'Revoke', 'aria-label': 'Revoke \u201c' + x.name + '\u201d' });
					revoke.addEventListener('click', async () => {
						if (!(await A.confirm('Revoke application password?', 'Programs that use \u201c' + x.name + '\u201d will no longer be able to sign in.', 'Revoke', true, revoke))) {
							return;
						}
						try {
							await A.busy(revoke, p.destroy({ wait: true }));
							A.notice(result, '\u201c' + x.name + '\u201d revoked.', 'ok');
							load();
						} catch (err) {
							A.notice(result, A.errorText(err), 'error');
						}
					});
					return el('tr', {}, el('td', { text: x.name }), el('td', { text: A.formatDate(x.created) }), el('td', { text: x.last_used ? A.formatDate(x.last_used) : 'Never' }), el('td', { text: x.last_ip || '\u2014' }), el('td', {}, revoke));
				})))));
		}
		add.addEventListener('click', async () => {
			if (!name.value.trim()) {
				A.notice(result, 'Type a name for the program that will use it.', 'error');
				name.focus();
				return;
			}
			const model = new coll.model({ name: name.value.trim() }, { params: { user_id: userId } });
			try {
				await A.busy(add, model.save(null, { wait: true }));
			} catch (err) {
				A.notice(result, A.errorText(err), 'error');
				return;
			}
			A.clear(fresh);
			fresh.hidden = false;
			A.append(fresh, [
				el('p', {}, 'Your new password for \u201c' + model.get('name') + '\u201d is:'),
				el('p', {}, el('code', { 'class': 'secret', id: 'app-secret', text: model.get('password') })),
				el('p', { 'class': 'hint', text: 'Copy it now: it will not be shown again.' })
			]);
			name.value = '';
			A.notice(result, 'Application password added.', 'ok');
			load();
		});
		load();
		return section;
	}

	function sessions(userId, isSelf) {
		const Coll = A.collectionClass('users/sessions');
		const section = el('section', { 'class': 'panel', id: 'sessions', 'aria-labelledby': 'sessions-heading' }, el('h2', { id: 'sessions-heading', text: 'Sessions' }));
		if (!Coll) {
			section.appendChild(el('p', { text: 'This site does not list sign-in sessions.' }));
			return section;
		}
		const result = A.noticeBox({ id: 'sessions-result' });
		const listBox = el('div', {});
		const others = el('button', { type: 'button', 'class': 'button secondary', id: 'end-other-sessions', text: isSelf ? 'Sign out everywhere else' : 'Sign out everywhere' });
		section.appendChild(el('p', { 'class': 'hint', text: 'Browsers where this account is signed in.' }));
		section.appendChild(listBox);
		section.appendChild(el('div', { 'class': 'actions' }, others, result));
		const coll = new Coll([], { params: { user_id: userId } });
		async function load() {
			try {
				await coll.fetch();
			} catch (err) {
				A.notice(result, A.errorText(err), 'error');
				return;
			}
			A.clear(listBox);
			if (!coll.length) {
				listBox.appendChild(el('p', { 'class': 'empty', text: 'No browser sessions.' }));
				others.hidden = true;
				return;
			}
			others.hidden = coll.length === 1 && coll.first().get('current');
			listBox.appendChild(el('ul', { 'class': 'sessions' }, coll.map((s) => {
				const x = s.toJSON();
				const end = x.current ? el('strong', { text: 'This browser' }) : el('button', { type: 'button', 'class': 'button danger small', text: 'Sign out', 'aria-label': 'Sign out the session started ' + A.formatDate(x.created) });
				if (!x.current) {
					end.addEventListener('click', async () => {
						try {
							await A.busy(end, s.destroy({ wait: true }));
							A.notice(result, 'Session ended.', 'ok');
							load();
						} catch (err) {
							A.notice(result, A.errorText(err), 'error');
						}
					});
				}
				return el('li', {}, el('span', { 'class': 'ua', text: x.user_agent || 'Unknown browser' }),
					el('span', { 'class': 'meta', text: ' \u2014 from ' + (x.ip || 'unknown address') + ', started ' + A.formatDate(x.created) + (x.last_seen ? ', last seen ' + A.formatDate(x.last_seen) : '') + ', ends ' + A.formatDate(x.expires) }), ' ', end);
			})));
		}
		others.addEventListener('click', async () => {
			try {
				const r = await A.busy(others, api.request({ method: 'DELETE', path: 'users/' + userId + '/sessions' }));
				A.notice(result, (r && r.count !== undefined ? r.count + ' ' : '') + 'session(s) ended.', 'ok');
				load();
			} catch (err) {
				A.notice(result, A.errorText(err), 'error');
			}
		});
		load();
		return section;
	}
})(window, document);
