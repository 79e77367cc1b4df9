// The admin against a real site: the theme unit test data imported with
// `folio import wxr`, a custom post type (books) and taxonomy (genres),
// and a user of every role. Each role tours every screen its menu offers
// (a screenshot of each goes to e2e/artifacts/tour/), sees no error and
// cannot reach what it may not do; then every imported post and page is
// opened in the editor and saved unchanged, which must send no write and
// leave every stored field as it was.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { artifactsDir, launchBrowser, repoRoot, screenshot, startServer } from './harness.mjs';
import { PASSWORD } from '../testkit/folio.mjs';

const THEME_DATA = path.join(repoRoot, 'testdata/wxr/theme-test-data/themeunittestdata.wordpress.xml');

const CONFIG = `[site]
title = "Theme Unit Test"

[[post_types]]
name = "book"
rest_base = "books"
hierarchical = false
supports = ["title", "editor", "author", "thumbnail", "excerpt", "comments", "revisions"]

[[taxonomies]]
name = "genre"
rest_base = "genres"
hierarchical = true
object_types = ["book", "post"]
`;

// What each role's menu offers, in order.
const MENUS = {
	administrator: ['Posts', 'Pages', 'Books', 'Media', 'Comments', 'Categories', 'Tags', 'Genres', 'Users', 'Settings', 'Profile'],
	editor: ['Posts', 'Pages', 'Books', 'Media', 'Comments', 'Categories', 'Tags', 'Genres', 'Profile'],
	author: ['Posts', 'Books', 'Media', 'Profile'],
	contributor: ['Posts', 'Books', 'Profile'],
	subscriber: ['Profile'],
};

