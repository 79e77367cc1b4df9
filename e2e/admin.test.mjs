// The admin page in a real browser: sign in, create a post through the
// client and see it listed, search and page, publish a post with
// categories, tags and a featured image from the editor, upload media,
// moderate a comment, sign out, and the nonce rule for writes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, png, startServer, Steps } from './harness.mjs';

describe('admin page', () => {
	let server, browser, page, admin, appPass, news, hasMedia;
	let staleNonce;

	// api calls the REST API from Node as the administrator (Basic auth).
	const api = (method, route, body) => server.api(method, route, { user: 'admin', pass: appPass, body });

	before(async () => {
		server = await startServer();
		admin = await server.createUser('admin');
		appPass = await server.appPassword('admin');
		const cat = await api('POST', 'categories', { name: 'News' });
		assert.equal(cat.status, 201, JSON.stringify(cat.body));
		news = cat.body.id;
		for (let i = 1; i <= 12; i++) {
			const res = await api('POST', 'posts', { title: `Paging post ${i}`, content: 'x', status: 'publish' });
			assert.equal(res.status, 201, JSON.stringify(res.body));
		}
		const index = await server.api('GET', '');
		hasMedia = Object.keys(index.body.routes).includes('/svc/v2/media');
		browser = await launchBrowser();
		page = await browser.context.newPage();
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	// view waits for the admin script to have rendered a view with this
	// heading.
	async function view(heading) {
		await page.waitForSelector('body[data-ready="true"]');
		await page.getByRole('heading', { level: 1, name: heading }).waitFor();
	}

	// status waits for the status region to say text.
	async function status(text) {
		await page.waitForFunction((t) => document.getElementById('status').textContent.includes(t), text, { timeout: 10000 });
	}

	// write sends a JSON POST from the page with the session cookie and the
	// given nonce header (none when nonce is null); it returns status and
	// error code.
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

	test('visitors are sent to the sign-in form', async (t) => {
		const steps = new Steps(t.name, page);
		await steps.step('open /admin/ signed out', async () => {
			await page.goto(server.url + '/admin/');
			assert.equal(new URL(page.url()).pathname, '/login');
			assert.equal(new URL(page.url()).searchParams.get('redirect_to'), '/admin/');
			await page.getByLabel('Password').waitFor();
		});
	});

	test('sign in lands on the admin page with a settings object', async (t) => {
		const steps = new Steps(t.name, page);
		await steps.step('fill the sign-in form', async () => {
			await page.getByLabel('Username or email address').fill('admin');
			await page.getByLabel('Password').fill(admin.password);
			await page.getByRole('button', { name: 'Sign in' }).click();
		});
		await steps.step('admin page loads', async () => {
			await page.waitForURL(server.url + '/admin/**');
			await view('Posts');
			const s = await page.evaluate(() => window.folioApiSettings);
			assert.equal(s.root, server.url + '/api/');
			assert.equal(s.versionString, 'svc/v2/');
			assert.match(s.nonce, /^[0-9a-f]{10}$/);
			staleNonce = s.nonce;
		});
	});

	test('a post created through the client is listed', async (t) => {
		const steps = new Steps(t.name, page);
		const id = await steps.step('save a post with the client', () => page.evaluate(async () => {
			const post = new window.folio.api.models.Post({ title: 'Client-made post', content: 'Made in the browser.', status: 'publish' });
			await post.save();
			return post.id;
		}));
		assert.ok(id > 0);
		await steps.step('see it in the posts list', async () => {
			await page.goto(server.url + '/admin/#posts?search=Client-made');
			await view('Posts');
			const row = page.locator('#posts-list tr[data-id="' + id + '"]');
			await row.waitFor();
			assert.equal(await row.getByRole('link').textContent(), 'Client-made post');
			assert.equal(await page.locator('#posts-list tbody tr').count(), 1);
		});
		const res = await api('GET', `posts/${id}`);
		assert.equal(res.body.author, admin.id);
	});

	test('the posts list searches and pages', async (t) => {
		const steps = new Steps(t.name, page);
		await steps.step('search', async () => {
			await page.goto(server.url + '/admin/#posts');
			await view('Posts');
			await page.getByLabel('Search posts').fill('Paging');
			await page.getByRole('button', { name: 'Filter' }).click();
			await page.waitForFunction(() => location.hash.includes('search=Paging'));
			await page.locator('#posts-list[aria-busy="false"] tbody tr').first().waitFor();
			assert.equal(await page.locator('#posts-list tbody tr').count(), 10);
			assert.match(await page.locator('.page-count').textContent(), /Page 1 of 2 \(12 items\)/);
		});
		await steps.step('next page', async () => {
			await page.getByRole('link', { name: /Next/ }).click();
			await page.waitForFunction(() => document.querySelectorAll('#posts-list tbody tr').length === 2);
			assert.match(await page.locator('.page-count').textContent(), /Page 2 of 2/);
			assert.equal(await page.getByRole('link', { name: /Next/ }).count(), 0);
			assert.equal(await page.getByRole('link', { name: /Previous/ }).count(), 1);
		});
	});

	test('publish a post with categories, tags and a featured image from the editor', async (t) => {
		const steps = new Steps(t.name, page);
		await steps.step('open the editor', async () => {
			await page.getByRole('link', { name: 'New post', exact: true }).click();
			await view('New post');
			await page.locator('#post-form').waitFor();
		});
		await steps.step('fill the form', async () => {
			await page.getByLabel('Title').fill('Published from the admin');
			await page.getByLabel('Content').fill('Hello from the admin page.');
			await page.getByLabel('Status').selectOption('publish');
			await page.getByLabel('News').check();
			await page.getByLabel('Tags (separate with commas)').fill('alpha, beta');
			if (hasMedia) {
				await page.getByLabel('Or upload a new image').setInputFiles({ name: 'featured.png', mimeType: 'image/png', buffer: png() });
			}
		});
		const id = await steps.step('save', async () => {
			await page.getByRole('button', { name: 'Save' }).click();
			await status('Post saved.');
			await view('Edit post');
			return parseInt(/posts\/(\d+)/.exec(page.url())[1], 10);
		});
		const res = await api('GET', `posts/${id}?context=edit`);
		assert.equal(res.status, 200);
		assert.equal(res.body.title.raw, 'Published from the admin');
		assert.equal(res.body.status, 'publish');
		assert.deepEqual(res.body.categories, [news]);
		const tags = await api('GET', `tags?include=${res.body.tags.join(',')}`);
		assert.deepEqual(tags.body.map((x) => x.name).sort(), ['alpha', 'beta']);
		if (hasMedia) {
			assert.ok(res.body.featured_media > 0, 'featured_media set');
			const media = await api('GET', `media/${res.body.featured_media}`);
			assert.equal(media.body.media_type, 'image');
			assert.equal(media.body.mime_type, 'image/png');
		} else {
			t.diagnostic('media endpoints are not registered: featured image not tested');
		}
		await steps.step('edit the title', async () => {
			await page.getByLabel('Title').fill('Published and edited');
			await page.getByRole('button', { name: 'Update' }).click();
			await status('Post updated.');
		});
		const edited = await api('GET', `posts/${id}?context=edit`);
		assert.equal(edited.body.title.raw, 'Published and edited');
		assert.deepEqual(edited.body.categories, [news]);
		assert.equal(edited.body.tags.length, 2);
	});

	test('upload an image in the media view', async (t) => {
		if (!hasMedia) {
			t.skip('media endpoints are not registered');
			return;
		}
		const steps = new Steps(t.name, page);
		await steps.step('open media', async () => {
			await page.getByRole('link', { name: 'Media', exact: true }).click();
			await view('Media');
		});
		await steps.step('upload', async () => {
			await page.getByLabel('File').setInputFiles({ name: 'upload-test.png', mimeType: 'image/png', buffer: png(80, 60) });
			await page.getByLabel('Alternative text (for images)').fill('A gradient');
			await page.getByRole('button', { name: 'Upload' }).click();
			await status('Uploaded');
			await page.locator('#media-list li a', { hasText: 'upload-test' }).first().waitFor();
		});
		const list = await api('GET', 'media?search=upload-test');
		assert.equal(list.status, 200);
		assert.equal(list.body.length, 1);
		assert.equal(list.body[0].alt_text, 'A gradient');
		const img = await fetch(list.body[0].source_url);
		assert.equal(img.status, 200);
	});

	test('approve a held comment', async (t) => {
		const posts = await api('GET', 'posts?search=Client-made');
		const made = await api('POST', 'comments', { post: posts.body[0].id, content: 'Please approve me', author_name: 'Visitor', author_email: 'v@example.test' });
		assert.equal(made.status, 201, JSON.stringify(made.body));
		if (made.body.status !== 'hold') {
			const held = await api('POST', `comments/${made.body.id}`, { status: 'hold' });
			assert.equal(held.status, 200, JSON.stringify(held.body));
		}
		const steps = new Steps(t.name, page);
		await steps.step('open pending comments', async () => {
			await page.getByRole('link', { name: 'Comments', exact: true }).click();
			await view('Comments');
			await page.locator(`#comments-list li[data-id="${made.body.id}"]`).waitFor();
		});
		await steps.step('approve', async () => {
			await page.getByRole('button', { name: /^Approve comment by/ }).first().click();
			await status('Comment approved.');
		});
		const got = await api('GET', `comments/${made.body.id}?context=edit`);
		assert.equal(got.body.status, 'approved');
	});

	test('writes with a missing or an invalid nonce fail', async (t) => {
		const steps = new Steps(t.name, page);
		await steps.step('cookie without nonce is anonymous: 401', async () => {
			assert.deepEqual(await write('posts', null), { status: 401, code: 'rest_cannot_create' });
		});
		await steps.step('cookie with a bad nonce: 403', async () => {
			assert.deepEqual(await write('posts', '0123456789'), { status: 403, code: 'rest_cookie_invalid_nonce' });
			assert.deepEqual(await write('posts', ''), { status: 403, code: 'rest_cookie_invalid_nonce' });
		});
		await steps.step('the client reports the error', async () => {
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
		});
		const res = await api('GET', 'posts?search=Should+not+exist&status=any');
		assert.equal(res.body.length, 0);
	});

	test('sign out ends the session and its nonce', async (t) => {
		const steps = new Steps(t.name, page);
		await steps.step('sign out', async () => {
			await page.goto(server.url + '/admin/');
			await view('Posts');
			await page.getByRole('button', { name: 'Sign out' }).click();
			await page.waitForURL(/\/login\?loggedout=true/);
			await page.getByText('You are now signed out.').waitFor();
		});
		await steps.step('the admin page needs a new sign-in', async () => {
			await page.goto(server.url + '/admin/');
			assert.equal(new URL(page.url()).pathname, '/login');
		});
		await steps.step('the old nonce is stale: 403', async () => {
			assert.deepEqual(await write('posts', staleNonce), { status: 403, code: 'rest_cookie_invalid_nonce' });
			assert.deepEqual(await write('posts', null), { status: 401, code: 'rest_cannot_create' });
		});
		await steps.step('sign in again: the old nonce stays stale', async () => {
			await page.getByLabel('Username or email address').fill('admin');
			await page.getByLabel('Password').fill(admin.password);
			await page.getByRole('button', { name: 'Sign in' }).click();
			await view('Posts');
			const fresh = await page.evaluate(() => window.folioApiSettings.nonce);
			assert.notEqual(fresh, staleNonce);
			assert.deepEqual(await write('posts', staleNonce), { status: 403, code: 'rest_cookie_invalid_nonce' });
		});
	});
});
