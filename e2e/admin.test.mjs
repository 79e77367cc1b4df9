// The admin's flows in a real browser, on a fresh site: signing in under a
// Content-Security-Policy, writing (visual editor, hierarchical and flat
// term pickers with add-new, featured image uploaded by drag and drop into
// the media grid), scheduling, preview, revisions, the unsaved-changes
// warning, trash/restore/delete and bulk actions, the media library,
// users with roles, application passwords and sessions, the terms
// screens, site settings (title and time zone, with the pages and dates
// that follow), an editor choosing the author among every author, comment
// moderation, errors shown where they happen,
// keyboard focus, phone width, and the nonce rules. Every screen visited
// is photographed into e2e/artifacts/flows/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { artifactsDir, launchBrowser, png, screenshot, startServer, Steps } from './harness.mjs';

describe('admin flows', () => {
	let server, browser, page, admin, appPass, parentCat, childFoo, topFoo, publishedId;
	let staleNonce, shot = 0;
	const cspViolations = [];
	const pageErrors = [];

	const api = (method, route, body) => server.api(method, route, { user: 'admin', pass: appPass, body });

	before(async () => {
		await rm(path.join(artifactsDir, 'flows'), { recursive: true, force: true });
		server = await startServer({ config: '[site]\ntitle = "Flows"\n' });
		admin = await server.createUser('admin');
		await server.createUser('writer', 'author');
		appPass = await server.appPassword('admin');
		parentCat = (await api('POST', 'categories', { name: 'Parent cat' })).body.id;
		childFoo = (await api('POST', 'categories', { name: 'Foo A', parent: parentCat })).body.id;
		topFoo = (await api('POST', 'categories', { name: 'Foo A', slug: 'foo-a-top' })).body.id;
		assert.ok(parentCat && childFoo && topFoo, 'categories made');
		for (let i = 1; i <= 22; i++) {
			const res = await api('POST', 'posts', { title: `Paging post ${i}`, content: 'x', status: 'publish' });
			assert.equal(res.status, 201, JSON.stringify(res.body));
		}
		browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
		page = await browser.context.newPage();
		page.setDefaultTimeout(10000);
		page.on('console', (m) => {
			if (/Content.Security.Policy/i.test(m.text())) {
				cspViolations.push(m.text());
			}
		});
		page.on('pageerror', (err) => pageErrors.push(err.message));
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	async function snap(name) {
		shot += 1;
		await screenshot(page, 'flows', `${String(shot).padStart(2, '0')}-${name}`);
	}

	// view waits for a screen with this heading, fully loaded.
	async function view(heading) {
		await page.waitForSelector('body[data-ready="true"]');
		await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
		await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"], main .loading, form#post-form:not([data-loaded])'), null, { timeout: 15000 });
	}

	// go opens an admin screen (afresh, also when it is the one shown).
	async function go(hash, heading) {
		const url = server.url + '/admin/' + hash;
		if (page.url().startsWith(server.url + '/admin/')) {
			await page.evaluate(() => document.getElementById('view-title')?.remove());
		}
		if (page.url() === url) {
			await page.evaluate(() => window.folioAdmin.route());
		} else {
			await page.goto(url);
		}
		await view(heading);
	}

	// result waits for the notice next to a button to say text.
	async function result(selector, text) {
		await page.locator(selector, { hasText: text }).waitFor({ timeout: 10000 });
	}

	// dropFile drops a file on the element as a browser drag and drop does.
	async function dropFile(selector, name, buffer, mime = 'image/png') {
		const dt = await page.evaluateHandle(({ name, b64, mime }) => {
			const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
			const data = new DataTransfer();
			data.items.add(new File([bytes], name, { type: mime }));
			return data;
		}, { name, b64: buffer.toString('base64'), mime });
		await page.dispatchEvent(selector, 'dragenter', { dataTransfer: dt });
		await page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
	}

	function write(route, nonce) {
		return page.evaluate(async ({ route, nonce }) => {
			const headers = { 'Content-Type': 'application/json' };
			if (nonce !== null) {
				headers['X-API-Nonce'] = nonce;
			}
			const res = await fetch('/api/svc/v2/' + route, { method: 'POST', headers, body: JSON.stringify({ title: 'Should not exist' }), credentials: 'same-origin' });
			const body = await res.json();
			return { status: res.status, code: body.code };
		}, { route, nonce });
	}

	test('visitors are sent to a styled sign-in form', async () => {
		await page.goto(server.url + '/admin/');
		assert.equal(new URL(page.url()).pathname, '/login');
		assert.equal(new URL(page.url()).searchParams.get('redirect_to'), '/admin/');
		await page.getByLabel('Password').waitFor();
		const styled = await page.evaluate(() => getComputedStyle(document.getElementById('loginform')).backgroundColor);
		assert.equal(styled, 'rgb(255, 255, 255)');
		await snap('sign-in');
	});

	test('sign in lands on the posts list, under a Content-Security-Policy with a nonce', async () => {
		await page.getByLabel('Username or email address').fill('admin');
		await page.getByLabel('Password').fill(admin.password);
		const [res] = await Promise.all([
			page.waitForResponse((r) => new URL(r.url()).pathname === '/admin/'),
			page.getByRole('button', { name: 'Sign in' }).click(),
		]);
		const csp = res.headers()['content-security-policy'];
		assert.match(csp, /script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
		await view('Posts');
		const s = await page.evaluate(() => window.folioApiSettings);
		assert.equal(s.root, server.url + '/api/');
		assert.match(s.nonce, /^[0-9a-f]{10}$/);
		staleNonce = s.nonce;
		assert.match(await page.locator('#who').textContent(), /Signed in as admin \(Administrator\)/);
		await snap('posts');
	});

	test('the posts list searches and pages', async () => {
		await page.getByLabel('Search posts').fill('Paging');
		await page.getByRole('button', { name: 'Filter' }).click();
		await page.waitForFunction(() => location.hash.includes('search=Paging'));
		await view('Posts');
		assert.equal(await page.locator('#posts-list tbody tr').count(), 20);
		assert.match(await page.locator('.page-count').textContent(), /22 items — page 1 of 2/);
		await page.getByRole('link', { name: /Next/ }).click();
		await page.waitForFunction(() => document.querySelectorAll('#posts-list tbody tr').length === 2);
		assert.match(await page.locator('.page-count').textContent(), /page 2 of 2/);
	});

	test('write and publish a post: visual editor, category tree with add-new, tags, featured image dropped into the media grid', async (t) => {
		const steps = new Steps(t.name, page);
		await steps.step('open a new post', async () => {
			await page.getByRole('link', { name: 'Add New Post' }).click();
			await view('Add New Post');
		});
		await steps.step('title and visual content', async () => {
			await page.getByLabel('Title').fill('Published from the admin');
			await page.locator('#content-visual').click();
			await page.keyboard.type('Hello from the ');
			await page.keyboard.press('Control+b');
			await page.keyboard.type('admin');
			await page.keyboard.press('Control+b');
			await page.keyboard.type(' page.');
			await page.getByLabel('Excerpt').fill('A short summary.');
		});
		await steps.step('the category tree tells the two Foo A apart and adds a new one', async () => {
			assert.equal(await page.locator(`#term-categories-${childFoo}`).count(), 1);
			await page.getByLabel('Foo A, in Parent cat').check();
			await page.getByLabel('Search categories').fill('foo');
			assert.equal(await page.locator('#categories-tree li:visible').count(), 3, 'two Foo A and the parent');
			await page.getByLabel('Search categories').fill('');
			await page.getByRole('button', { name: '+ Add new category' }).click();
			await page.getByLabel('New category name').fill('Fresh child');
			await page.getByLabel('Parent category').selectOption({ label: 'Parent cat' });
			await page.getByRole('button', { name: 'Add new category', exact: true }).click();
			await page.locator('#categories-picker .notice', { hasText: 'added and selected' }).waitFor();
			assert.match(await page.locator('#categories-picker .picked').textContent(), /Foo A, Fresh child|Fresh child, Foo A/);
		});
		await steps.step('tags: new ones are created', async () => {
			await page.getByLabel('Add tags').fill('alpha, beta');
			await page.getByLabel('Add tags').press('Enter');
			await page.locator('#tags-picker .token', { hasText: 'beta' }).waitFor();
		});
		await steps.step('featured image: dropped into the picker, uploaded with progress, chosen from the grid', async () => {
			await page.getByRole('button', { name: 'Set featured image' }).click();
			await page.locator('dialog #picker-drop').waitFor();
			await dropFile('dialog #picker-drop', 'featured.png', png(320, 200));
			await page.locator('dialog .upload.done', { hasText: 'featured.png' }).waitFor();
			assert.equal(await page.locator('dialog .upload.done progress').getAttribute('value'), '100');
			await page.locator('dialog .tile[aria-pressed="true"]').waitFor();
			await snap('media-picker');
			await page.locator('dialog .modal-actions .primary').click();
			await page.locator('#featured-image img').waitFor();
		});
		await steps.step('publish: the result shows next to the button', async () => {
			await page.getByLabel('Status', { exact: true }).selectOption('publish');
			assert.equal(await page.locator('#save-post').textContent(), 'Publish');
			await snap('editor-filled');
			await page.locator('#save-post').click();
			await result('#save-result', 'Post published.');
			await view('Edit Post');
			assert.ok(await page.locator('#save-result').isVisible());
		});
		const id = parseInt(/posts\/(\d+)/.exec(page.url())[1], 10);
		publishedId = id;
		const res = await api('GET', `posts/${id}?context=edit`);
		assert.equal(res.body.title.raw, 'Published from the admin');
		assert.equal(res.body.status, 'publish');
		assert.match(res.body.content.raw, /Hello from the <b>admin<\/b> page\./);
		assert.equal(res.body.excerpt.raw, 'A short summary.');
		const fresh = (await api('GET', 'categories?search=Fresh')).body[0];
		assert.equal(fresh.parent, parentCat);
		assert.deepEqual(res.body.categories.sort(), [childFoo, fresh.id].sort());
		const tags = await api('GET', `tags?include=${res.body.tags.join(',')}`);
		assert.deepEqual(tags.body.map((x) => x.name).sort(), ['alpha', 'beta']);
		const media = await api('GET', `media/${res.body.featured_media}`);
		assert.equal(media.body.mime_type, 'image/png');
		await snap('editor-published');
	});

	test('preview shows the unsaved title and content', async () => {
		await page.getByLabel('Title').fill('Previewed title');
		await page.getByRole('button', { name: 'Preview' }).click();
		const frame = page.frameLocator('dialog iframe.preview-frame');
		await frame.locator('h1', { hasText: 'Previewed title' }).waitFor();
		await frame.locator('b', { hasText: 'admin' }).waitFor();
		await snap('preview');
		await page.getByRole('button', { name: 'Close preview' }).click();
	});

	test('leaving with unsaved changes asks first', async () => {
		await page.locator('#nav-list a', { hasText: 'Media' }).click();
		const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
		await dialog.waitFor();
		await snap('unsaved-warning');
		await dialog.getByRole('button', { name: 'Cancel' }).click();
		assert.equal(await page.getByLabel('Title').inputValue(), 'Previewed title');
		assert.match(page.url(), /#posts\/\d+$/);
		await page.locator('#nav-list a', { hasText: 'Media' }).click();
		await page.getByRole('dialog', { name: 'Leave without saving?' }).getByRole('button', { name: 'Leave' }).click();
		await view('Media library');
	});

	test('revisions: restore an earlier title', async () => {
		await go(`#posts/${publishedId}`, 'Edit Post');
		for (const title of ['Second title', 'Third title']) {
			await page.getByLabel('Title').fill(title);
			await page.locator('#save-post').click();
			await result('#save-result', 'Post updated.');
			await view('Edit Post');
		}
		await page.locator('#revisions-panel summary').click();
		const rev = page.locator('#revisions li', { hasText: '“Second title”' }).first();
		await rev.waitFor();
		await snap('revisions');
		await rev.getByRole('button', { name: /^Restore/ }).click();
		await result('#save-result', 'Restored the revision');
		assert.equal((await api('GET', `posts/${publishedId}?context=edit`)).body.title.raw, 'Second title');
		assert.equal(await page.getByLabel('Title').inputValue(), 'Second title');
	});

	test('schedule a post for a future date', async () => {
		await go('#posts/new', 'Add New Post');
		await page.getByLabel('Title').fill('Coming soon');
		await page.getByLabel('Status', { exact: true }).selectOption('future');
		await page.locator('#save-post').click();
		await result('#save-result', 'choose a publish date in the future');
		await page.getByLabel('Publish date').fill('2031-05-04T09:30:15');
		assert.equal(await page.locator('#save-post').textContent(), 'Schedule');
		await page.locator('#save-post').click();
		await result('#save-result', 'Post scheduled for 4 May 2031 at 09:30.');
		const id = parseInt(/posts\/(\d+)/.exec(page.url())[1], 10);
		const got = (await api('GET', `posts/${id}?context=edit`)).body;
		assert.equal(got.status, 'future');
		assert.equal(got.date, '2031-05-04T09:30:15');
		// Saved again unchanged it stays scheduled, on the same date.
		await view('Edit Post');
		await page.locator('#save-post').click();
		await result('#save-result', 'No changes to save.');
		const again = (await api('GET', `posts/${id}?context=edit`)).body;
		assert.deepEqual(again, got);
	});

	test('trash, restore and delete from the list', async () => {
		const made = await api('POST', 'posts', { title: 'Short-lived', status: 'publish' });
		await go('#posts?search=Short-lived', 'Posts');
		await page.getByRole('button', { name: 'Trash “Short-lived”' }).click();
		await result('#screen-notice', '“Short-lived” moved to the Trash.');
		assert.equal((await api('GET', `posts/${made.body.id}?context=edit`)).body.status, 'trash');
		await go('#posts?status=trash', 'Posts');
		await snap('trash');
		await page.getByRole('button', { name: 'Restore “Short-lived”' }).click();
		await result('#screen-notice', 'restored as a draft');
		assert.equal((await api('GET', `posts/${made.body.id}?context=edit`)).body.status, 'draft');
		await api('DELETE', `posts/${made.body.id}`);
		await go('#posts?status=trash', 'Posts');
		await page.getByRole('button', { name: 'Delete permanently “Short-lived”' }).click();
		await page.getByRole('dialog', { name: 'Delete permanently?' }).getByRole('button', { name: 'Delete permanently' }).click();
		await result('#screen-notice', 'deleted permanently');
		assert.equal((await api('GET', `posts/${made.body.id}?context=edit`)).status, 404);
	});

	test('bulk actions: publish, trash, delete permanently', async () => {
		const ids = [];
		for (const n of [1, 2, 3]) {
			ids.push((await api('POST', 'posts', { title: `Bulk draft ${n}`, status: 'draft' })).body.id);
		}
		await go('#posts?status=draft&search=Bulk', 'Posts');
		await page.locator('#select-all').check();
		await page.locator('#bulk-action').selectOption('publish');
		await page.locator('#bulk-apply').click();
		await result('#screen-notice', '3 items published.');
		for (const id of ids) {
			assert.equal((await api('GET', `posts/${id}?context=edit`)).body.status, 'publish');
		}
		await go('#posts?search=Bulk+draft', 'Posts');
		await page.locator('#select-all').check();
		await page.locator('#bulk-action').selectOption('trash');
		await page.locator('#bulk-apply').click();
		await result('#screen-notice', '3 items moved to the Trash.');
		await go('#posts?status=trash&search=Bulk', 'Posts');
		await page.locator('#bulk-apply').click();
		await result('#bulk-notice', 'Choose a bulk action first.');
		await page.locator('#select-all').check();
		await page.locator('#bulk-action').selectOption('delete');
		await page.locator('#bulk-apply').click();
		await page.getByRole('dialog', { name: 'Delete permanently?' }).getByRole('button', { name: 'Delete permanently' }).click();
		await result('#screen-notice', '3 items deleted permanently.');
		for (const id of ids) {
			assert.equal((await api('GET', `posts/${id}?context=edit`)).status, 404);
		}
	});

	test('media library: drop to upload with progress, edit details, delete', async () => {
		await go('#media', 'Media library');
		await dropFile('#media-drop', 'library-drop.png', png(200, 150));
		await page.locator('.upload.done', { hasText: 'library-drop.png' }).waitFor();
		assert.equal(await page.locator('.upload.done progress').first().getAttribute('value'), '100');
		const tile = page.locator('#media-grid a.tile', { hasText: 'library-drop' });
		await tile.waitFor();
		await snap('media-library');
		await tile.click();
		await view('Edit media');
		await page.getByLabel('Alternative text').fill('A gradient');
		await page.getByLabel('Caption').fill('Made by the tests');
		await page.getByLabel('Description').fill('A generated PNG.');
		await page.getByRole('button', { name: 'Save' }).click();
		await result('#media-result', 'Media saved.');
		await snap('media-details');
		const id = parseInt(/media\/(\d+)/.exec(page.url())[1], 10);
		const got = (await api('GET', `media/${id}?context=edit`)).body;
		assert.equal(got.alt_text, 'A gradient');
		// Strings under the spec's names ({raw, rendered} in WordPress mode).
		assert.equal(got.caption.raw ?? got.caption, 'Made by the tests');
		assert.equal(got.description.raw ?? got.description, 'A generated PNG.');
		await page.getByRole('button', { name: 'Delete permanently' }).click();
		await page.getByRole('dialog', { name: 'Delete permanently?' }).getByRole('button', { name: 'Delete permanently' }).click();
		await view('Media library');
		await result('#screen-notice', 'deleted permanently');
		assert.equal((await api('GET', `media/${id}`)).status, 404);
	});

	test('users: add with a generated password, change the role, application passwords', async () => {
		await go('#users', 'Users');
		await page.getByRole('link', { name: 'Add new user' }).click();
		await view('Add new user');
		await page.getByLabel('Username (required)').fill('newbie');
		await page.getByLabel('Email (required)').fill('newbie@example.test');
		await page.getByRole('button', { name: 'Generate password' }).click();
		assert.equal((await page.getByLabel('Password (required)').inputValue()).length, 24);
		await page.getByLabel('Role').selectOption('author');
		await page.getByRole('button', { name: 'Add new user' }).click();
		await view('Edit user “newbie”');
		await result('#screen-notice', 'User “newbie” added.');
		const id = parseInt(/users\/(\d+)/.exec(page.url())[1], 10);
		assert.deepEqual((await api('GET', `users/${id}?context=edit`)).body.roles, ['author']);
		await page.getByLabel('Role').selectOption('editor');
		await page.getByLabel('First name').fill('New');
		await page.getByRole('button', { name: 'Update user' }).click();
		await result('#user-result', 'User updated.');
		const u = (await api('GET', `users/${id}?context=edit`)).body;
		assert.deepEqual(u.roles, ['editor']);
		assert.equal(u.first_name, 'New');
		await page.getByLabel('New application password name').fill('Phone app');
		await page.getByRole('button', { name: 'Add application password' }).click();
		await result('#app-result', 'Application password added.');
		const secret = (await page.locator('#app-secret').textContent()).trim();
		assert.ok(secret.length >= 16);
		const basic = await server.api('GET', 'users/me', { user: 'newbie', pass: secret });
		assert.equal(basic.status, 200);
		await page.locator('#app-passwords td', { hasText: 'Phone app' }).waitFor();
		await snap('user-edit');
		await page.getByRole('button', { name: 'Revoke “Phone app”' }).click();
		await page.getByRole('dialog', { name: 'Revoke application password?' }).getByRole('button', { name: 'Revoke' }).click();
		await result('#app-result', 'revoked');
		assert.equal((await server.api('GET', 'users/me', { user: 'newbie', pass: secret })).status, 401);
	});

	test('profile: the browser session is listed', async () => {
		await go('#profile', 'Profile');
		await page.locator('#sessions li', { hasText: 'This browser' }).waitFor();
		await snap('profile');
	});

	test('terms screens: add with a parent, edit, delete; an error shows where it happened', async () => {
		await go('#categories', 'Categories');
		await page.getByLabel('Name', { exact: true }).fill('Grandchild');
		await page.getByLabel('Parent category').selectOption({ label: '— Foo A' });
		await page.getByRole('button', { name: 'Add new category' }).click();
		await result('#screen-notice', '“Grandchild” added.');
		const gc = (await api('GET', 'categories?search=Grandchild')).body[0];
		assert.equal(gc.parent, childFoo);
		const row = page.locator(`#terms-list tr[data-id="${gc.id}"]`);
		assert.match(await row.textContent(), /— — Grandchild/);
		await snap('categories');
		// The same name under the same parent: the API's error, in words,
		// next to the button.
		await page.getByLabel('Name', { exact: true }).fill('Grandchild');
		await page.getByLabel('Parent category').selectOption({ label: '— Foo A' });
		await page.getByRole('button', { name: 'Add new category' }).click();
		await page.locator('.add-term-panel .notice.error').waitFor();
		assert.match(await page.locator('.add-term-panel .notice.error').textContent(), /exists/i);
		await page.getByLabel('Name', { exact: true }).fill('');
		await page.getByLabel('Parent category').selectOption('0');
		await row.getByRole('link', { name: 'Edit “Grandchild”' }).click();
		await view('Edit category');
		await page.getByLabel('Name', { exact: true }).fill('Grandchild renamed');
		await page.getByRole('button', { name: 'Update' }).click();
		await result('#screen-notice', '“Grandchild renamed” updated.');
		assert.equal((await api('GET', `categories/${gc.id}`)).body.name, 'Grandchild renamed');
		await page.getByRole('button', { name: 'Delete “Grandchild renamed”' }).click();
		await page.getByRole('dialog', { name: 'Delete category?' }).getByRole('button', { name: 'Delete' }).click();
		await result('#screen-notice', 'deleted');
		assert.equal((await api('GET', `categories/${gc.id}`)).status, 404);
		await go('#tags', 'Tags');
		await page.locator('#terms-list td', { hasText: 'alpha' }).first().waitFor();
	});

	test('settings: change the title and the time zone; pages and dates follow', async () => {
		await go('#settings', 'Settings');
		assert.equal(await page.getByLabel('Site title').inputValue(), 'Flows');
		assert.equal(await page.getByLabel('Time zone').inputValue(), 'UTC');
		assert.equal(await page.getByLabel('Let visitors comment without signing in').isChecked(), true);
		await snap('settings');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await result('#settings-result', 'No changes to save.');
		// An unknown zone is refused, with the server's reason next to the
		// field and the result next to the button; nothing is saved.
		await page.getByLabel('Site title').fill('Not saved');
		await page.getByLabel('Time zone').fill('Mars/Olympus');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await page.locator('#setting-timezone-error', { hasText: 'not a known time zone' }).waitFor();
		assert.equal(await page.getByLabel('Time zone').getAttribute('aria-invalid'), 'true');
		assert.equal(await page.evaluate(() => document.activeElement.id), 'setting-timezone');
		await result('#settings-result', 'rest_invalid_param');
		await snap('settings-invalid');
		assert.equal((await api('GET', 'settings')).body.title, 'Flows');
		// Valid values are saved, and the error goes.
		await page.getByLabel('Site title').fill('Flows in Tokyo');
		await page.getByLabel('Time zone').fill('Asia/Tokyo');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await result('#settings-result', 'Settings saved.');
		assert.equal(await page.locator('.field-error').count(), 0);
		assert.equal(await page.getByLabel('Time zone').getAttribute('aria-invalid'), null);
		const saved = (await api('GET', 'settings')).body;
		assert.equal(saved.title, 'Flows in Tokyo');
		assert.equal(saved.timezone, 'Asia/Tokyo');
		// The header and the window title follow at once, the site's pages
		// on their next request.
		assert.equal(await page.locator('header .site a').textContent(), 'Flows in Tokyo');
		assert.equal(await page.title(), 'Settings \u2039 Flows in Tokyo');
		assert.match(await (await fetch(server.url + '/')).text(), /<title>Flows in Tokyo<\/title>/);
		await page.reload();
		await view('Settings');
		assert.equal(await page.getByLabel('Time zone').inputValue(), 'Asia/Tokyo');
		assert.equal(await page.title(), 'Settings \u2039 Flows in Tokyo');
		// A post scheduled in the editor for 09:30 is at 09:30 in Tokyo
		// (00:30 UTC).
		await go('#posts/new', 'Add New Post');
		await page.getByLabel('Title').fill('Tokyo morning');
		await page.getByLabel('Status', { exact: true }).selectOption('future');
		await page.getByLabel('Publish date').fill('2031-06-01T09:30:00');
		await page.locator('#save-post').click();
		await result('#save-result', 'Post scheduled for 1 June 2031 at 09:30.');
		const id = parseInt(/posts\/(\d+)/.exec(page.url())[1], 10);
		const got = (await api('GET', `posts/${id}?context=edit`)).body;
		assert.equal(got.date, '2031-06-01T09:30:00');
		assert.equal(got.date_gmt, '2031-06-01T00:30:00');
		// A post written now is dated in Tokyo time, and listed so.
		const made = (await api('POST', 'posts', { title: 'Written in Tokyo', status: 'publish', date_gmt: '2030-01-02T20:15:00' })).body;
		assert.equal(made.date, '2030-01-03T05:15:00');
		await go('#posts?search=Written+in+Tokyo', 'Posts');
		await page.locator('#posts-list tr', { hasText: 'Written in Tokyo' }).filter({ hasText: '3 January 2030 at 05:15' }).waitFor();
		await snap('posts-in-tokyo-time');
		// Back to the file's values (null) for the tests that follow.
		assert.equal((await api('POST', 'settings', { title: null, timezone: null })).status, 200);
	});

	test('approve a held comment', async () => {
		const made = await api('POST', 'comments', { post: publishedId, content: 'Please approve me', author_name: 'Visitor', author_email: 'v@example.test' });
		assert.equal(made.status, 201, JSON.stringify(made.body));
		if (made.body.status !== 'hold') {
			await api('POST', `comments/${made.body.id}`, { status: 'hold' });
		}
		await go('#comments', 'Comments');
		await page.locator(`#comments-list li[data-id="${made.body.id}"]`).waitFor();
		await snap('comments');
		await page.getByRole('button', { name: 'Approve the comment by Visitor' }).click();
		await result('#screen-notice', 'Comment approved.');
		assert.equal((await api('GET', `comments/${made.body.id}?context=edit`)).body.status, 'approved');
	});

	test('keyboard: the menu is reachable and focus moves to each new screen', async () => {
		await go('#posts', 'Posts');
		// The skip link comes first and takes focus to the main region,
		// leaving the screen as it is.
		assert.equal(await page.evaluate(() => document.querySelector('a[href], button, input').className), 'skip-link');
		await page.locator('.skip-link').focus();
		assert.ok(await page.locator('.skip-link').isVisible());
		await page.keyboard.press('Enter');
		assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
		assert.match(page.url(), /#posts$/);
		await page.locator('#nav-list a', { hasText: 'Comments' }).focus();
		await page.keyboard.press('Enter');
		await view('Comments');
		assert.equal(await page.evaluate(() => document.activeElement.id), 'view-title');
		await page.keyboard.press('Tab');
		assert.equal(await page.evaluate(() => document.activeElement.closest('main') !== null), true);
	});

	test('an unknown screen says it is not found', async () => {
		await go('#users-of-mars', 'Not found');
		await page.getByRole('link', { name: 'Go to Posts' }).waitFor();
	});

	test('phone width: the menu folds away and screens fit', async () => {
		await page.setViewportSize({ width: 390, height: 844 });
		try {
			await go('#posts', 'Posts');
			assert.equal(await page.locator('#admin-nav').isVisible(), false);
			await page.getByRole('button', { name: 'Menu' }).click();
			assert.equal(await page.locator('#admin-nav').isVisible(), true);
			await snap('phone-menu');
			await page.locator('#nav-list a', { hasText: 'Pages' }).click();
			await view('Pages');
			assert.equal(await page.locator('#admin-nav').isVisible(), false);
			for (const [hash, heading] of [['#posts', 'Posts'], ['#posts/new', 'Add New Post'], ['#media', 'Media library'], ['#users', 'Users'], ['#categories', 'Categories']]) {
				await go(hash, heading);
				const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
				assert.ok(overflow <= 1, `${hash} is ${overflow}px wider than the screen`);
				await snap('phone-' + heading);
			}
		} finally {
			await page.setViewportSize({ width: 1280, height: 900 });
		}
	});

	test('an author sees only what authors may do', async () => {
		await browser.context.clearCookies();
		await page.goto(server.url + '/login');
		await page.getByLabel('Username or email address').fill('writer');
		await page.getByLabel('Password').fill(admin.password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await view('Posts');
		assert.deepEqual(await page.$$eval('#nav-list a', (as) => as.map((a) => a.textContent)), ['Posts', 'Media', 'Profile']);
		// Others' posts have no edit or trash links.
		const row = page.locator('#posts-list tr', { hasText: 'Paging post 1' }).first();
		assert.equal(await row.getByRole('link', { name: /^Edit/ }).count(), 0);
		assert.equal(await row.getByRole('button', { name: /^Trash/ }).count(), 0);
		await go('#users', 'Not available');
		await browser.context.clearCookies();
		await page.goto(server.url + '/login');
		await page.getByLabel('Username or email address').fill('admin');
		await page.getByLabel('Password').fill(admin.password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await view('Posts');
	});

	test('an editor gives a post to another author, chosen from every author of the site', async () => {
		// A contributor who has published nothing is an author all the
		// same (who=authors), and is offered.
		const helper = await server.createUser('helper', 'contributor');
		await server.createUser('chief', 'editor');
		const made = (await api('POST', 'posts', { title: 'Needs an author', status: 'draft' })).body;
		await browser.context.clearCookies();
		await page.goto(server.url + '/login');
		await page.getByLabel('Username or email address').fill('chief');
		await page.getByLabel('Password').fill(admin.password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await view('Posts');
		await go(`#posts/${made.id}`, 'Edit Post');
		await page.locator('#author-panel summary').click();
		await page.locator('#post-author[data-loaded="true"]').waitFor();
		const offered = await page.$$eval('#post-author option', (os) => os.map((o) => o.textContent));
		for (const name of ['admin', 'chief', 'helper', 'writer']) {
			assert.ok(offered.includes(name), `${name} is not offered: ${offered.join(', ')}`);
		}
		await page.getByLabel('Author', { exact: true }).selectOption(String(helper.id));
		await snap('editor-picks-author');
		await page.locator('#save-post').click();
		await result('#save-result', 'Draft saved.');
		assert.equal((await api('GET', `posts/${made.id}?context=edit`)).body.author, helper.id);
		await browser.context.clearCookies();
		await page.goto(server.url + '/login');
		await page.getByLabel('Username or email address').fill('admin');
		await page.getByLabel('Password').fill(admin.password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await view('Posts');
	});

	test('writes with a missing or an invalid nonce fail', async () => {
		assert.deepEqual(await write('posts', null), { status: 401, code: 'rest_cannot_create' });
		assert.deepEqual(await write('posts', '0123456789'), { status: 403, code: 'rest_cookie_invalid_nonce' });
		assert.deepEqual(await write('posts', ''), { status: 403, code: 'rest_cookie_invalid_nonce' });
		const r = await page.evaluate(() => new Promise((resolve) => {
			const api = window.folio.api;
			const good = api.nonce();
			api.settings.nonce = 'abcdef0123';
			new api.models.Post({ title: 'Should not exist' }).save().then(
				() => { api.settings.nonce = good; resolve(null); },
				(xhr) => { api.settings.nonce = good; resolve(api.utils.errorOf(xhr)); });
		}));
		assert.equal(r.status, 403);
		assert.equal(r.code, 'rest_cookie_invalid_nonce');
		const res = await api('GET', 'posts?search=Should+not+exist&status=any');
		assert.equal(res.body.length, 0);
	});

	test('sign out ends the session and its nonce', async () => {
		await go('#posts', 'Posts');
		await page.getByRole('button', { name: 'Sign out' }).click();
		await page.waitForURL(/\/login\?loggedout=true/);
		await page.getByText('You are now signed out.').waitFor();
		await page.goto(server.url + '/admin/');
		assert.equal(new URL(page.url()).pathname, '/login');
		assert.deepEqual(await write('posts', staleNonce), { status: 403, code: 'rest_cookie_invalid_nonce' });
	});

	test('no script or style was refused by the Content-Security-Policy, and no script failed', () => {
		assert.deepEqual(cspViolations, []);
		assert.deepEqual(pageErrors, []);
	});
});