describe('admin tour of a site with the theme unit test data', () => {
	let server, browser, page, appPass;
	const pageErrors = [];
	const api = (method, route, body) => server.api(method, route, { user: 'administrator', pass: appPass, body });

	before(async () => {
		await rm(path.join(artifactsDir, 'tour'), { recursive: true, force: true });
		server = await startServer({ config: CONFIG, importWXR: [THEME_DATA] });
		for (const role of Object.keys(MENUS)) {
			await server.createUser(role, role);
		}
		appPass = await server.appPassword('administrator');
		const genre = await api('POST', 'genres', { name: 'Fantasy' });
		assert.equal(genre.status, 201, JSON.stringify(genre.body));
		const book = await api('POST', 'books', { title: 'A Wizard of Earthsea', content: 'Ged learns magic.', status: 'publish', genres: [genre.body.id] });
		assert.equal(book.status, 201, JSON.stringify(book.body));
		browser = await launchBrowser({ offline: true, viewport: { width: 1280, height: 900 } });
		page = await browser.context.newPage();
		page.on('pageerror', (err) => pageErrors.push(err.message));
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	async function signIn(login) {
		await browser.context.clearCookies();
		await page.goto(server.url + '/login?redirect_to=/admin/');
		await page.getByLabel('Username or email address').fill(login);
		await page.getByLabel('Password').fill(PASSWORD);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.waitForSelector('body[data-ready="true"]');
	}

	// settled waits until the screen has its heading and nothing in it is
	// still loading.
	async function settled() {
		await page.waitForSelector('#view-title');
		await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"], main .loading, form#post-form:not([data-loaded])'), null, { timeout: 15000 });
		await page.waitForTimeout(150);
	}

	// visibleErrors lists the error notices on the screen.
	function visibleErrors() {
		return page.$$eval('.notice.error', (els) => els.filter((e) => e.offsetParent !== null && e.textContent.trim()).map((e) => e.textContent.trim()));
	}

	for (const [role, menu] of Object.entries(MENUS)) {
		test(`${role}: every screen of the menu, without errors`, async () => {
			pageErrors.length = 0;
			await signIn(role);
			await settled();
			assert.deepEqual(await page.$$eval('#nav-list a', (as) => as.map((a) => a.textContent)), menu);
			assert.match(await page.locator('#who').textContent(), new RegExp(`Signed in as ${role} \\(${role[0].toUpperCase() + role.slice(1)}\\)`));
			for (const [i, label] of menu.entries()) {
				await page.locator('#nav-list a', { hasText: new RegExp(`^${label}$`) }).click();
				await settled();
				assert.equal(await page.locator('#nav-list a[aria-current="page"]').textContent(), label);
				// Focus moves to the new screen's heading.
				assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.id), 'view-title');
				assert.deepEqual(await visibleErrors(), [], `${role} on ${label}`);
				await screenshot(page, `tour/${role}`, `${String(i + 1).padStart(2, '0')}-${label}`);
			}
			// The editor of an item this role may edit, and a new one.
			if (menu.includes('Posts')) {
				await page.goto(server.url + '/admin/#posts/new');
				await settled();
				assert.deepEqual(await visibleErrors(), []);
				await screenshot(page, `tour/${role}`, '20-new-post');
				const statuses = await page.$$eval('#post-status option', (os) => os.map((o) => o.value));
				assert.deepEqual(statuses, role === 'contributor' ? ['draft', 'pending'] : ['draft', 'pending', 'publish', 'future']);
			}
			if (role === 'administrator' || role === 'editor') {
				const list = await api('GET', 'posts?search=Scheduled&status=future');
				await page.goto(server.url + `/admin/#posts/${list.body[0].id}`);
				await settled();
				assert.deepEqual(await visibleErrors(), []);
				await screenshot(page, `tour/${role}`, '21-edit-scheduled-post');
			}
			// What the role may not open says so, in words.
			if (!menu.includes('Users')) {
				await page.goto(server.url + '/admin/#users');
				await settled();
				assert.equal(await page.locator('#view-title').textContent(), 'Not available');
				assert.deepEqual(await visibleErrors(), []);
			}
			if (!menu.includes('Posts')) {
				await page.goto(server.url + '/admin/#posts');
				await settled();
				assert.equal(await page.locator('#view-title').textContent(), 'Not available');
				await screenshot(page, `tour/${role}`, '22-posts-not-available');
			}
			await page.goto(server.url + '/admin/#no-such-screen');
			await settled();
			assert.equal(await page.locator('#view-title').textContent(), 'Not found');
			assert.deepEqual(pageErrors, []);
		});
	}

	test('a subscriber lands on the profile and can update it', async () => {
		await signIn('subscriber');
		await settled();
		assert.equal(await page.locator('#view-title').textContent(), 'Profile');
		assert.deepEqual(await visibleErrors(), []);
		await page.getByLabel('First name').fill('Sub');
		await page.getByRole('button', { name: 'Update profile' }).click();
		await page.locator('#user-result', { hasText: 'Profile updated.' }).waitFor();
		const me = await server.api('GET', 'users?search=subscriber&context=edit', { user: 'administrator', pass: appPass });
		assert.equal(me.body.find((u) => u.username === 'subscriber').first_name, 'Sub');
	});

	test('opening and saving every imported post and page unchanged writes nothing', async () => {
		await signIn('administrator');
		await settled();
		const items = [];
		for (const base of ['posts', 'pages']) {
			for (let n = 1; ; n++) {
				const res = await api('GET', `${base}?status=any&context=edit&per_page=100&page=${n}`);
				assert.equal(res.status, 200);
				items.push(...res.body.map((p) => ({ base, id: p.id, before: p })));
				if (res.body.length < 100) {
					break;
				}
			}
		}
		assert.ok(items.length >= 79, `${items.length} imported posts and pages`);
		const writes = [];
		const onRequest = (req) => {
			if (!['GET', 'HEAD', 'OPTIONS'].includes(req.method())) {
				writes.push(`${req.method()} ${req.url()}`);
			}
		};
		page.on('request', onRequest);
		try {
			for (const it of items) {
				await page.evaluate((h) => { location.hash = h; }, `#${it.base}/${it.id}`);
				await page.waitForFunction((id) => location.hash.endsWith('/' + id) && document.querySelector('form#post-form[data-loaded]'), it.id, { timeout: 15000 });
				await page.locator('#save-post').click();
				await page.locator('#save-result', { hasText: 'No changes to save.' }).waitFor({ timeout: 15000 });
			}
		} finally {
			page.off('request', onRequest);
		}
		assert.deepEqual(writes, []);
		for (const it of items) {
			const now = await api('GET', `${it.base}/${it.id}?context=edit`);
			assert.deepEqual(now.body, it.before, `${it.base}/${it.id} changed`);
		}
		assert.deepEqual(pageErrors, []);
	});

	test('a scheduled post keeps its status and date when its title is changed', async () => {
		const sched = (await api('GET', 'posts?status=future&context=edit')).body[0];
		await page.goto(server.url + `/admin/#posts/${sched.id}`);
		await settled();
		assert.equal(await page.locator('#post-status').inputValue(), 'future');
		assert.equal(await page.locator('#post-date').inputValue(), sched.date);
		assert.equal(await page.locator('#save-post').textContent(), 'Update');
		await page.getByLabel('Title').fill('Scheduled, retitled');
		await page.locator('#save-post').click();
		await page.locator('#save-result', { hasText: 'Post updated.' }).waitFor();
		// The result is next to the button, in view.
		assert.ok(await page.locator('#save-result').isVisible());
		const now = (await api('GET', `posts/${sched.id}?context=edit`)).body;
		assert.equal(now.title.raw, 'Scheduled, retitled');
		assert.equal(now.status, 'future');
		assert.equal(now.date, sched.date);
		assert.equal(now.date_gmt, sched.date_gmt);
		assert.equal(now.content.raw, sched.content.raw);
		assert.deepEqual(now.categories, sched.categories);
		assert.deepEqual(now.tags, sched.tags);
	});
});
