// Test harness: builds folio from the tree, runs `folio serve` on a free
// loopback port with a fresh data directory, creates users through the
// CLI, and drives Debian's Chromium (never a downloaded browser) through
// playwright-core. Screenshots of every step of a test are written to the
// output directory when the test fails.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFolio } from '../testkit/folio.mjs';

export { folioBinary, png, repoRoot } from '../testkit/folio.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

// outputDir is where failure screenshots go (FOLIO_E2E_OUT, else
// e2e/test-output).
export const outputDir = process.env.FOLIO_E2E_OUT || path.join(here, 'test-output');

// artifactsDir is where the admin tests write a screenshot of every screen
// they visit, passing or not (FOLIO_E2E_ARTIFACTS, else e2e/artifacts;
// git-ignored).
export const artifactsDir = process.env.FOLIO_E2E_ARTIFACTS || path.join(here, 'artifacts');

// screenshot writes a full-page PNG of page to artifactsDir/group/name.png.
export async function screenshot(page, group, name) {
	const dir = path.join(artifactsDir, group);
	await mkdir(dir, { recursive: true });
	const file = path.join(dir, name.replace(/[^a-z0-9.-]+/gi, '-').toLowerCase() + '.png');
	// A full page from the top, so that sticky bars sit where a reader
	// sees them; with a dialog open, the window as it is.
	const modal = await page.evaluate(() => {
		if (document.querySelector('dialog[open]')) {
			return true;
		}
		window.scrollTo(0, 0);
		return false;
	});
	await page.screenshot({ path: file, fullPage: !modal, timeout: 10000 });
	return file;
}

// chromiumPath is Debian's chromium unless CHROMIUM_PATH names another
// installed binary.
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export const chromiumFlags = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

// startServer runs `folio serve --addr 127.0.0.1:0` on a fresh data
// directory (testkit/folio.mjs startFolio) and resolves once it prints its
// address. compat: 'wordpress' adds `--compat wordpress`; config is the
// text of a folio.toml (custom post types, taxonomies) passed with
// --config.
export async function startServer({ compat, config, importWXR } = {}) {
	const server = await startFolio({ compat, config, importWXR, label: 'e2e' });
	const { url } = server;
	// The API's namespace URL under the mode's names (docs/wordpress-compat.md).
	const apiBase = compat === 'wordpress' ? `${url}/wp-json/wp/v2/` : `${url}/api/svc/v2/`;
	server.apiBase = apiBase;
	// api calls the REST API from Node with Basic authentication. A
	// Buffer body is sent as it is (an upload: set Content-Type and
	// Content-Disposition in headers); anything else is sent as JSON.
	server.api = async (method, route, { user, pass, body, headers = {} } = {}) => {
		const h = { ...headers };
		if (user) {
			h.Authorization = 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
		}
		let payload;
		if (Buffer.isBuffer(body)) {
			payload = body;
		} else if (body !== undefined) {
			h['Content-Type'] = 'application/json';
			payload = JSON.stringify(body);
		}
		const res = await fetch(apiBase + route, { method, headers: h, body: payload });
		const text = await res.text();
		let json = null;
		try {
			json = JSON.parse(text);
		} catch {
			json = text;
		}
		return { status: res.status, headers: res.headers, body: json };
	};
	return server;
}

// launchBrowser starts Chromium with a fresh user data directory and the
// flags CI needs; it returns {context, close}. offline: true answers every
// request that leaves the loopback address with a network error at once
// (imported sites point at images on their old hosts, which CI cannot
// reach); viewport overrides the window size.
export async function launchBrowser({ offline = false, viewport = { width: 1100, height: 900 } } = {}) {
	const profile = await mkdtemp(path.join(tmpdir(), 'folio-e2e-profile-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: chromiumPath,
		headless: true,
		args: chromiumFlags,
		viewport,
	});
	if (offline) {
		await context.route(/^(?!https?:\/\/127\.0\.0\.1[:/])/, (route) => route.abort('internetdisconnected'));
	}
	return {
		context,
		async close() {
			await context.close();
			await rm(profile, { recursive: true, force: true });
		},
	};
}

// Steps records a screenshot after each named step of a test and writes
// all of them, plus one of the failing state, to the output directory when
// the test fails (FOLIO_E2E_SCREENSHOTS=always writes them every time).
export class Steps {
	constructor(testName, page) {
		this.name = testName.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase();
		this.page = page;
		this.shots = [];
	}

	async step(label, fn) {
		try {
			const result = await fn();
			await this.shot(label);
			if (process.env.FOLIO_E2E_SCREENSHOTS === 'always') {
				await this.flush();
			}
			return result;
		} catch (err) {
			await this.shot(`${label}-FAILED`);
			await this.flush();
			err.message = `step "${label}": ${err.message}`;
			throw err;
		}
	}

	async shot(label) {
		try {
			const png = await this.page.screenshot({ fullPage: true, timeout: 5000 });
			this.shots.push({ label, png });
		} catch {
			// A page that is gone cannot be photographed; the error of the
			// step itself is what matters.
		}
	}

	async flush() {
		const dir = path.join(outputDir, this.name);
		await mkdir(dir, { recursive: true });
		for (const [i, s] of this.shots.entries()) {
			if (s.written) {
				continue;
			}
			s.written = true;
			const file = `${String(i + 1).padStart(2, '0')}-${s.label.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`;
			await writeFile(path.join(dir, file), s.png);
		}
		if (process.env.FOLIO_E2E_SCREENSHOTS !== 'always') {
			process.stderr.write(`screenshots of ${this.name} written to ${dir}\n`);
		}
	}
}
