// The wpapi (node-wpapi 1.2.2) acceptance checks, run unchanged against a
// real `folio serve` in WordPress-compatibility mode (wpapi.compat.test.mjs)
// and in the default mode (wpapi.default.test.mjs). Only how the client is
// obtained and which paging headers it can read differ between the modes;
// every difference is spelled out where it happens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WPAPI from 'wpapi';
import { CookieJar, jarFetch, png, seedSite, startServer } from './harness.mjs';

// Number of seeded posts; with per_page=3 that makes 3 pages (3, 3, 1).
const POSTS = 7;
const PER_PAGE = 3;

// parseLink parses an RFC 8288 Link header into {rel: url}.
export function parseLink(header) {
	const out = {};
	for (const m of (header || '').matchAll(/<([^>]*)>\s*;\s*rel="?([^";,]+)"?/g)) {
		out[m[2]] = m[1];
	}
	return out;
}

// assertAPIError checks that a rejected wpapi promise carries the server's
// error body {code, message, data: {status}} (wpapi forwards the parsed
// body when it has a `code`: lib/http-transport.js, invokeAndPromisify).
async function assertAPIError(promise, code, status) {
	await assert.rejects(promise, (err) => {
		assert.equal(err.code, code, JSON.stringify(err));
		assert.equal(typeof err.message, 'string');
		assert.equal(err.data?.status, status, JSON.stringify(err));
		return true;
	});
}

