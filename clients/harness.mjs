// Test harness for the client acceptance tests: builds folio from the tree,
// runs `folio serve --addr 127.0.0.1:0` on a fresh data directory (in
// WordPress-compatibility mode or the default mode), creates users and
// application passwords with the CLI, signs a "browser" in through
// POST /login and reads the settings object a signed-in page carries.
//
// It shares only the dependency-free testkit/folio.mjs with e2e/: this
// directory installs and runs on its own (`cd clients && npm ci && node
// --test`).
import vm from 'node:vm';
import { PASSWORD, startFolio } from '../testkit/folio.mjs';

export { folioBinary, PASSWORD, png, repoRoot } from '../testkit/folio.mjs';

// nativeFetch is Node's own fetch, kept before installBrowser replaces
// globalThis.fetch: the harness's own requests (seeding, sign-in, checks)
// never go through the emulated browser or its cookie jar.
export const nativeFetch = globalThis.fetch;

// The configuration every test server starts with: a custom post type, so
// that a client bootstrapped from the server's own index can be told apart
// from one that fell back to built-in WordPress routes.
export const SITE_CONFIG = `
[site]
title = "Client acceptance"

[[post_types]]
name = "book"
rest_base = "books"
hierarchical = false
supports = ["title", "editor", "author", "thumbnail", "excerpt"]
`;

// startServer runs `folio serve` on a free loopback port with a fresh data
// directory and SITE_CONFIG (testkit/folio.mjs startFolio), and resolves
// once it prints its address. compat: 'wordpress' adds `--compat
// wordpress`.
export async function startServer({ compat } = {}) {
	const server = await startFolio({ compat, config: SITE_CONFIG, label: 'clients' });
	const { url } = server;
	const prefix = compat === 'wordpress' ? '/wp-json' : '/api';
	const namespace = compat === 'wordpress' ? 'wp/v2' : 'svc/v2';
	Object.assign(server, {
		// apiRoot is the API root URL with its trailing slash, as the
		// settings object names it.
		apiRoot: `${url}${prefix}/`,
		namespace,
		// api calls the REST API with plain fetch and Basic authentication
		// (for seeding and for checking what a client did, never for the
		// behaviour under test).
		async api(method, route, { user, pass, body } = {}) {
			const headers = { Accept: 'application/json' };
			if (user) {
				headers.Authorization = 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
			}
			let payload;
			if (body !== undefined) {
				headers['Content-Type'] = 'application/json';
				payload = JSON.stringify(body);
			}
			const res = await nativeFetch(`${server.apiRoot}${namespace}/${route}`, {
				method, headers, body: payload, signal: AbortSignal.timeout(30000),
			});
			const text = await res.text();
			let json;
			try {
				json = JSON.parse(text);
			} catch {
				json = text;
			}
			return { status: res.status, headers: res.headers, body: json };
		},
		// signIn signs login in through the sign-in form (POST /login with
		// log and pwd), keeping the session cookie in jar like a browser
		// does, then loads the admin page and returns the settings objects
		// its <script> defines: {folioApiSettings, wpApiSettings}.
		async signIn(jar, login) {
			const body = new URLSearchParams({ log: login, pwd: PASSWORD, redirect_to: '/admin/' });
			const res = await jarFetch(jar, `${url}/login`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
				body,
				redirect: 'manual',
			});
			if (res.status !== 302) {
				throw new Error(`POST /login answered ${res.status}: ${await res.text()}`);
			}
			await res.arrayBuffer();
			return pageSettings(jar, `${url}/admin/`);
		},
		// signOut signs the jar's session out (POST /logout).
		async signOut(jar) {
			const res = await jarFetch(jar, `${url}/logout`, { method: 'POST', redirect: 'manual' });
			await res.arrayBuffer();
			if (res.status !== 302) {
				throw new Error(`POST /logout answered ${res.status}`);
			}
		},
	});
	return server;
}

