// @wordpress/api-fetch (7.56.0), unchanged, against `folio serve --compat
// wordpress`, set up the way WordPress sets it up for a signed-in page and
// driven through a cookie session: the nonce middleware, the nonce refresh
// on rest_cookie_invalid_nonce, method override, fetch-all paging, media
// upload, _embed and _fields, and batch requests as @wordpress/core-data
// sends them through the library.
//
// The library expects a browser: it calls globalThis.fetch with
// `credentials: 'include'` (src/index.ts DEFAULT_OPTIONS) and relies on the
// browser to keep and send cookies. installBrowser (harness.mjs) gives Node
// a window and a fetch with a cookie jar; the library is not patched.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import apiFetch from '@wordpress/api-fetch';
import { CookieJar, installBrowser, jarFetch, nativeFetch, pageSettings, png, seedSite, startServer } from './harness.mjs';

// More than one page of 100, so that per_page=-1 has to follow a next link.
const POSTS = 105;

// WordPress's refresh URL: admin_url('admin-ajax.php?action=rest-nonce'),
// answered by wp_ajax_rest_nonce() with the bare nonce as text.
const NONCE_PATH = '/wp-admin/admin-ajax.php?action=rest-nonce';

describe('@wordpress/api-fetch with a cookie session, WordPress-compatibility mode', { timeout: 240000 }, () => {
	let server, admin, adminPass, seed, jar, browser, settings;

	// requestsSince returns the requests the library made after mark
	// (method, url, headers as sent, status).
	const requestsSince = (mark) => browser.log.slice(mark);

	before(async () => {
		server = await startServer({ compat: 'wordpress' });
		admin = await server.createUser('admin', 'administrator');
		const author = await server.createUser('writer', 'author');
		adminPass = await server.appPassword('admin');
		const authorPass = await server.appPassword('writer');
		seed = await seedSite(server, { admin, adminPass, author, authorPass, count: POSTS });

		jar = new CookieJar();
		settings = (await server.signIn(jar, 'admin')).wpApiSettings;
		assert.ok(settings, 'a signed-in page defines window.wpApiSettings');
		browser = installBrowser(server.url + '/admin/', jar);

		// What WordPress prints after the wp-api-fetch script for a
		// signed-in page (wp-includes/script-loader.php,
		// wp_default_packages_inline_scripts):
		//   wp.apiFetch.use( wp.apiFetch.createRootURLMiddleware( root ) );
		//   wp.apiFetch.nonceMiddleware = wp.apiFetch.createNonceMiddleware( nonce );
		//   wp.apiFetch.use( wp.apiFetch.nonceMiddleware );
		//   wp.apiFetch.use( wp.apiFetch.mediaUploadMiddleware );
		//   wp.apiFetch.nonceEndpoint = admin_url( 'admin-ajax.php?action=rest-nonce' );
		apiFetch.use(apiFetch.createRootURLMiddleware(settings.root));
		apiFetch.nonceMiddleware = apiFetch.createNonceMiddleware(settings.nonce);
		apiFetch.use(apiFetch.nonceMiddleware);
		apiFetch.use(apiFetch.mediaUploadMiddleware);
		apiFetch.nonceEndpoint = server.url + NONCE_PATH;
	});

	after(async () => {
		browser?.restore();
		await server?.stop();
	});

	test('a signed-in page carries wpApiSettings; a visitor page none', async () => {
		assert.equal(settings.root, server.apiRoot);
		assert.equal(settings.versionString, 'wp/v2/');
		assert.match(settings.nonce, /^[0-9a-f]{10}$/);
		// The refresh URL the page hands out, as WordPress's inline script
		// sets wp.apiFetch.nonceEndpoint.
		assert.equal(settings.nonceEndpoint, server.url + NONCE_PATH);
		const visitor = await pageSettings(new CookieJar(), server.url + '/');
		assert.equal(visitor.wpApiSettings, undefined);
		assert.equal(visitor.folioApiSettings, undefined);
	});

	test('reads as the signed-in user with the cookie and the X-WP-Nonce header', async () => {
		const mark = browser.log.length;
		const me = await apiFetch({ path: '/wp/v2/users/me?context=edit' });
		assert.equal(me.id, admin.id);
		assert.ok(me.roles.includes('administrator'));
		const [req] = requestsSince(mark);
		// src/middlewares/nonce.ts adds X-WP-Nonce; root-url.ts joins the
		// root and the path; user-locale.ts adds _locale=user.
		assert.equal(req.headers['x-wp-nonce'], settings.nonce);
		assert.match(req.headers.cookie, /=/);
		assert.equal(req.url, `${server.apiRoot}wp/v2/users/me?context=edit&_locale=user`);
		// namespace + endpoint options (namespace-endpoint.ts) work as well.
		const types = await apiFetch({ namespace: 'wp/v2', endpoint: 'types/book' });
		assert.equal(types.slug, 'book');
		assert.equal(types._links['wp:items'][0].href, `${server.apiRoot}wp/v2/books`);
	});

	test('the nonce endpoint answers a signed-in session with a plain-text nonce', async () => {
		const res = await jarFetch(jar, server.url + NONCE_PATH);
		assert.equal(res.status, 200);
		assert.match(res.headers.get('content-type') || '', /^text\/plain/);
		const nonce = await res.text();
		assert.match(nonce, /^[0-9a-f]{10}$/);
		// The nonce it hands out works for this session.
		const ok = await jarFetch(jar, `${server.apiRoot}wp/v2/users/me`, { headers: { 'X-WP-Nonce': nonce } });
		assert.equal(ok.status, 200);
		assert.equal((await ok.json()).id, admin.id);
		// A visitor without a session gets WordPress's "0" with 400.
		const anon = await nativeFetch(server.url + NONCE_PATH);
		assert.equal(anon.status, 400);
		assert.equal((await anon.text()).trim(), '0');
	});

	test('pages with X-WP-Total, X-WP-TotalPages and Link next/prev', async () => {
		const res = await apiFetch({ path: '/wp/v2/posts?per_page=10&page=2', parse: false });
		assert.equal(res.status, 200);
		assert.equal(res.headers.get('x-wp-total'), String(POSTS));
		assert.equal(res.headers.get('x-wp-totalpages'), String(Math.ceil(POSTS / 10)));
		const body = await res.json();
		assert.deepEqual(body.map((p) => p.id), seed.posts.slice(-20, -10).reverse());
		const link = res.headers.get('link');
		// fetch-all-middleware.ts finds the next page with exactly this
		// pattern: /<([^>]+)>; rel="next"/.
		const next = /<([^>]+)>; rel="next"/.exec(link);
		const prev = /<([^>]+)>; rel="prev"/.exec(link);
		assert.ok(next && prev, link);
		const n = new URL(next[1]);
		assert.equal(n.origin + n.pathname, `${server.apiRoot}wp/v2/posts`);
		assert.equal(n.searchParams.get('page'), '3');
		assert.equal(n.searchParams.get('per_page'), '10');
		assert.equal(n.searchParams.get('_locale'), 'user', 'the next link keeps the original query');
		assert.equal(new URL(prev[1]).searchParams.get('page'), '1');
	});

	test('fetches every page with per_page=-1 by following the next link', async () => {
		const mark = browser.log.length;
		const all = await apiFetch({ path: '/wp/v2/posts?per_page=-1' });
		assert.equal(all.length, POSTS);
		assert.deepEqual(all.map((p) => p.id), [...seed.posts].reverse());
		// fetch-all-middleware.ts: first per_page=100, then the Link next URL.
		const reqs = requestsSince(mark);
		assert.equal(reqs.length, 2, JSON.stringify(reqs.map((r) => r.url)));
		assert.equal(new URL(reqs[0].url).searchParams.get('per_page'), '100');
		assert.equal(new URL(reqs[1].url).searchParams.get('page'), '2');
		assert.ok(reqs.every((r) => r.status === 200));
	});

	test('creates, updates and deletes a post; PUT and DELETE go as POST with X-HTTP-Method-Override', async () => {
		const mark = browser.log.length;
		const created = await apiFetch({ path: '/wp/v2/posts', method: 'POST', data: { title: 'From api-fetch', status: 'draft', categories: [seed.categories.tech] } });
		assert.equal(created.title.raw, 'From api-fetch');
		assert.equal(created.author, admin.id);
		assert.deepEqual(created.categories, [seed.categories.tech]);

		const updated = await apiFetch({ path: `/wp/v2/posts/${created.id}`, method: 'PUT', data: { title: 'Changed by api-fetch', status: 'publish' } });
		assert.equal(updated.title.raw, 'Changed by api-fetch');
		assert.equal(updated.status, 'publish');

		// No data: http-v1.ts turns it into a POST with an empty body and
		// Content-Type application/json.
		const trashed = await apiFetch({ path: `/wp/v2/posts/${created.id}`, method: 'DELETE' });
		assert.equal(trashed.id, created.id);
		const inTrash = await apiFetch({ path: `/wp/v2/posts/${created.id}?context=edit` });
		assert.equal(inTrash.status, 'trash');
		const removed = await apiFetch({ path: `/wp/v2/posts/${created.id}?force=true`, method: 'DELETE' });
		assert.equal(removed.id, created.id);
		await assert.rejects(apiFetch({ path: `/wp/v2/posts/${created.id}` }), (err) => {
			assert.equal(err.code, 'rest_post_invalid_id');
			assert.equal(err.data.status, 404);
			return true;
		});

		const reqs = requestsSince(mark);
		const overridden = reqs.filter((r) => r.headers['x-http-method-override']);
		assert.deepEqual(overridden.map((r) => [r.method, r.headers['x-http-method-override'], r.status]), [
			['POST', 'PUT', 200],
			['POST', 'DELETE', 200],
			['POST', 'DELETE', 200],
		]);
		assert.ok(reqs.every((r) => r.method === 'GET' || r.method === 'POST'), 'only GET and POST reach the server');
	});

	test('uploads media from a FormData body', async () => {
		const image = png(32, 24);
		const body = new FormData();
		body.append('file', new Blob([image], { type: 'image/png' }), 'from-api-fetch.png');
		body.append('title', 'Uploaded by api-fetch');
		body.append('alt_text', 'A gradient');
		// mediaUploadMiddleware handles POST /wp/v2/media (media-upload.ts).
		const media = await apiFetch({ path: '/wp/v2/media', method: 'POST', body });
		assert.ok(media.id > 0);
		assert.equal(media.mime_type, 'image/png');
		assert.equal(media.title.raw, 'Uploaded by api-fetch');
		assert.equal(media.alt_text, 'A gradient');
		assert.equal(media.media_details.width, 32);
		const file = await nativeFetch(media.source_url);
		assert.deepEqual(Buffer.from(await file.arrayBuffer()), image);
		const removed = await apiFetch({ path: `/wp/v2/media/${media.id}?force=true`, method: 'DELETE' });
		assert.equal(removed.id, media.id);
	});

	test('embeds only the relations named in _embed', async () => {
		const [all] = await apiFetch({ path: '/wp/v2/posts?per_page=1&_embed=true' });
		assert.ok(all._embedded.author, JSON.stringify(Object.keys(all._embedded)));
		assert.ok(all._embedded['wp:term']);
		const [some] = await apiFetch({ path: '/wp/v2/posts?per_page=1&_embed=author' });
		assert.deepEqual(Object.keys(some._embedded), ['author']);
		const [terms] = await apiFetch({ path: '/wp/v2/posts?per_page=1&_embed=wp:term,author' });
		assert.deepEqual(Object.keys(terms._embedded).sort(), ['author', 'wp:term']);
	});

	test('returns only the fields named in _fields', async () => {
		const list = await apiFetch({ path: '/wp/v2/posts?per_page=3&_fields=id,title' });
		assert.equal(list.length, 3);
		for (const p of list) {
			assert.deepEqual(Object.keys(p).sort(), ['id', 'title']);
		}
		const one = await apiFetch({ path: `/wp/v2/posts/${seed.posts[0]}?_fields=id,title.rendered,_links` });
		assert.deepEqual(Object.keys(one).sort(), ['_links', 'id', 'title']);
		assert.deepEqual(Object.keys(one.title), ['rendered']);
		assert.equal(one.title.rendered, 'Seeded post 1');
	});

	test('answers OPTIONS with the Allow header the caller may use', async () => {
		// @wordpress/core-data's canUser() asks exactly this way:
		// apiFetch({ path, method: 'OPTIONS', parse: false }) and reads the
		// Allow header of the response.
		const id = seed.posts[0];
		const res = await apiFetch({ path: `/wp/v2/posts/${id}`, method: 'OPTIONS', parse: false });
		assert.equal(res.status, 200);
		const allow = res.headers.get('allow').split(/,\s*/);
		for (const m of ['GET', 'POST', 'PUT', 'DELETE']) {
			assert.ok(allow.includes(m), `${m} in Allow: ${allow}`);
		}
		const anon = await nativeFetch(`${server.apiRoot}wp/v2/posts/${id}`, { method: 'OPTIONS' });
		assert.equal(anon.status, 200);
		assert.equal(anon.headers.get('allow'), 'GET');
		await anon.arrayBuffer();
	});

	test('accepts arrays in the query forms api-fetch sends', async () => {
		// api-fetch rewrites every path through @wordpress/url addQueryArgs
		// (user-locale.ts), which parses the query and builds it again with
		// buildQueryString: arrays always leave as include[0]=..&include[1]=..,
		// whatever form the caller wrote (brackets included), a comma list
		// stays a string, and of repeated plain keys only the last survives
		// (PHP's rule). wpapi's include[]= form is covered by the wpapi suite.
		const [a, b] = [seed.posts[0], seed.posts[1]];
		const want = [a, b].sort((x, y) => x - y);
		const forms = {
			indexed: [`include%5B0%5D=${a}&include%5B1%5D=${b}`, `include%5B0%5D=${a}&include%5B1%5D=${b}`],
			brackets: [`include%5B%5D=${a}&include%5B%5D=${b}`, `include%5B0%5D=${a}&include%5B1%5D=${b}`],
			comma: [`include=${a},${b}`, `include=${a}%2C${b}`],
		};
		for (const [form, [query, sent]] of Object.entries(forms)) {
			const mark = browser.log.length;
			const list = await apiFetch({ path: `/wp/v2/posts?${query}` });
			assert.deepEqual(list.map((p) => p.id).sort((x, y) => x - y), want, form);
			const [req] = requestsSince(mark);
			assert.equal(req.url, `${server.apiRoot}wp/v2/posts?${sent}&_locale=user`, form);
		}
	});

	test('finds terms by a list of slugs, in the forms WordPress 4.7+ clients send', async () => {
		// @wordpress/core-data asks for records by slug with
		// `slug: [a, b]`, which @wordpress/url turns into slug[0]=a&slug[1]=b;
		// a comma list is the other form clients use.
		const want = [seed.tags.go, seed.tags.wp].sort((x, y) => x - y);
		for (const path of ['/wp/v2/tags?slug=go,wordpress', '/wp/v2/tags?slug%5B0%5D=go&slug%5B1%5D=wordpress']) {
			const list = await apiFetch({ path });
			assert.deepEqual(list.map((t) => t.id).sort((x, y) => x - y), want, path);
		}
		const one = await apiFetch({ path: '/wp/v2/tags?slug=go' });
		assert.deepEqual(one.map((t) => t.id), [seed.tags.go]);
	});

	test('refreshes a stale nonce from the nonce endpoint and retries', async () => {
		// Sign out and in again: the page's nonce belongs to the old
		// session, as after a long-open tab or a sign-in elsewhere.
		const stale = apiFetch.nonceMiddleware.nonce;
		await server.signOut(jar);
		await server.signIn(jar, 'admin');

		const mark = browser.log.length;
		const created = await apiFetch({ path: '/wp/v2/posts', method: 'POST', data: { title: 'After the refresh', status: 'draft' } });
		assert.equal(created.title.raw, 'After the refresh');

		// src/index.ts: on error code rest_cookie_invalid_nonce apiFetch
		// fetches apiFetch.nonceEndpoint, stores the text as the
		// middleware's nonce and repeats the request.
		const reqs = requestsSince(mark).map((r) => ({ method: r.method, url: r.url, nonce: r.headers['x-wp-nonce'], status: r.status }));
		assert.equal(reqs.length, 3, JSON.stringify(reqs));
		assert.deepEqual(reqs[0], { method: 'POST', url: `${server.apiRoot}wp/v2/posts?_locale=user`, nonce: stale, status: 403 });
		assert.deepEqual(reqs[1], { method: 'GET', url: server.url + NONCE_PATH, nonce: undefined, status: 200 });
		const fresh = apiFetch.nonceMiddleware.nonce;
		assert.notEqual(fresh, stale);
		assert.match(fresh, /^[0-9a-f]{10}$/);
		assert.deepEqual(reqs[2], { method: 'POST', url: `${server.apiRoot}wp/v2/posts?_locale=user`, nonce: fresh, status: 201 });

		// The refreshed nonce keeps working without another refresh.
		const next = browser.log.length;
		await apiFetch({ path: `/wp/v2/posts/${created.id}?force=true`, method: 'DELETE' });
		assert.equal(requestsSince(next).length, 1);
	});

	// @wordpress/api-fetch has no batching of its own: WordPress batches
	// with @wordpress/core-data, whose default processor
	// (packages/core-data/src/batch/default-processor.js) sends exactly
	// these api-fetch calls: an OPTIONS preflight for maxItems, then
	// POST /batch/v1 with validation require-all-validate and each request
	// as {path, body, method, headers}; it reads `failed`, and each
	// response's status and body.
	const coreDataBatch = async (requests) => {
		const preflight = await apiFetch({ path: '/batch/v1', method: 'OPTIONS' });
		const maxItems = preflight.endpoints[0].args.requests.maxItems;
		assert.equal(maxItems, 25);
		const res = await apiFetch({
			path: '/batch/v1',
			method: 'POST',
			data: {
				validation: 'require-all-validate',
				requests: requests.map((r) => ({ path: r.path, body: r.data, method: r.method, headers: r.headers })),
			},
		});
		if (res.failed) {
			return { failed: true, results: res.responses.map((r) => ({ error: r?.body })) };
		}
		return {
			failed: false,
			results: res.responses.map((r) => (r.status >= 200 && r.status < 300 ? { output: r.body, status: r.status } : { error: r.body, status: r.status })),
		};
	};

	test('runs batch requests as @wordpress/core-data sends them through api-fetch', async () => {
		const post = seed.posts[0];
		const mark = browser.log.length;
		const { failed, results } = await coreDataBatch([
			{ path: '/wp/v2/posts', method: 'POST', data: { title: 'Batched by core-data', status: 'draft' } },
			{ path: '/wp/v2/tags', method: 'POST', data: { name: 'batched' } },
			{ path: `/wp/v2/posts/${post}?context=edit`, method: 'PUT', data: { excerpt: 'Set in a batch' } },
		]);
		assert.equal(failed, false);
		assert.deepEqual(results.map((r) => r.status), [201, 201, 200]);
		assert.equal(results[0].output.title.rendered, 'Batched by core-data');
		assert.equal(results[0].output.author, admin.id, 'sub-requests run as the signed-in user');
		assert.equal(results[1].output.name, 'batched');
		assert.equal(results[2].output.excerpt.raw, 'Set in a batch');
		// One preflight and one batch, both with the cookie and the nonce.
		const reqs = requestsSince(mark);
		assert.deepEqual(reqs.map((r) => [r.method, r.url, r.status]), [
			['OPTIONS', `${server.apiRoot}batch/v1?_locale=user`, 200],
			['POST', `${server.apiRoot}batch/v1?_locale=user`, 207],
		]);
		assert.equal(reqs[1].headers['x-wp-nonce'], apiFetch.nonceMiddleware.nonce);
		assert.match(reqs[1].headers.cookie, /=/);

		// One invalid request: nothing runs, and core-data sees the errors.
		const bad = await coreDataBatch([
			{ path: '/wp/v2/posts', method: 'POST', data: { title: 'Never batched' } },
			{ path: '/wp/v2/posts', method: 'POST', data: { title: 'Invalid', status: 'bogus' } },
			{ path: '/wp/v2/media', method: 'POST', data: { title: 'No uploads in batches' } },
		]);
		assert.equal(bad.failed, true);
		assert.equal(bad.results[0].error, undefined);
		assert.equal(bad.results[1].error.code, 'rest_invalid_param');
		assert.equal(bad.results[2].error.code, 'rest_batch_not_allowed');
		const none = await server.api('GET', 'posts?search=Never%20batched&status=draft,publish', { user: 'admin', pass: adminPass });
		assert.deepEqual(none.body, []);

		// Clean up, in a batch too.
		const done = await coreDataBatch([
			{ path: `/wp/v2/posts/${results[0].output.id}?force=true`, method: 'DELETE' },
			{ path: `/wp/v2/tags/${results[1].output.id}?force=true`, method: 'DELETE' },
		]);
		assert.deepEqual(done.results.map((r) => r.status), [200, 200]);
	});

	test('rejects with rest_cookie_invalid_nonce when the refresh fails (signed out)', async () => {
		await server.signOut(jar);
		// The known-browser cookie (folio_device, sent to /login only)
		// outlives the session on purpose: it spares this browser the
		// sign-in throttle of others (docs/security.md).
		assert.ok(!/(^|; )folio_session=/.test(jar.header(server.url)), 'signing out removes the session cookie');
		const mark = browser.log.length;
		await assert.rejects(apiFetch({ path: '/wp/v2/posts', method: 'POST', data: { title: 'Never' } }), (err) => {
			assert.equal(err.code, 'rest_cookie_invalid_nonce');
			assert.equal(err.data.status, 403);
			return true;
		});
		const reqs = requestsSince(mark).map((r) => [r.method, r.url, r.status]);
		assert.deepEqual(reqs, [
			['POST', `${server.apiRoot}wp/v2/posts?_locale=user`, 403],
			['GET', server.url + NONCE_PATH, 400],
		]);
		// Nothing was created.
		const res = await server.api('GET', 'posts?search=Never&status=draft,publish', { user: 'admin', pass: adminPass });
		assert.equal(res.status, 200);
		assert.deepEqual(res.body, []);
	});
});
