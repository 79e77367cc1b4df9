// WordPress's own Backbone client, wp-includes/js/wp-api.js, unchanged, in
// headless Chromium against `folio serve --compat wordpress`.
//
// wp-api.js is not on npm. CI (.ci/run) takes it from Debian's `wordpress`
// package without installing it (apt-get download + dpkg-deb -x) and names
// the file in WP_API_JS. The scripts are loaded from the same unpacked
// tree, in the order WordPress's script-loader.php enqueues the `wp-api`
// handle: jquery-core and jquery-migrate (the `jquery` handle), underscore,
// backbone, wp-api-request, wp-api. Debian's package replaces underscore.js
// with a symlink into its libjs-underscore package, which is not unpacked,
// so underscore comes from e2e's own pinned npm copy then (the version
// Folio vendors in web/package.json).
//
// The page is the site root, which Folio serves to a signed-in browser with
// window.wpApiSettings {root, nonce, versionString} and no script of its
// own, as a WordPress page that enqueues wp-api gets it from
// wp_localize_script (script-loader.php, the `wp-api-request` handle).
//
// Line numbers below refer to wp-api.js of WordPress 6.1 (Debian bookworm).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstat, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { launchBrowser, png, startServer, Steps } from './harness.mjs';

const require = createRequire(import.meta.url);

// A custom post type and taxonomy, so that wp-api.js must build classes for
// routes it has no mapping for (wp-api.js 1213–1239 maps only core names).
const SITE_CONFIG = `
[site]
title = "wp-api.js test site"

[[post_types]]
name = "book"
rest_base = "books"
hierarchical = false
supports = ["title", "editor", "author", "excerpt", "revisions"]

[[taxonomies]]
name = "genre"
rest_base = "genres"
hierarchical = true
object_types = ["book"]
`;

// wordPressScripts locates wp-api.js and its dependencies from WP_API_JS.
// It returns {scripts: [{handle, file}], version} or {problem} when the
// file is not there.
async function wordPressScripts() {
	const wpApi = process.env.WP_API_JS;
	if (!wpApi) {
		return { problem: 'WP_API_JS is not set: it must name wp-includes/js/wp-api.js from WordPress (.ci/run unpacks Debian\'s wordpress package, see docs/wordpress-compat.md#tests)' };
	}
	const js = path.dirname(wpApi);
	const files = {
		wpApi,
		jquery: path.join(js, 'jquery', 'jquery.js'),
		jqueryMigrate: path.join(js, 'jquery', 'jquery-migrate.js'),
		backbone: path.join(js, 'backbone.js'),
		apiRequest: path.join(js, 'api-request.js'),
		underscore: path.join(js, 'underscore.js'),
	};
	for (const [name, file] of Object.entries(files)) {
		if (name === 'underscore') {
			continue;
		}
		try {
			const st = await lstat(file);
			if (!st.isFile()) {
				return { problem: `${file} (next to WP_API_JS) is not a regular file` };
			}
		} catch (err) {
			return { problem: `WP_API_JS=${wpApi}: ${file} is missing (${err.code})` };
		}
	}
	let underscoreFrom = 'WordPress';
	try {
		if (!(await lstat(files.underscore)).isFile()) {
			throw new Error('not a regular file');
		}
	} catch {
		// Debian: underscore.js -> ../../../javascript/underscore/underscore.js.
		files.underscore = require.resolve('underscore/underscore-umd.js');
		underscoreFrom = 'npm underscore@' + require('underscore/package.json').version;
	}
	// wp-includes/version.php sits two levels above wp-includes/js.
	let version = 'unknown';
	try {
		const php = await readFile(path.join(js, '..', 'version.php'), 'utf8');
		version = /\$wp_version = '([^']+)'/.exec(php)?.[1] ?? version;
	} catch {
		// The version is only reported, not needed.
	}
	return {
		version,
		underscoreFrom,
		scripts: [
			{ handle: 'jquery-core', file: files.jquery },
			{ handle: 'jquery-migrate', file: files.jqueryMigrate },
			{ handle: 'underscore', file: files.underscore },
			{ handle: 'backbone', file: files.backbone },
			{ handle: 'wp-api-request', file: files.apiRequest },
			{ handle: 'wp-api', file: files.wpApi },
		],
	};
}

