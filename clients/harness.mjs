// Test harness for the client acceptance tests: builds folio from the tree,
// runs `folio serve --addr 127.0.0.1:0` on a fresh data directory (in
// WordPress-compatibility mode or the default mode), creates users and
// application passwords with the CLI, signs a "browser" in through
// POST /login and reads the settings object a signed-in page carries.
//
// It deliberately shares no code with e2e/: this directory installs and
// runs on its own (`cd clients && npm ci && node --test`).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import vm from 'node:vm';
import { deflateSync } from 'node:zlib';

const run = promisify(execFile);

// nativeFetch is Node's own fetch, kept before installBrowser replaces
// globalThis.fetch: the harness's own requests (seeding, sign-in, checks)
// never go through the emulated browser or its cookie jar.
export const nativeFetch = globalThis.fetch;
const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..');

// The account password of every user the tests create (application
// passwords are made separately with `folio user app-password`).
export const PASSWORD = 'correct horse battery staple';

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

let built;

// folioBinary builds cmd/folio once per test process into a temporary
// directory (FOLIO_BIN names a prebuilt binary instead).
export function folioBinary() {
	if (process.env.FOLIO_BIN) {
		return Promise.resolve(process.env.FOLIO_BIN);
	}
	if (!built) {
		built = (async () => {
			const dir = await mkdtemp(path.join(tmpdir(), 'folio-clients-bin-'));
			const bin = path.join(dir, 'folio');
			await run('go', ['build', '-o', bin, './cmd/folio'], { cwd: repoRoot, maxBuffer: 16 << 20, timeout: 300000 });
			return bin;
		})();
	}
	return built;
}

// startServer runs `folio serve` on a free loopback port with a fresh data
// directory and SITE_CONFIG, and resolves once it prints its address.
// compat: 'wordpress' adds `--compat wordpress`.
export async function startServer({ compat } = {}) {
	const bin = await folioBinary();
	const data = await mkdtemp(path.join(tmpdir(), 'folio-clients-data-'));
	const configFile = path.join(data, 'folio.toml');
	await writeFile(configFile, SITE_CONFIG);
	const args = ['serve', '--addr', '127.0.0.1:0', '--data', data, '--config', configFile];
	if (compat) {
		args.push('--compat', compat);
	}
	// A clean environment for the mode: an inherited FOLIO_COMPAT must not
	// turn the default-mode server into a compat one.
	const env = { ...process.env };
	delete env.FOLIO_COMPAT;
	delete env.FOLIO_CONFIG;
	delete env.FOLIO_ADDR;
	delete env.FOLIO_DATA;
	delete env.FOLIO_DATABASE_URL;
	const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
	let log = '';
	const url = await new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			proc.kill('SIGKILL');
			reject(new Error('folio serve did not start within 30s:\n' + log));
		}, 30000);
		const onData = (chunk) => {
			log += chunk;
			const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
			if (m) {
				clearTimeout(timer);
				resolve(m[1]);
			}
		};
		proc.stdout.on('data', onData);
		proc.stderr.on('data', onData);
		proc.on('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`folio serve exited with ${code}:\n${log}`));
		});
	});
	proc.removeAllListeners('exit');
	// A test process that dies without running its `after` hooks must not
	// leave the server behind.
	const reap = () => proc.kill('SIGKILL');
	process.once('exit', reap);
	proc.once('exit', () => process.removeListener('exit', reap));
	const prefix = compat === 'wordpress' ? '/wp-json' : '/api';
	const namespace = compat === 'wordpress' ? 'wp/v2' : 'svc/v2';
	const server = {
		url,
		data,
		bin,
		// apiRoot is the API root URL with its trailing slash, as the
		// settings object names it.
		apiRoot: `${url}${prefix}/`,
		namespace,
		log: () => log,
		// cli runs a folio command against the server's data directory and
		// returns its trimmed standard output.
		async cli(...cmd) {
			const { stdout } = await run(bin, [...cmd, '--data', data], { env, timeout: 60000 });
			return stdout.trim();
		},
		// createUser creates a user with the CLI and returns {id, login,
		// password}.
		async createUser(login, role) {
			const out = await server.cli('user', 'create', '--login', login, '--email', `${login}@example.test`, '--password', PASSWORD, '--role', role);
			return { id: parseInt(out.split('\n').pop(), 10), login, password: PASSWORD };
		},
		// appPassword creates an application password for login and
		// returns it.
		async appPassword(login) {
			const out = await server.cli('user', 'app-password', '--login', login, '--name', 'clients');
			return out.split('\n').pop().trim();
		},
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
		async stop() {
			if (proc.exitCode === null && proc.signalCode === null) {
				const exited = new Promise((resolve) => proc.once('exit', resolve));
				proc.kill('SIGTERM');
				const killer = setTimeout(() => proc.kill('SIGKILL'), 10000);
				await exited;
				clearTimeout(killer);
			}
			await rm(data, { recursive: true, force: true });
		},
	};
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
	for (const m of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
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

// png returns a small valid PNG image (a w×h gradient) as a Buffer, so the
// tests need no image files.
export function png(w = 64, h = 48) {
	const crcTable = Array.from({ length: 256 }, (_, n) => {
		let c = n;
		for (let k = 0; k < 8; k++) {
			c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		}
		return c >>> 0;
	});
	const crc = (buf) => {
		let c = 0xffffffff;
		for (const b of buf) {
			c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
		}
		return (c ^ 0xffffffff) >>> 0;
	};
	const chunk = (type, data) => {
		const len = Buffer.alloc(4);
		len.writeUInt32BE(data.length);
		const td = Buffer.concat([Buffer.from(type), data]);
		const sum = Buffer.alloc(4);
		sum.writeUInt32BE(crc(td));
		return Buffer.concat([len, td, sum]);
	};
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(w, 0);
	ihdr.writeUInt32BE(h, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // truecolour
	const rows = [];
	for (let y = 0; y < h; y++) {
		const row = Buffer.alloc(1 + w * 3);
		for (let x = 0; x < w; x++) {
			row[1 + x * 3] = (x * 255 / w) | 0;
			row[2 + x * 3] = (y * 255 / h) | 0;
			row[3 + x * 3] = 160;
		}
		rows.push(row);
	}
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', ihdr),
		chunk('IDAT', deflateSync(Buffer.concat(rows))),
		chunk('IEND', Buffer.alloc(0)),
	]);
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