// pageSettings loads a page with the jar's cookies and runs its inline
// scripts in an empty window, as a browser would, returning the settings
// objects they define (undefined when the page defines none).
export async function pageSettings(jar, pageURL) {
	const res = await jarFetch(jar, pageURL, { redirect: 'manual' });
	const html = await res.text();
	if (res.status !== 200) {
		throw new Error(`GET ${pageURL} answered ${res.status}: ${html.slice(0, 200)}`);
	}
	const window = {};
	// Inline scripts carry the response's CSP nonce (<script nonce="...">).
	for (const m of html.matchAll(/<script(?:\s+nonce="[^"]*")?>([\s\S]*?)<\/script>/g)) {
		// Only the settings script: other inline scripts of a page may
		// need a DOM this sandbox does not have.
		if (/ApiSettings\s*=/.test(m[1])) {
			vm.runInNewContext(m[1], { window }, { timeout: 1000 });
		}
	}
	return { folioApiSettings: window.folioApiSettings, wpApiSettings: window.wpApiSettings };
}

// CookieJar keeps cookies per origin the simple way a browser does for one
// site: Set-Cookie stores or replaces a cookie by name, Max-Age<=0 or an
// Expires in the past removes it, and every request to the same origin
// sends them back. Path and domain scoping are not needed for one
// loopback site whose cookies all use Path=/.
export class CookieJar {
	constructor() {
		this.byOrigin = new Map();
	}

	// header returns the Cookie header value for url ('' when none).
	header(url) {
		const jar = this.byOrigin.get(new URL(url).origin);
		if (!jar) {
			return '';
		}
		return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
	}

	// store records the Set-Cookie headers of a response from url.
	store(url, response) {
		const origin = new URL(url).origin;
		let jar = this.byOrigin.get(origin);
		if (!jar) {
			jar = new Map();
			this.byOrigin.set(origin, jar);
		}
		for (const line of response.headers.getSetCookie()) {
			const [pair, ...attrs] = line.split(';');
			const eq = pair.indexOf('=');
			const name = pair.slice(0, eq).trim();
			const value = pair.slice(eq + 1).trim();
			let expired = value === '';
			for (const a of attrs) {
				const [k, v = ''] = a.split('=');
				const key = k.trim().toLowerCase();
				if (key === 'max-age' && parseInt(v, 10) <= 0) {
					expired = true;
				}
				if (key === 'expires' && Date.parse(v) < Date.now()) {
					expired = true;
				}
			}
			if (expired) {
				jar.delete(name);
			} else {
				jar.set(name, value);
			}
		}
	}

	clear() {
		this.byOrigin.clear();
	}
}

// jarFetch is fetch with a cookie jar: it sends the jar's cookies for the
// URL's origin and stores the cookies the response sets. Every request is
// bounded by a 30 s timeout.
export async function jarFetch(jar, url, init = {}) {
	const headers = new Headers(init.headers || {});
	const cookie = jar.header(url);
	if (cookie && init.credentials !== 'omit') {
		headers.set('Cookie', cookie);
	}
	const res = await nativeFetch(url, { ...init, headers, signal: init.signal || AbortSignal.timeout(30000) });
	jar.store(url, res);
	return res;
}

// installBrowser makes this Node process look like the browser page at
// pageURL to libraries that expect one (@wordpress/api-fetch): a global
// window with location, navigator.onLine, and a globalThis.fetch that
// resolves relative URLs against the page and keeps cookies in jar, as a
// browser does for same-origin requests. The libraries themselves are not
// touched. Every request is appended to the returned log as
// {method, url, headers, status}.
export function installBrowser(pageURL, jar) {
	const log = [];
	globalThis.window = globalThis.window || {};
	globalThis.window.location = new URL(pageURL);
	if (!globalThis.navigator) {
		globalThis.navigator = { onLine: true };
	}
	globalThis.fetch = async (input, init = {}) => {
		const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url, pageURL).href;
		const headers = new Headers(init.headers || {});
		// Browsers send cookies to the page's own origin unless told not
		// to (credentials 'omit'), and to other origins only with 'include'.
		const sameOrigin = new URL(url).origin === new URL(pageURL).origin;
		const creds = init.credentials || 'same-origin';
		const cookie = jar.header(url);
		if (cookie && (creds === 'include' || (creds === 'same-origin' && sameOrigin))) {
			headers.set('Cookie', cookie);
		}
		const entry = { method: (init.method || 'GET').toUpperCase(), url, headers: Object.fromEntries(headers), status: 0 };
		log.push(entry);
		const res = await nativeFetch(url, { ...init, headers, signal: init.signal || AbortSignal.timeout(30000) });
		entry.status = res.status;
		jar.store(url, res);
		return res;
	};
	return {
		log,
		restore() {
			globalThis.fetch = nativeFetch;
		},
	};
}

// seedSite creates the content the wpapi tests read: two categories, two
// tags and `count` published posts by the author, with distinct dates so
// that the default order (date, newest first) is deterministic. Returns
// {categories: {news, tech}, tags: {go, wp}, posts: [ids oldest first]}.
export async function seedSite(server, { admin, adminPass, author, authorPass, count }) {
	const mk = async (route, body, user = admin.login, pass = adminPass) => {
		const res = await server.api('POST', route, { user, pass, body });
		if (res.status !== 201) {
			throw new Error(`seed POST ${route} answered ${res.status}: ${JSON.stringify(res.body)}`);
		}
		return res.body.id;
	};
	const categories = { news: await mk('categories', { name: 'News' }), tech: await mk('categories', { name: 'Tech' }) };
	const tags = { go: await mk('tags', { name: 'go' }), wp: await mk('tags', { name: 'wordpress' }) };
	const posts = [];
	for (let i = 1; i <= count; i++) {
		const date = new Date(Date.UTC(2024, 0, 1) + i * 3600e3).toISOString().slice(0, 19);
		posts.push(await mk('posts', {
			title: `Seeded post ${i}`,
			content: `Body of seeded post ${i}.`,
			status: 'publish',
			date,
			categories: i % 2 ? [categories.news] : [categories.news, categories.tech],
			tags: i % 3 ? [tags.go] : [tags.go, tags.wp],
		}, author.login, authorPass));
	}
	return { categories, tags, posts };
}