const wp = await wordPressScripts();
const inCI = process.env.CI === 'true';

// Without the file the suites are skipped; in CI that is a failure of its
// own, with the reason.
if (wp.problem && inCI) {
	test('WordPress wp-api.js is available (CI=true)', () => {
		assert.fail(wp.problem);
	});
}
const skip = wp.problem ?? false;

// addWpScripts adds the WordPress scripts to page in enqueue order, each as
// a classic <script src> on the site's own origin: the page's
// Content-Security-Policy allows only those, so the browser's requests for
// them are answered here with the files (WP_API_JS and its neighbours).
async function addWpScripts(page) {
	const origin = new URL(page.url()).origin;
	const prefix = origin + '/__wp-test-scripts/';
	await page.unroute(prefix + '**');
	await page.route(prefix + '**', async (route) => {
		const i = Number(route.request().url().slice(prefix.length).replace(/\.js$/, ''));
		await route.fulfill({ contentType: 'application/javascript', body: await readFile(wp.scripts[i].file, 'utf8') });
	});
	for (let i = 0; i < wp.scripts.length; i++) {
		await page.addScriptTag({ url: prefix + i + '.js' });
	}
}

describe('WordPress wp-api.js against compatibility mode', { skip }, () => {
	let server, browser, page, admin, appPass;
	let news, reviews, tagGo, featured, authorPost, book;
	// requests records the API requests the page makes: method, URL and the
	// X-WP-Nonce header.
	const requests = [];

	// api calls the REST API from Node as the administrator (Basic auth).
	const api = (method, route, body, headers) => server.api(method, route, { user: 'admin', pass: appPass, body, headers });
	const created = (res) => {
		assert.equal(res.status, 201, JSON.stringify(res.body));
		return res.body.id;
	};

	before(async () => {
		server = await startServer({ compat: 'wordpress', config: SITE_CONFIG });
		admin = await server.createUser('admin');
		appPass = await server.appPassword('admin');
		news = created(await api('POST', 'categories', { name: 'News' }));
		reviews = created(await api('POST', 'categories', { name: 'Reviews' }));
		tagGo = created(await api('POST', 'tags', { name: 'Go' }));
		for (let i = 1; i <= 11; i++) {
			created(await api('POST', 'posts', { title: `Paging post ${i}`, content: 'x', status: 'publish', date: `2024-01-${String(i).padStart(2, '0')}T10:00:00` }));
		}
		featured = created(await api('POST', 'media', png(), {
			'Content-Type': 'image/png',
			'Content-Disposition': 'attachment; filename="cover.png"',
		}));
		authorPost = created(await api('POST', 'posts', {
			title: 'Post with terms',
			content: 'Body',
			status: 'publish',
			date: '2024-02-01T10:00:00',
			categories: [news, reviews],
			tags: [tagGo],
			featured_media: featured,
		}));
		created(await api('POST', 'pages', { title: 'About', content: 'About us', status: 'publish' }));
		book = created(await api('POST', 'books', { title: 'A book', content: 'Pages', status: 'publish' }));
		created(await api('POST', 'comments', { post: authorPost, content: 'A comment' }));

		browser = await launchBrowser();
		page = await browser.context.newPage();
		page.on('request', (req) => {
			if (req.url().startsWith(server.url + '/wp-json/')) {
				requests.push({ method: req.method(), url: req.url(), nonce: req.headers()['x-wp-nonce'] ?? null });
			}
		});
		if (wp.scripts) {
			process.stderr.write(`wp-api.js from WordPress ${wp.version} (${process.env.WP_API_JS}); underscore from ${wp.underscoreFrom}\n`);
		}
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	// loadWpApi adds the WordPress scripts to the current page in enqueue
	// order, each as a classic <script src> on the site's own origin (the
	// page's Content-Security-Policy allows only those; the browser's
	// requests for them are answered here with the files), and waits for
	// wp.api.loadPromise (wp-api.js 1548).
	async function loadWpApi() {
		await addWpScripts(page);
		return page.evaluate(() => new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error('wp.api.loadPromise did not settle within 15s')), 15000);
			window.wp.api.loadPromise.then((endpoint) => {
				clearTimeout(timer);
				resolve({
					apiRoot: endpoint.get('apiRoot'),
					versionString: endpoint.get('versionString'),
					nonce: endpoint.get('nonce'),
					models: Object.keys(window.wp.api.models).sort(),
					collections: Object.keys(window.wp.api.collections).sort(),
				});
			}, (err) => {
				clearTimeout(timer);
				reject(new Error('wp.api.loadPromise rejected: ' + JSON.stringify(err)));
			});
		}));
	}

	test('signed in, the site root carries wpApiSettings and no other script', async (t) => {
		const steps = new Steps(t.name, page);
		await steps.step('sign in through /login', async () => {
			await page.goto(server.url + '/login');
			await page.getByLabel('Username or email address').fill('admin');
			await page.getByLabel('Password').fill(admin.password);
			await page.getByRole('button', { name: 'Sign in' }).click();
			await page.waitForURL((u) => u.pathname === '/admin/');
		});
		const s = await steps.step('open the site root', async () => {
			await page.goto(server.url + '/');
			return page.evaluate(() => ({
				settings: window.wpApiSettings,
				wp: typeof window.wp,
				jQuery: typeof window.jQuery,
				Backbone: typeof window.Backbone,
				scripts: document.scripts.length,
			}));
		});
		assert.equal(s.settings.root, server.url + '/wp-json/');
		assert.equal(s.settings.versionString, 'wp/v2/');
		assert.match(s.settings.nonce, /^[0-9a-f]{10}$/);
		// Nothing of Folio's own client is on the page: what runs below is
		// WordPress's code only.
		assert.equal(s.wp, 'undefined');
		assert.equal(s.jQuery, 'undefined');
		assert.equal(s.Backbone, 'undefined');
		assert.equal(s.scripts, 1);
	});

	test('loadPromise resolves with models and collections from the schema', async (t) => {
		const steps = new Steps(t.name, page);
		requests.length = 0;
		const r = await steps.step('inject the WordPress scripts', () => loadWpApi());
		// The schema is read from root + versionString (wp-api.js 944–950,
		// 1174) without a nonce: the Schema model has no nonce() (857).
		assert.deepEqual(requests.map((q) => `${q.method} ${q.url}`), [`GET ${server.url}/wp-json/wp/v2/`]);
		assert.equal(r.apiRoot, server.url + '/wp-json/');
		assert.equal(r.versionString, 'wp/v2/');
		assert.match(r.nonce, /^[0-9a-f]{10}$/);
		// Class names: wp-api.js 1279–1390 (models), 1393–1480 (collections),
		// renamed by the mapping at 1213–1239; `users/me` is a model because
		// modelEndpoints defaults to ['me', 'settings'] (1515).
		for (const m of ['Post', 'Page', 'Media', 'Category', 'Tag', 'User', 'UsersMe', 'Comment', 'PostRevision', 'PageRevision', 'Type', 'Status', 'Taxonomy', 'Books', 'Genres']) {
			assert.ok(r.models.includes(m), `model ${m} in ${r.models}`);
		}
		for (const c of ['Posts', 'Pages', 'Media', 'Categories', 'Tags', 'Users', 'Comments', 'PostRevisions', 'PageRevisions', 'Types', 'Statuses', 'Taxonomies', 'Books', 'Genres']) {
			assert.ok(r.collections.includes(c), `collection ${c} in ${r.collections}`);
		}
		const u = await steps.step('inspect URLs and helpers', () => page.evaluate(() => {
			const { models, collections } = window.wp.api;
			const post = new models.Post({ id: 7 });
			return {
				post: post.url(),
				newPost: new models.Post().url(),
				revisions: new collections.PostRevisions([], { parent: 7 }).url(),
				me: new models.UsersMe().url(),
				book: new models.Books({ id: 3 }).url(),
				media: new collections.Media().url(),
				postHelpers: ['getCategories', 'getTags', 'getAuthorUser', 'getFeaturedMedia', 'getRevisions', 'getDate', 'setDate']
					.filter((h) => typeof post[h] === 'function'),
				postMethods: models.Post.prototype.methods,
				categoryForce: new models.Category().requireForceForDelete === true,
				postForce: new models.Post().requireForceForDelete === true,
			};
		}));
		assert.equal(u.post, `${server.url}/wp-json/wp/v2/posts/7`);
		assert.equal(u.newPost, `${server.url}/wp-json/wp/v2/posts`);
		assert.equal(u.revisions, `${server.url}/wp-json/wp/v2/posts/7/revisions`);
		assert.equal(u.me, `${server.url}/wp-json/wp/v2/users/me`);
		assert.equal(u.book, `${server.url}/wp-json/wp/v2/books/3`);
		assert.equal(u.media, `${server.url}/wp-json/wp/v2/media`);
		// The mixins are chosen from the POST/PUT args of the item route
		// (wp-api.js 753–797) and the PostRevisions collection.
		assert.deepEqual(u.postHelpers, ['getCategories', 'getTags', 'getAuthorUser', 'getFeaturedMedia', 'getRevisions', 'getDate', 'setDate']);
		assert.deepEqual(u.postMethods, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
		assert.equal(u.categoryForce, true);
		assert.equal(u.postForce, false);
	});

	test('collections page with X-WP-Total and X-WP-TotalPages: hasMore and more', async (t) => {
		const steps = new Steps(t.name, page);
		const totals = await api('GET', 'posts?per_page=5');
		assert.equal(totals.status, 200);
		const total = Number(totals.headers.get('x-wp-total'));
		const totalPages = Number(totals.headers.get('x-wp-totalpages'));
		assert.equal(total, 12);
		assert.equal(totalPages, 3);
		requests.length = 0;
		const r = await steps.step('page through posts', () => page.evaluate(async () => {
			const posts = new window.wp.api.collections.Posts();
			const seen = [];
			const before = posts.hasMore();
			await posts.fetch({ data: { per_page: 5 } });
			const first = { ...posts.state, length: posts.length, hasMore: posts.hasMore() };
			seen.push(...posts.pluck('id'));
			const pages = [];
			while (posts.hasMore()) {
				await posts.more();
				pages.push({ currentPage: posts.state.currentPage, length: posts.length, hasMore: posts.hasMore() });
				seen.push(...posts.pluck('id'));
			}
			return {
				before,
				first,
				pages,
				seen,
				afterEnd: posts.more(),
				titles: posts.map((p) => p.get('title').rendered),
			};
		}));
		// State from the headers (wp-api.js 1041–1054), hasMore (1096–1104).
		assert.equal(r.before, null);
		assert.equal(r.first.totalObjects, total);
		assert.equal(r.first.totalPages, totalPages);
		assert.equal(r.first.currentPage, 1);
		assert.equal(r.first.length, 5);
		assert.equal(r.first.hasMore, true);
		assert.deepEqual(r.first.data, { per_page: 5 });
		assert.deepEqual(r.pages, [
			{ currentPage: 2, length: 5, hasMore: true },
			{ currentPage: 3, length: 2, hasMore: false },
		]);
		assert.equal(new Set(r.seen).size, total, 'every post once');
		// more() past the end returns false without a request (1077–1079).
		assert.equal(r.afterEnd, false);
		assert.deepEqual(r.titles, ['Paging post 2', 'Paging post 1']);
		// jQuery serialises data into the query; every request carries the
		// nonce (1000–1009).
		assert.deepEqual(requests.map((q) => new URL(q.url).search), ['?per_page=5', '?per_page=5&page=2', '?per_page=5&page=3']);
		for (const q of requests) {
			assert.match(q.nonce, /^[0-9a-f]{10}$/);
		}
	});

	test('a post and its helpers: getCategories, getTags, getAuthorUser, getFeaturedMedia, getDate', async (t) => {
		const steps = new Steps(t.name, page);
		requests.length = 0;
		const r = await steps.step('fetch a post and follow its helpers', () => page.evaluate(async (id) => {
			const post = new window.wp.api.models.Post({ id });
			await post.fetch();
			// getCategories/getTags return the jqXHR of Collection#fetch,
			// which resolves with the JSON array (wp-api.js 659–671, 575–587).
			const categories = await post.getCategories();
			const tags = await post.getTags();
			const author = await post.getAuthorUser();
			const media = await post.getFeaturedMedia();
			return {
				title: post.get('title').rendered,
				categories: categories.map((c) => c.name).sort(),
				tags: tags.map((c) => c.name),
				author: { id: author.get('id'), name: author.get('name'), isUser: author instanceof window.wp.api.models.User },
				media: { id: media.get('id'), source: media.get('source_url'), isMedia: media instanceof window.wp.api.models.Media },
				date: post.getDate().toISOString(),
			};
		}, authorPost));
		assert.equal(r.title, 'Post with terms');
		assert.deepEqual(r.categories, ['News', 'Reviews']);
		assert.deepEqual(r.tags, ['Go']);
		assert.deepEqual(r.author, { id: admin.id, name: 'admin', isUser: true });
		assert.equal(r.media.id, featured);
		assert.equal(r.media.isMedia, true);
		assert.match(r.media.source, /^http:\/\/127\.0\.0\.1:\d+\/.*cover.*\.png$/);
		// The site's time zone is UTC: date 2024-02-01T10:00:00 is that
		// instant (parseISO8601, wp-api.js 105–140, reads it as UTC).
		assert.equal(r.date, '2024-02-01T10:00:00.000Z');
		const paths = requests.map((q) => {
			const u = new URL(q.url);
			return decodeURIComponent(u.pathname + u.search);
		});
		assert.deepEqual(paths, [
			`/wp-json/wp/v2/posts/${authorPost}`,
			`/wp-json/wp/v2/categories?include[]=${news}&include[]=${reviews}`,
			`/wp-json/wp/v2/tags?include[]=${tagGo}`,
			`/wp-json/wp/v2/users/${admin.id}`,
			`/wp-json/wp/v2/media/${featured}`,
		]);
	});

	test('with _embed the helpers use the embedded author and featured media', async (t) => {
		const steps = new Steps(t.name, page);
		requests.length = 0;
		const r = await steps.step('fetch with _embed and call the helpers', () => page.evaluate(async (id) => {
			const posts = new window.wp.api.collections.Posts();
			await posts.fetch({ data: { include: [id], _embed: true } });
			const post = posts.get(id);
			// buildModelGetter (wp-api.js 371–412) takes the object from
			// _embedded[rel] by id and fetches only when embedCheckField
			// (author: name, media: source_url) is missing.
			const author = await post.getAuthorUser();
			const media = await post.getFeaturedMedia();
			return { length: posts.length, author: author.get('name'), media: media.get('source_url') };
		}, authorPost));
		assert.equal(r.length, 1);
		assert.equal(r.author, 'admin');
		assert.match(r.media, /cover.*\.png$/);
		assert.equal(requests.length, 1, 'no request beyond the collection: ' + JSON.stringify(requests));
		assert.equal(decodeURIComponent(new URL(requests[0].url).search), `?include[]=${authorPost}&_embed=true`);
	});

	test('a rejected save gives the error body to Backbone', async (t) => {
		const steps = new Steps(t.name, page);
		const r = await steps.step('save an invalid post', () => page.evaluate(async () => {
			const post = new window.wp.api.models.Post({ title: 'Bad status', status: 'not-a-status' });
			try {
				await post.save();
				return { saved: true };
			} catch (xhr) {
				return { status: xhr.status, body: xhr.responseJSON, isNew: post.isNew() };
			}
		}));
		assert.equal(r.status, 400);
		assert.equal(r.body.code, 'rest_invalid_param');
		assert.equal(r.body.data.status, 400);
		assert.equal(typeof r.body.message, 'string');
		assert.equal(r.isNew, true);
	});

	test('create, update and destroy a post with Backbone save and destroy', async (t) => {
		const steps = new Steps(t.name, page);
		requests.length = 0;
		const made = await steps.step('save a new post', () => page.evaluate(async () => {
			const post = new window.wp.api.models.Post({ title: 'Written by wp-api.js', content: 'First version', status: 'publish' });
			await post.save();
			window.savedPost = post;
			return { id: post.get('id'), title: post.get('title'), status: post.get('status'), url: post.url() };
		}));
		assert.ok(made.id > 0);
		assert.equal(made.title.raw, 'Written by wp-api.js');
		assert.equal(made.status, 'publish');
		assert.equal(made.url, `${server.url}/wp-json/wp/v2/posts/${made.id}`);
		assert.equal(requests.length, 1);
		assert.equal(requests[0].method, 'POST');
		assert.equal(requests[0].url, `${server.url}/wp-json/wp/v2/posts`);
		// The nonce is sent by wp-api.js itself (wp-api.js 857–869).
		assert.match(requests[0].nonce, /^[0-9a-f]{10}$/);
		const stored = await api('GET', `posts/${made.id}?context=edit`);
		assert.equal(stored.status, 200);
		assert.equal(stored.body.title.raw, 'Written by wp-api.js');
		assert.equal(stored.body.author, admin.id);

		requests.length = 0;
		const updated = await steps.step('change the title and save again', () => page.evaluate(async () => {
			// Backbone sends the whole model back with PUT, objects such as
			// content {raw, rendered, protected} and read-only fields included.
			const post = window.savedPost;
			post.set('title', 'Edited by wp-api.js');
			await post.save();
			return { title: post.get('title'), content: post.get('content').raw };
		}));
		assert.equal(updated.title.raw, 'Edited by wp-api.js');
		assert.equal(updated.content, 'First version');
		assert.deepEqual(requests.map((q) => `${q.method} ${q.url}`), [`PUT ${server.url}/wp-json/wp/v2/posts/${made.id}`]);
		const edited = await api('GET', `posts/${made.id}?context=edit`);
		assert.equal(edited.body.title.raw, 'Edited by wp-api.js');
		assert.equal(edited.body.content.raw, 'First version');
		assert.equal(edited.body.status, 'publish');

		const revs = await steps.step('read its revisions with getRevisions', () => page.evaluate(async () => {
			const revisions = await window.savedPost.getRevisions();
			// Revisions keep beta13's shape: title is a string
			// (reference.md §10.10); wp-api.js does not read it.
			return revisions.map((r) => ({ parent: r.get('parent'), title: r.get('title'), isRevision: r instanceof window.wp.api.models.PostRevision }));
		}));
		assert.ok(revs.length >= 1, 'at least one revision');
		assert.ok(revs.every((r) => r.parent === made.id && r.isRevision), JSON.stringify(revs));
		assert.ok(revs.some((r) => r.title === 'Edited by wp-api.js'), JSON.stringify(revs));

		requests.length = 0;
		const gone = await steps.step('destroy it', () => page.evaluate(async () => {
			const post = window.savedPost;
			const posts = new window.wp.api.collections.Posts([post]);
			await post.destroy({ wait: true });
			return { inCollection: posts.length };
		}));
		assert.equal(gone.inCollection, 0);
		// Posts are trashable, so no ?force=true (wp-api.js 813, 826–831, 883–885).
		assert.deepEqual(requests.map((q) => `${q.method} ${q.url}`), [`DELETE ${server.url}/wp-json/wp/v2/posts/${made.id}`]);
		assert.match(requests[0].nonce, /^[0-9a-f]{10}$/);
		const trashed = await api('GET', `posts/${made.id}?context=edit`);
		assert.equal(trashed.status, 200);
		assert.equal(trashed.body.status, 'trash');
	});

	test('setCategoriesWithCollection and setDate save the whole post back unchanged otherwise', async (t) => {
		const steps = new Steps(t.name, page);
		const before = await api('GET', `posts/${authorPost}?context=edit`);
		assert.equal(before.status, 200);
		requests.length = 0;
		await steps.step('keep only News', () => page.evaluate(async ({ id, news }) => {
			const post = new window.wp.api.models.Post({ id });
			await post.fetch({ data: { context: 'edit' } });
			const cats = new window.wp.api.collections.Categories();
			await cats.fetch({ data: { include: [news] } });
			// wp-api.js 726–731: sets categories to the collection's ids and
			// saves the whole model.
			await post.setCategoriesWithCollection(cats);
		}, { id: authorPost, news }));
		assert.deepEqual(requests.map((q) => q.method), ['GET', 'GET', 'PUT']);
		const mid = await api('GET', `posts/${authorPost}?context=edit`);
		assert.deepEqual(mid.body.categories, [news]);
		for (const f of ['tags', 'featured_media', 'date', 'date_gmt', 'slug', 'status', 'author', 'sticky', 'format', 'comment_status', 'ping_status']) {
			assert.deepEqual(mid.body[f], before.body[f], f);
		}
		assert.equal(mid.body.title.raw, before.body.title.raw);
		assert.equal(mid.body.content.raw, before.body.content.raw);

		const r = await steps.step('move the date with setDate', () => page.evaluate(async (id) => {
			const post = new window.wp.api.models.Post({ id });
			await post.fetch({ data: { context: 'edit' } });
			// setDate writes an ISO string with milliseconds and Z into
			// `date` (wp-api.js 327–336); the old date_gmt is sent along.
			post.setDate(new Date(Date.UTC(2023, 5, 15, 8, 30, 0)));
			const sent = { date: post.get('date'), date_gmt: post.get('date_gmt') };
			await post.save();
			return { sent, date: post.get('date'), dateGmt: post.get('date_gmt'), got: post.getDate('date_gmt').toISOString() };
		}, authorPost));
		assert.equal(r.sent.date, '2023-06-15T08:30:00.000Z');
		assert.equal(r.sent.date_gmt, before.body.date_gmt);
		assert.equal(r.date, '2023-06-15T08:30:00');
		assert.equal(r.dateGmt, '2023-06-15T08:30:00');
		assert.equal(r.got, '2023-06-15T08:30:00.000Z');
	});

	test('terms need force: a category is created and destroyed with ?force=true', async (t) => {
		const steps = new Steps(t.name, page);
		requests.length = 0;
		const id = await steps.step('create and destroy a category', () => page.evaluate(async () => {
			const cat = new window.wp.api.models.Category({ name: 'Temporary' });
			await cat.save();
			const id = cat.get('id');
			await cat.destroy({ wait: true });
			return id;
		}));
		assert.ok(id > 0);
		assert.deepEqual(requests.map((q) => `${q.method} ${q.url}`), [
			`POST ${server.url}/wp-json/wp/v2/categories`,
			`DELETE ${server.url}/wp-json/wp/v2/categories/${id}?force=true`,
		]);
		const res = await api('GET', `categories/${id}`);
		assert.equal(res.status, 404);
		assert.equal(res.body.code, 'rest_term_invalid');
	});

	test('a comment is written, moderated and trashed through its model', async (t) => {
		const steps = new Steps(t.name, page);
		requests.length = 0;
		const r = await steps.step('save, edit and destroy a comment', () => page.evaluate(async (post) => {
			const comment = new window.wp.api.models.Comment({ post, content: 'From wp-api.js' });
			await comment.save();
			const id = comment.get('id');
			comment.set('status', 'hold');
			await comment.save();
			const held = comment.get('status');
			await comment.destroy({ wait: true });
			return { id, held, author: comment.get('author') };
		}, authorPost));
		assert.ok(r.id > 0);
		assert.equal(r.held, 'hold');
		assert.equal(r.author, admin.id);
		// Comments are trashable: no ?force=true (wp-api.js 813).
		assert.deepEqual(requests.map((q) => `${q.method} ${q.url}`), [
			`POST ${server.url}/wp-json/wp/v2/comments`,
			`PUT ${server.url}/wp-json/wp/v2/comments/${r.id}`,
			`DELETE ${server.url}/wp-json/wp/v2/comments/${r.id}`,
		]);
		const res = await api('GET', `comments/${r.id}?context=edit`);
		assert.equal(res.status, 200);
		assert.equal(res.body.status, 'trash');
	});

	test('users/me, pages, comments, media and the custom type', async (t) => {
		const steps = new Steps(t.name, page);
		const r = await steps.step('fetch them', () => page.evaluate(async () => {
			const { models, collections } = window.wp.api;
			const me = new models.UsersMe();
			await me.fetch({ data: { context: 'edit' } });
			const pages = new collections.Pages();
			await pages.fetch();
			const comments = new collections.Comments();
			await comments.fetch();
			const media = new collections.Media();
			await media.fetch();
			const books = new collections.Books();
			await books.fetch();
			const genre = new models.Genres({ name: 'Fiction' });
			await genre.save();
			return {
				me: { id: me.get('id'), username: me.get('username'), roles: me.get('roles') },
				pages: pages.map((p) => p.get('title').rendered),
				pagesTotal: pages.state.totalObjects,
				comments: comments.map((c) => c.get('post')),
				media: media.map((m) => m.get('media_type')),
				books: books.map((b) => [b.get('id'), b.get('type')]),
				genre: [genre.get('id') > 0, genre.get('taxonomy')],
			};
		}));
		assert.deepEqual(r.me, { id: admin.id, username: 'admin', roles: ['administrator'] });
		assert.deepEqual(r.pages, ['About']);
		assert.equal(r.pagesTotal, 1);
		assert.deepEqual(r.comments, [authorPost]);
		assert.deepEqual(r.media, ['image']);
		assert.deepEqual(r.books, [[book, 'book']]);
		assert.deepEqual(r.genre, [true, 'genre']);
	});

	test('wp-api.js keeps the nonce it is given back and writes keep working', async (t) => {
		const steps = new Steps(t.name, page);
		const r = await steps.step('compare nonces', () => page.evaluate(async () => {
			const endpoint = window.wp.api.endpoints.first();
			const xhr = new window.wp.api.models.UsersMe().fetch();
			await xhr;
			const returned = xhr.getResponseHeader('X-WP-Nonce');
			const post = new window.wp.api.models.Post({ title: 'After the nonce', status: 'draft' });
			await post.save();
			return { returned, kept: endpoint.get('nonce'), id: post.get('id') };
		}));
		// The response header carries a nonce and wp-api.js stores it on the
		// endpoint when it differs (wp-api.js 871–879).
		assert.match(r.returned, /^[0-9a-f]{10}$/);
		assert.equal(r.kept, r.returned);
		assert.ok(r.id > 0);
	});

	test('a second page load uses the schema cached in sessionStorage', async (t) => {
		const steps = new Steps(t.name, page);
		const key = await steps.step('read the cache key', () => page.evaluate(() => Object.keys(window.sessionStorage)));
		assert.deepEqual(key, [`wp-api-schema-model${server.url}/wp-json/wp/v2/`]);
		await steps.step('reload the site root', () => page.goto(server.url + '/'));
		requests.length = 0;
		const r = await steps.step('inject the WordPress scripts again', () => loadWpApi());
		// wp-api.js 1165–1172: no request for the schema this time.
		assert.deepEqual(requests, []);
		assert.ok(r.models.includes('Post') && r.collections.includes('Books'));
		const n = await steps.step('fetch with the cached classes', () => page.evaluate(async () => {
			const posts = new window.wp.api.collections.Posts();
			await posts.fetch({ data: { per_page: 1 } });
			return posts.state.totalObjects;
		}));
		assert.equal(n, 12);
	});
});

