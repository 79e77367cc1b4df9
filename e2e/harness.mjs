// Test harness: builds folio from the tree, runs `folio serve` on a free
// loopback port with a fresh data directory, creates users through the
// CLI, and drives Debian's Chromium (never a downloaded browser) through
// playwright-core. Screenshots of every step of a test are written to the
// output directory when the test fails.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..');

// outputDir is where failure screenshots go (FOLIO_E2E_OUT, else
// e2e/test-output).
export const outputDir = process.env.FOLIO_E2E_OUT || path.join(here, 'test-output');

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

let built;

// folioBinary builds cmd/folio once per process into a temporary directory
// (FOLIO_BIN names a prebuilt binary instead).
export function folioBinary() {
	if (process.env.FOLIO_BIN) {
		return Promise.resolve(process.env.FOLIO_BIN);
	}
	if (!built) {
		built = (async () => {
			const dir = await mkdtemp(path.join(tmpdir(), 'folio-e2e-bin-'));
			const bin = path.join(dir, 'folio');
			await run('go', ['build', '-o', bin, './cmd/folio'], { cwd: repoRoot, maxBuffer: 16 << 20 });
			return bin;
		})();
	}
	return built;
}

// startServer runs `folio serve --addr 127.0.0.1:0` on a fresh data
// directory and resolves once it prints its address. compat: 'wordpress'
// adds `--compat wordpress`; config is the text of a folio.toml (custom
// post types, taxonomies) written to the data directory and passed with
// --config.
export async function startServer({ compat, config } = {}) {
	const bin = await folioBinary();
	const data = await mkdtemp(path.join(tmpdir(), 'folio-e2e-data-'));
	const args = ['serve', '--addr', '127.0.0.1:0', '--data', data];
	if (compat) {
		args.push('--compat', compat);
	}
	if (config !== undefined) {
		const file = path.join(data, 'folio.toml');
		await writeFile(file, config);
		args.push('--config', file);
	}
	const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let log = '';
	const url = await new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('folio serve did not start within 30s:\n' + log)), 30000);
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
	// The API's namespace URL under the mode's names (docs/wordpress-compat.md).
	const apiBase = compat === 'wordpress' ? `${url}/wp-json/wp/v2/` : `${url}/api/svc/v2/`;
	const server = {
		url,
		apiBase,
		data,
		bin,
		log: () => log,
		// cli runs a folio command against the server's data directory and
		// returns its trimmed standard output.
		async cli(...cmd) {
			const { stdout } = await run(bin, [...cmd, '--data', data]);
			return stdout.trim();
		},
		// createUser creates a user with the CLI and returns {id, login,
		// password}.
		async createUser(login, role = 'administrator', password = 'correct horse battery staple') {
			const out = await server.cli('user', 'create', '--login', login, '--email', `${login}@example.test`, '--password', password, '--role', role);
			return { id: parseInt(out.split('\n').pop(), 10), login, password };
		},
		// appPassword creates an application password and returns it.
		async appPassword(login) {
			const out = await server.cli('user', 'app-password', '--login', login, '--name', 'e2e');
			return out.split('\n').pop().trim();
		},
		// api calls the REST API from Node with Basic authentication. A
		// Buffer body is sent as it is (an upload: set Content-Type and
		// Content-Disposition in headers); anything else is sent as JSON.
		async api(method, route, { user, pass, body, headers = {} } = {}) {
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
		},
		async stop() {
			if (proc.exitCode === null) {
				const exited = new Promise((resolve) => proc.once('exit', resolve));
				proc.kill('SIGTERM');
				await exited;
			}
			await rm(data, { recursive: true, force: true });
		},
	};
	return server;
}

// launchBrowser starts Chromium with a fresh user data directory and the
// flags CI needs; it returns {context, close}.
export async function launchBrowser() {
	const profile = await mkdtemp(path.join(tmpdir(), 'folio-e2e-profile-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: chromiumPath,
		headless: true,
		args: chromiumFlags,
		viewport: { width: 1100, height: 900 },
	});
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