// defineWpapiSuite declares the suite for one mode: compat is true for
// `--compat wordpress`, false for the default names.
export function defineWpapiSuite({ compat }) {
	const mode = compat ? 'WordPress-compatibility mode' : 'default mode';
	describe(`wpapi against folio serve, ${mode}`, { timeout: 180000 }, () => {
		let server, admin, author, adminPass, authorPass, seed;
		// site returns handlers of the API namespace for a WPAPI client:
		// the client itself for wp/v2 (wpapi puts wp/v2 handlers on the
		// instance, wpapi.js bootstrap()), .namespace('svc/v2') otherwise.
		let site, endpoint, routes;
		const ns = (wp) => (compat ? wp : wp.namespace('svc/v2'));
		// client builds a WPAPI instance bound to the discovered endpoint and
		// the server's own route index, optionally with Basic credentials
		// (an application password: wpapi sends `auth` as HTTP Basic,
		// lib/http-transport.js _auth()).
		const client = (credentials) => {
			const wp = new WPAPI({ endpoint, routes });
			return credentials ? wp.auth(credentials) : wp;
		};
		const asAdmin = () => ns(client({ username: admin.login, password: adminPass }));
		const asAuthor = () => ns(client({ username: author.login, password: authorPass }));

		before(async () => {
			server = await startServer({ compat: compat ? 'wordpress' : undefined });
			admin = await server.createUser('admin', 'administrator');
			author = await server.createUser('writer', 'author');
			adminPass = await server.appPassword('admin');
			authorPass = await server.appPassword('writer');
			seed = await seedSite(server, { admin, adminPass, author, authorPass, count: POSTS });
			// Every test but the discovery one uses a client bootstrapped
			// from the root index the way WPAPI.discover does it, so that
			// one failure does not hide the others.
			endpoint = server.apiRoot;
			routes = (await WPAPI.site(endpoint).root().get()).routes;
			site = ns(client());
		});

		after(async () => {
			await server?.stop();
		});

		test('finds the API from the site URL and builds handlers from the index', async () => {
			if (compat) {
				// WPAPI.discover sends HEAD to the site URL (falling back to
				// GET), reads the Link header with rel="https://api.w.org/"
				// (lib/autodiscovery.js locateAPIRootHeader), GETs that root
				// and bootstraps from its `routes` (wpapi.js WPAPI.discover).
				// On any error after finding the root it silently falls back
				// to WordPress 4.7's built-in routes, so the custom `books`
				// type below is what proves the server's own index was used.
				const wp = await WPAPI.discover(server.url);
				assert.equal(wp._options.endpoint, server.apiRoot);
				assert.equal(typeof wp.books, 'function', 'handlers come from the server index (custom type "books")');
				assert.equal(wp.books().toString(), `${server.apiRoot}wp/v2/books`);
				const posts = await wp.posts().perPage(1);
				assert.equal(posts[0].id, seed.posts.at(-1));
			} else {
				// The default mode advertises its root with Folio's own
				// relation (https://api.folio.dev/), which WPAPI.discover
				// does not look for (it hard-codes https://api.w.org/ in
				// lib/autodiscovery.js). The same two steps with wpapi's own
				// pieces: HEAD the site for the Link header, GET the root
				// index, bootstrap with its routes; handlers then live under
				// .namespace('svc/v2').
				const headers = await WPAPI.site(server.url).root().headers();
				const links = parseLink(headers.link);
				assert.equal(links['https://api.folio.dev/'], server.apiRoot, headers.link);
				assert.equal(links['https://api.w.org/'], undefined, 'default mode keeps its own relation');
				const index = await WPAPI.site(links['https://api.folio.dev/']).root().get();
				const wp = new WPAPI({ endpoint: links['https://api.folio.dev/'], routes: index.routes });
				assert.deepEqual(index.namespaces, ['svc/v2']);
				assert.throws(() => wp.namespace('wp/v2'), /not recognized/);
				assert.equal(typeof wp.namespace('svc/v2').books, 'function');
				const posts = await wp.namespace('svc/v2').posts().perPage(1);
				assert.equal(posts[0].id, seed.posts.at(-1));
			}
			assert.equal(typeof site.books, 'function');
			assert.equal(site.posts().toString(), `${server.apiRoot}${server.namespace}/posts`);
			assert.equal(site.posts().id(5).toString(), `${server.apiRoot}${server.namespace}/posts/5`);
			assert.equal(site.categories().toString(), `${server.apiRoot}${server.namespace}/categories`);
			// The GET half of discovery: the site root answers GET with the
			// same Link header, 200 and no redirect.
			const res = await fetch(server.url + '/', { redirect: 'manual' });
			assert.equal(res.status, 200);
			const rel = compat ? 'https://api.w.org/' : 'https://api.folio.dev/';
			assert.equal(parseLink(res.headers.get('link'))[rel], server.apiRoot);
			await res.arrayBuffer();
		});

		test('lists posts with paging totals and next/prev requests', async () => {
			const first = await site.posts().perPage(PER_PAGE);
			assert.equal(first.length, PER_PAGE);
			// Newest first: the last seeded post leads.
			assert.deepEqual(first.map((p) => p.id), seed.posts.slice(-PER_PAGE).reverse());
			if (compat) {
				// wpapi reads X-WP-Total / X-WP-TotalPages and the Link
				// header into `_paging` (lib/http-transport.js
				// createPaginationObject), with ready requests for next/prev.
				assert.equal(first._paging.total, POSTS);
				assert.equal(first._paging.totalPages, 3);
				assert.ok(first._paging.next, 'page 1 has a next page');
				assert.equal(first._paging.prev, undefined, 'page 1 has no previous page');
				// Absolute next URL that keeps the original query.
				const nextURL = new URL(first._paging.links.next);
				assert.equal(nextURL.origin + nextURL.pathname, `${server.apiRoot}${server.namespace}/posts`);
				assert.equal(nextURL.searchParams.get('per_page'), String(PER_PAGE));
				assert.equal(nextURL.searchParams.get('page'), '2');

				const second = await first._paging.next.get();
				assert.deepEqual(second.map((p) => p.id), seed.posts.slice(-2 * PER_PAGE, -PER_PAGE).reverse());
				assert.equal(second._paging.total, POSTS);
				assert.ok(second._paging.next && second._paging.prev, 'page 2 has both neighbours');
				const back = await second._paging.prev.get();
				assert.deepEqual(back.map((p) => p.id), first.map((p) => p.id));
				const last = await second._paging.next.get();
				assert.equal(last.length, POSTS - 2 * PER_PAGE);
				assert.equal(last._paging.next, undefined, 'the last page has no next page');
				assert.ok(last._paging.prev);
			} else {
				// wpapi only knows the X-WP-* names (createPaginationObject
				// returns null without `x-wp-totalpages`), so in the default
				// mode a collection has no `_paging`. The totals and the
				// Link relations are there under Folio's names; read them
				// with wpapi's HEAD request (.headers()) and follow the next
				// URL with wp.url().
				assert.equal(first._paging, undefined);
				const headers = await site.posts().perPage(PER_PAGE).headers();
				assert.equal(headers['x-api-total'], String(POSTS));
				assert.equal(headers['x-api-totalpages'], '3');
				assert.equal(headers['x-wp-total'], undefined, 'default mode sends no X-WP-* headers');
				const links = parseLink(headers.link);
				assert.equal(links.prev, undefined);
				const nextURL = new URL(links.next);
				assert.equal(nextURL.origin + nextURL.pathname, `${server.apiRoot}${server.namespace}/posts`);
				assert.equal(nextURL.searchParams.get('per_page'), String(PER_PAGE));
				assert.equal(nextURL.searchParams.get('page'), '2');
				const second = await client().url(links.next).get();
				assert.deepEqual(second.map((p) => p.id), seed.posts.slice(-2 * PER_PAGE, -PER_PAGE).reverse());
				const h2 = await client().url(links.next).headers();
				const back = await client().url(parseLink(h2.link).prev).get();
				assert.deepEqual(back.map((p) => p.id), first.map((p) => p.id));
			}
		});

		test('fetches every page by following the next link', async () => {
			// The README's "getAll" recipe: request a page, then keep
			// following the next page until there is none.
			const ids = [];
			let pages = 0;
			if (compat) {
				let req = site.posts().perPage(PER_PAGE);
				while (req) {
					const page = await req.get();
					pages++;
					ids.push(...page.map((p) => p.id));
					req = page._paging && page._paging.next;
				}
			} else {
				let url = site.posts().perPage(PER_PAGE).toString();
				while (url) {
					const page = await client().url(url).get();
					const headers = await client().url(url).headers();
					pages++;
					ids.push(...page.map((p) => p.id));
					url = parseLink(headers.link).next;
				}
			}
			assert.equal(pages, 3);
			assert.deepEqual([...ids].sort((a, b) => a - b), [...seed.posts].sort((a, b) => a - b));
		});

		test('embeds the author and the terms with .embed()', async () => {
			const id = seed.posts[1]; // seeded post 2: News + Tech, tag go
			const post = await site.posts().id(id).embed();
			assert.equal(post.id, id);
			assert.ok(post._links, 'links are present');
			const authorLinks = post._links.author;
			assert.ok(Array.isArray(authorLinks) && authorLinks[0].embeddable, JSON.stringify(post._links));
			assert.equal(post._embedded.author[0].id, author.id);
			assert.equal(post._embedded.author[0].slug, author.login);
			// wp:term is one array per taxonomy, in the order of the links.
			const terms = post._embedded['wp:term'];
			assert.ok(Array.isArray(terms), JSON.stringify(Object.keys(post._embedded)));
			const names = terms.flat().map((t) => `${t.taxonomy}:${t.name}`).sort();
			assert.deepEqual(names, ['category:News', 'category:Tech', 'post_tag:go']);
			// Curies name the relation base once (compact links).
			const rel = compat ? 'https://api.w.org/' : 'https://api.folio.dev/';
			assert.equal(post._links.curies[0].name, 'wp');
			assert.equal(post._links.curies[0].href, `${rel}{rel}`);

			const list = await site.posts().perPage(2).embed();
			assert.equal(list.length, 2);
			for (const p of list) {
				assert.equal(p._embedded.author[0].id, author.id);
				assert.ok(p._embedded['wp:term'].flat().some((t) => t.name === 'News'));
			}
		});

		test('lists the categories and tags of a post', async () => {
			const id = seed.posts[5]; // seeded post 6: News + Tech, tags go + wordpress
			const cats = await site.categories().post(id);
			assert.deepEqual(cats.map((c) => c.name).sort(), ['News', 'Tech']);
			const tags = await site.tags().post(id);
			assert.deepEqual(tags.map((t) => t.name).sort(), ['go', 'wordpress']);
			const one = await site.tags().post(seed.posts[0]);
			assert.deepEqual(one.map((t) => t.id), [seed.tags.go]);
			// The term-by-id handlers work too.
			const news = await site.categories().id(seed.categories.news);
			assert.equal(news.name, 'News');
			assert.equal(news.count, POSTS);
		});

		test('creates, updates and deletes a post with an application password', async () => {
			const wp = asAuthor();
			const created = await wp.posts().create({
				title: 'Written by wpapi',
				content: 'Hello from <em>wpapi</em>.',
				status: 'publish',
				categories: [seed.categories.tech],
				tags: [seed.tags.wp],
			});
			assert.ok(created.id > 0);
			assert.equal(created.author, author.id);
			assert.equal(created.title.raw, 'Written by wpapi');
			assert.deepEqual(created.categories, [seed.categories.tech]);
			assert.deepEqual(created.tags, [seed.tags.wp]);

			// .update() is a PUT.
			const updated = await wp.posts().id(created.id).update({ title: 'Renamed by wpapi', tags: [seed.tags.go, seed.tags.wp] });
			assert.equal(updated.title.raw, 'Renamed by wpapi');
			assert.deepEqual([...updated.tags].sort(), [seed.tags.go, seed.tags.wp].sort());
			const anon = await site.posts().id(created.id);
			assert.equal(anon.title.rendered, 'Renamed by wpapi');
			assert.equal(anon.title.raw, undefined, 'view context for anonymous readers');

			// An author cannot delete someone else's post.
			const other = await asAdmin().posts().create({ title: 'Admin post', status: 'publish' });
			await assertAPIError(wp.posts().id(other.id).delete(), 'rest_cannot_delete', 403);

			// .delete() sends DELETE with no body: the post goes to the trash
			// and the body is the post as it was before (seed.md, States and
			// transitions; later WordPress answers with status "trash").
			const trashed = await wp.posts().id(created.id).delete();
			assert.equal(trashed.id, created.id);
			assert.equal(trashed.title.raw, 'Renamed by wpapi');
			const inTrash = await wp.posts().id(created.id).context('edit');
			assert.equal(inTrash.status, 'trash');
			await assertAPIError(site.posts().id(created.id).get(), 'rest_forbidden', 401);
			// force=true removes it; the body is the post as it was.
			const removed = await asAdmin().posts().id(created.id).param('force', true).delete();
			assert.equal(removed.id, created.id);
			await assertAPIError(asAdmin().posts().id(created.id).get(), 'rest_post_invalid_id', 404);
			await asAdmin().posts().id(other.id).param('force', true).delete();

			// A wrong application password is an error, never anonymous.
			const bad = ns(client({ username: author.login, password: 'abcd efgh ijkl mnop qrst uvwx' }));
			await assertAPIError(bad.posts().create({ title: 'nope' }), 'rest_authentication_failed', 401);
			// No credentials at all: the authorization-required rule.
			await assertAPIError(site.posts().create({ title: 'nope' }), 'rest_cannot_create', 401);
		});

		test('uploads media with .file() and sets it as the featured image', async () => {
			const wp = asAuthor();
			const post = await wp.posts().create({ title: 'With a picture', status: 'publish' });
			const image = png(40, 30);
			// .file(buffer, name).create(fields) posts multipart/form-data
			// with the file part named "file" and the fields beside it
			// (lib/http-transport.js _httpPost).
			const media = await wp.media().file(image, 'gradient.png').create({
				title: 'A gradient',
				alt_text: 'Blue gradient',
				caption: 'Made by the test',
				post: post.id,
			});
			assert.ok(media.id > 0);
			assert.equal(media.media_type, 'image');
			assert.equal(media.mime_type, 'image/png');
			assert.equal(media.title.raw, 'A gradient');
			assert.equal(media.alt_text, 'Blue gradient');
			assert.equal(media.post, post.id);
			assert.equal(media.media_details.width, 40);
			assert.equal(media.media_details.height, 30);
			const file = await fetch(media.source_url);
			assert.equal(file.status, 200);
			assert.deepEqual(Buffer.from(await file.arrayBuffer()), image);

			const withImage = await wp.posts().id(post.id).update({ featured_media: media.id });
			assert.equal(withImage.featured_media, media.id);
			const embedded = await site.posts().id(post.id).embed();
			assert.equal(embedded._embedded['wp:featuredmedia'][0].id, media.id);
			assert.equal(embedded._embedded['wp:featuredmedia'][0].source_url, media.source_url);
			const attached = await site.media().param('parent', post.id);
			assert.deepEqual(attached.map((m) => m.id), [media.id]);
		});

		test('overrides the method with X-HTTP-Method-Override on POST', async () => {
			// wpapi has no option of its own for method override; a caller
			// behind a proxy that only passes GET and POST sets the header
			// and sends the write with .create() (a POST).
			const wp = asAuthor();
			const post = await wp.posts().create({ title: 'Override me', status: 'draft' });
			const put = await wp.posts().id(post.id).setHeaders('X-HTTP-Method-Override', 'PUT').create({ title: 'Overridden' });
			assert.equal(put.id, post.id);
			assert.equal(put.title.raw, 'Overridden');
			const del = await wp.posts().id(post.id).setHeaders('X-HTTP-Method-Override', 'DELETE').create({ force: true });
			assert.equal(del.id, post.id);
			await assertAPIError(asAdmin().posts().id(post.id).get(), 'rest_post_invalid_id', 404);
			// Without the header the same POST on an item is an update.
			const again = await wp.posts().create({ title: 'Plain post', status: 'draft' });
			const viaPost = await wp.posts().id(again.id).create({ title: 'Updated by POST' });
			assert.equal(viaPost.title.raw, 'Updated by POST');
		});

		test('writes with a cookie session and the nonce of the settings object', async () => {
			// A page served to a signed-in browser carries the settings
			// object: window.wpApiSettings in compat mode (what WordPress
			// front ends read), window.folioApiSettings always.
			const jar = new CookieJar();
			const pages = await server.signIn(jar, author.login);
			const settings = compat ? pages.wpApiSettings : pages.folioApiSettings;
			assert.ok(settings, JSON.stringify(pages));
			if (!compat) {
				assert.equal(pages.wpApiSettings, undefined, 'no WordPress global in the default mode');
			}
			assert.equal(settings.root, server.apiRoot);
			assert.equal(settings.versionString, `${server.namespace}/`);
			// wpapi's own nonce option sends X-WP-Nonce (lib/http-transport.js
			// _auth()); the default mode's header is X-API-Nonce, set with
			// setHeaders. Node has no browser cookie store, so the session
			// cookie goes in as a header.
			const wp = compat
				? new WPAPI({ endpoint: settings.root, routes, nonce: settings.nonce })
				: new WPAPI({ endpoint: settings.root, routes }).setHeaders('X-API-Nonce', settings.nonce);
			wp.setHeaders('Cookie', jar.header(server.url));
			const created = await ns(wp).posts().create({ title: 'Cookie post', status: 'draft' });
			assert.equal(created.author, author.id);
			const removed = await ns(wp).posts().id(created.id).param('force', true).delete();
			assert.equal(removed.id, created.id);
			// The same cookie with a nonce that is not this session's.
			const stale = compat
				? new WPAPI({ endpoint: settings.root, routes, nonce: '0123456789' })
				: new WPAPI({ endpoint: settings.root, routes }).setHeaders('X-API-Nonce', '0123456789');
			stale.setHeaders('Cookie', jar.header(server.url));
			await assertAPIError(ns(stale).posts().create({ title: 'nope' }), 'rest_cookie_invalid_nonce', 403);
			// The cookie without any nonce is an anonymous caller.
			const bare = new WPAPI({ endpoint: settings.root, routes }).setHeaders('Cookie', jar.header(server.url));
			await assertAPIError(ns(bare).posts().create({ title: 'nope' }), 'rest_cannot_create', 401);

			// The refresh URL of the settings object hands this session a
			// fresh nonce as text; once signed out it answers "0" with 400.
			const endpointPath = compat ? '/wp-admin/admin-ajax.php?action=rest-nonce' : '/admin/nonce';
			assert.equal(settings.nonceEndpoint, server.url + endpointPath);
			const res = await jarFetch(jar, settings.nonceEndpoint);
			assert.equal(res.status, 200);
			const fresh = await res.text();
			assert.match(fresh, /^[0-9a-f]{10}$/);
			const withFresh = new WPAPI({ endpoint: settings.root, routes })
				.setHeaders({ Cookie: jar.header(server.url), [compat ? 'X-WP-Nonce' : 'X-API-Nonce']: fresh });
			const me = await ns(withFresh).users().me();
			assert.equal(me.id, author.id);
			await server.signOut(jar);
			const gone = await jarFetch(jar, settings.nonceEndpoint);
			assert.equal(gone.status, 400);
			assert.equal(await gone.text(), '0');
		});

		test('passes array parameters and reports errors in the API shape', async () => {
			// wpapi writes arrays as a[]=1&a[]=2 (qs, arrayFormat
			// "brackets", lib/constructors/wp-request.js _renderQuery).
			const two = await site.posts().include([seed.posts[0], seed.posts[2]]).perPage(10);
			assert.deepEqual(two.map((p) => p.id).sort((a, b) => a - b), [seed.posts[0], seed.posts[2]].sort((a, b) => a - b));
			const inTech = await site.posts().param('categories', [seed.categories.tech]).perPage(20);
			assert.equal(inTech.length, Math.floor(POSTS / 2));
			await assertAPIError(site.posts().id(999999).get(), 'rest_post_invalid_id', 404);
			await assertAPIError(site.posts().perPage(500).get(), 'rest_invalid_param', 400);
		});
	});
}