describe('WordPress wp-api.js for visitors', { skip }, () => {
	let server, browser;

	before(async () => {
		server = await startServer({ compat: 'wordpress' });
		await server.createUser('admin');
		const pass = await server.appPassword('admin');
		for (let i = 1; i <= 3; i++) {
			const res = await server.api('POST', 'posts', { user: 'admin', pass, body: { title: `Public post ${i}`, status: 'publish' } });
			assert.equal(res.status, 201, JSON.stringify(res.body));
		}
		browser = await launchBrowser();
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	test('without wpApiSettings wp-api.js finds /wp-json/ itself and reads without a nonce', async (t) => {
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		const nonces = [];
		page.on('request', (req) => {
			if (req.url().includes('/wp-json/')) {
				nonces.push(req.headers()['x-wp-nonce'] ?? null);
			}
		});
		try {
			await steps.step('open the site root as a visitor', async () => {
				await page.goto(server.url + '/');
				assert.equal(await page.evaluate(() => typeof window.wpApiSettings), 'undefined');
			});
			await addWpScripts(page);
			const r = await steps.step('read posts and try to write', () => page.evaluate(async () => {
				const endpoint = await window.wp.api.loadPromise;
				const posts = new window.wp.api.collections.Posts();
				await posts.fetch();
				let denied;
				try {
					await new window.wp.api.models.Post({ title: 'Visitor' }).save();
				} catch (xhr) {
					denied = { status: xhr.status, code: xhr.responseJSON.code };
				}
				return {
					apiRoot: endpoint.get('apiRoot'),
					titles: posts.map((p) => p.get('title').rendered),
					total: posts.state.totalObjects,
					denied,
				};
			}));
			// wp-api.js 1123–1126: the default root is origin + /wp-json/.
			assert.equal(r.apiRoot, server.url + '/wp-json/');
			assert.deepEqual(r.titles, ['Public post 3', 'Public post 2', 'Public post 1']);
			assert.equal(r.total, 3);
			assert.deepEqual(r.denied, { status: 401, code: 'rest_cannot_create' });
			assert.ok(nonces.length >= 3);
			assert.ok(nonces.every((n) => n === null), JSON.stringify(nonces));
		} finally {
			await page.close();
		}
	});
});
