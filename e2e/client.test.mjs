// The bundled browser client (/assets/api-client.js) in a real browser:
// models and collections built from the namespace index, paging with the
// total headers, the nonce header and a refreshed nonce.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startServer, Steps } from './harness.mjs';

describe('browser client', () => {
	let server, browser, admin, appPass;

	before(async () => {
		server = await startServer();
		admin = await server.createUser('admin');
		appPass = await server.appPassword('admin');
		for (let i = 1; i <= 5; i++) {
			const res = await server.api('POST', 'posts', {
				user: 'admin', pass: appPass,
				body: { title: `Client post ${i}`, content: `Body ${i}`, status: 'publish' },
			});
			assert.equal(res.status, 201, JSON.stringify(res.body));
		}
		browser = await launchBrowser();
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	// openAnonymous loads the site root (no settings object for visitors)
	// and the client from its stable URL.
	async function openAnonymous(page) {
		await page.goto(server.url + '/');
		await page.addScriptTag({ url: server.url + '/assets/api-client.js' });
		await page.waitForFunction(() => window.folio && window.folio.api && window.folio.api.loadPromise);
		return page.evaluate(() => new Promise((resolve, reject) => {
			window.folio.api.loadPromise.then(() => resolve(true), (e) => reject(new Error(JSON.stringify(e))));
		}));
	}

	test('builds a model and a collection for every route of the index', async (t) => {
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		try {
			await steps.step('load client', () => openAnonymous(page));
			const names = await steps.step('inspect classes', () => page.evaluate(() => ({
				models: Object.keys(window.folio.api.models).sort(),
				collections: Object.keys(window.folio.api.collections).sort(),
				postUrl: new window.folio.api.models.Post({ id: 7 }).url(),
				newPostUrl: new window.folio.api.models.Post().url(),
				revisionsUrl: new window.folio.api.collections.PostRevisions([], { parent: 7 }).url(),
				meUrl: new window.folio.api.models.Me().url(),
				typeUrl: new window.folio.api.models.Type({ slug: 'post' }).url(),
				versionString: window.folio.api.versionString,
			})));
			for (const m of ['Post', 'Page', 'PostRevision', 'PageRevision', 'Type', 'Status', 'Taxonomy', 'Category', 'Tag', 'User', 'Me', 'Comment']) {
				assert.ok(names.models.includes(m), `model ${m} in ${names.models}`);
			}
			for (const c of ['Posts', 'Pages', 'PostRevisions', 'PageRevisions', 'Types', 'Statuses', 'Taxonomies', 'Categories', 'Tags', 'Users', 'Comments']) {
				assert.ok(names.collections.includes(c), `collection ${c} in ${names.collections}`);
			}
			assert.equal(names.versionString, 'svc/v2/');
			assert.equal(names.postUrl, server.url + '/api/svc/v2/posts/7');
			assert.equal(names.newPostUrl, server.url + '/api/svc/v2/posts');
			assert.equal(names.revisionsUrl, server.url + '/api/svc/v2/posts/7/revisions');
			assert.equal(names.meUrl, server.url + '/api/svc/v2/users/me');
			assert.equal(names.typeUrl, server.url + '/api/svc/v2/types/post');
		} finally {
			await page.close();
		}
	});

	test('collections page with the total headers: hasMore and more', async (t) => {
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		try {
			await steps.step('load client', () => openAnonymous(page));
			const r = await steps.step('page through posts', () => page.evaluate(async () => {
				const posts = new window.folio.api.collections.Posts();
				const before = posts.hasMore();
				await posts.fetch({ data: { per_page: 2 } });
				const first = { len: posts.length, more: posts.hasMore(), state: { ...posts.state } };
				await posts.more();
				const second = { len: posts.length, more: posts.hasMore(), page: posts.state.currentPage };
				await posts.more();
				const third = { len: posts.length, more: posts.hasMore(), page: posts.state.currentPage };
				const none = await posts.more();
				await posts.fetchPage(2);
				const paged = { len: posts.length, page: posts.state.currentPage, titles: posts.map((p) => p.get('title').rendered) };
				return { before, first, second, third, none, paged };
			}));
			assert.equal(r.before, null);
			assert.deepEqual(r.first, { len: 2, more: true, state: { data: { per_page: 2 }, currentPage: 1, totalPages: 3, totalObjects: 5 } });
			assert.deepEqual(r.second, { len: 4, more: true, page: 2 });
			assert.deepEqual(r.third, { len: 5, more: false, page: 3 });
			assert.deepEqual(r.none, []);
			assert.equal(r.paged.len, 2);
			assert.equal(r.paged.page, 2);
			assert.deepEqual(r.paged.titles, ['Client post 3', 'Client post 2']);
		} finally {
			await page.close();
		}
	});

	test('non-paged collections and single models read anonymously', async (t) => {
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		try {
			await steps.step('load client', () => openAnonymous(page));
			const r = await steps.step('read types, statuses, a post', () => page.evaluate(async () => {
				const api = window.folio.api;
				const types = new api.collections.Types();
				await types.fetch();
				const posts = new api.collections.Posts();
				await posts.fetch({ data: { per_page: 1 } });
				const post = new api.models.Post({ id: posts.first().id });
				await post.fetch();
				const statuses = new api.collections.Statuses();
				await statuses.fetch();
				return {
					types: types.pluck('slug').sort(),
					typesMore: types.hasMore(),
					statuses: statuses.pluck('slug'),
					title: post.get('title').rendered,
					author: post.get('author'),
				};
			}));
			assert.ok(r.types.includes('post') && r.types.includes('page'), String(r.types));
			assert.equal(r.typesMore, false);
			assert.ok(r.statuses.includes('publish'), String(r.statuses));
			assert.equal(r.title, 'Client post 5');
			assert.equal(r.author, admin.id);
		} finally {
			await page.close();
		}
	});

	test('anonymous writes are refused with 401', async (t) => {
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		try {
			await steps.step('load client', () => openAnonymous(page));
			const r = await steps.step('save a post', () => page.evaluate(() => new Promise((resolve) => {
				const p = new window.folio.api.models.Post({ title: 'Nope' });
				p.save().then(() => resolve({ ok: true }), (xhr) => resolve(window.folio.api.utils.errorOf(xhr)));
			})));
			assert.equal(r.status, 401);
			assert.equal(r.code, 'rest_cannot_create');
		} finally {
			await page.close();
		}
	});

	test('requests carry the nonce header and pick up a refreshed nonce', async (t) => {
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		const seen = [];
		let issued = 0;
		try {
			// The page's settings object carries a made-up nonce; the route
			// records the nonce each API request sends, strips it (the server
			// does not know it) and answers with a new one, which the next
			// request must send.
			await page.route('**/api/svc/v2**', async (route) => {
				const req = route.request();
				seen.push(req.headers()['x-api-nonce'] || null);
				const headers = { ...req.headers() };
				delete headers['x-api-nonce'];
				const res = await route.fetch({ headers });
				issued++;
				await route.fulfill({ response: res, headers: { ...res.headers(), 'x-api-nonce': `nonce0000${issued}` } });
			});
			await steps.step('load client with a nonce', async () => {
				await page.goto(server.url + '/');
				await page.evaluate(() => { window.folioApiSettings = { root: location.origin + '/api/', nonce: '0123456789', versionString: 'svc/v2/', autoload: false }; });
				await page.addScriptTag({ url: server.url + '/assets/api-client.js' });
			});
			const r = await steps.step('index, then two fetches', () => page.evaluate(async () => {
				const api = window.folio.api;
				const start = api.nonce();
				let events = 0;
				api.on('nonce', () => { events++; });
				await api.init();
				const afterIndex = api.nonce();
				const posts = new api.collections.Posts();
				await posts.fetch({ data: { per_page: 1 } });
				await posts.fetch({ data: { per_page: 1 } });
				return { start, afterIndex, end: api.nonce(), events, settings: window.folioApiSettings.nonce };
			}));
			assert.equal(r.start, '0123456789');
			assert.equal(r.afterIndex, 'nonce00001');
			assert.equal(r.end, 'nonce00003');
			assert.equal(r.events, 3);
			assert.equal(r.settings, 'nonce00003');
			assert.deepEqual(seen, ['0123456789', 'nonce00001', 'nonce00002']);
		} finally {
			await page.close();
		}
	});

	test('the client is served at a stable URL with caching headers', async () => {
		const res = await fetch(server.url + '/assets/api-client.js');
		assert.equal(res.status, 200);
		assert.match(res.headers.get('content-type'), /javascript/);
		const etag = res.headers.get('etag');
		assert.ok(etag);
		const body = await res.text();
		assert.match(body, /Backbone/);
		const again = await fetch(server.url + '/assets/api-client.js', { headers: { 'If-None-Match': etag } });
		assert.equal(again.status, 304);
	});
});

describe('browser client in WordPress-compatibility mode', () => {
	let server, browser, admin;

	before(async () => {
		server = await startServer({ compat: 'wordpress' });
		admin = await server.createUser('admin');
		browser = await launchBrowser();
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	test('wp.api is the client and writes send X-WP-Nonce', async (t) => {
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		const nonceHeaders = [];
		page.on('request', (req) => {
			if (req.url().includes('/wp-json/')) {
				nonceHeaders.push([req.headers()['x-wp-nonce'] || null, req.headers()['x-api-nonce'] || null]);
			}
		});
		try {
			await steps.step('sign in', async () => {
				await page.goto(server.url + '/login');
				await page.getByLabel('Username or email address').fill('admin');
				await page.getByLabel('Password').fill(admin.password);
				await page.getByRole('button', { name: 'Sign in' }).click();
				await page.waitForSelector('body[data-ready="true"]');
			});
			const r = await steps.step('save a post with wp.api', () => page.evaluate(async () => {
				const post = new window.wp.api.models.Post({ title: 'Compat post', status: 'publish' });
				await post.save();
				const posts = new window.wp.api.collections.Posts();
				await posts.fetch({ data: { per_page: 1 } });
				return {
					same: window.wp.api === window.folio.api,
					root: window.wpApiSettings.root,
					id: post.id,
					total: posts.state.totalObjects,
					url: post.url(),
				};
			}));
			assert.equal(r.same, true);
			assert.equal(r.root, server.url + '/wp-json/');
			assert.ok(r.id > 0);
			assert.equal(r.total, 1);
			assert.equal(r.url, `${server.url}/wp-json/wp/v2/posts/${r.id}`);
			assert.ok(nonceHeaders.length > 0);
			for (const [wp, own] of nonceHeaders) {
				assert.match(wp, /^[0-9a-f]{10}$/);
				assert.equal(own, null);
			}
		} finally {
			await page.close();
		}
	});
});
