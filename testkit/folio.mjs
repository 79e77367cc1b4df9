// Shared, dependency-free pieces of the Node test harnesses (e2e/ and
// clients/): building folio from the tree, running `folio serve` on a free
// loopback port with a fresh data directory, the CLI calls that create
// users and application passwords, and a generated PNG. It imports only
// Node's own modules, so e2e/ and clients/ still install and run on their
// own (`npm ci && node --test` in either).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

// repoRoot is the repository's top directory.
export const repoRoot = path.resolve(here, '..');

// PASSWORD is the account password of the users the tests create
// (application passwords are made separately with `folio user
// app-password`).
export const PASSWORD = 'correct horse battery staple';

let built;

// folioBinary builds cmd/folio once per test process into a temporary
// directory (FOLIO_BIN names a prebuilt binary instead).
export function folioBinary() {
	if (process.env.FOLIO_BIN) {
		return Promise.resolve(process.env.FOLIO_BIN);
	}
	if (!built) {
		built = (async () => {
			const dir = await mkdtemp(path.join(tmpdir(), 'folio-test-bin-'));
			const bin = path.join(dir, 'folio');
			await run('go', ['build', '-o', bin, './cmd/folio'], { cwd: repoRoot, maxBuffer: 16 << 20, timeout: 300000 });
			return bin;
		})();
	}
	return built;
}

// startFolio runs `folio serve --addr 127.0.0.1:0` on a fresh data
// directory and resolves once it prints its address. compat: 'wordpress'
// adds `--compat wordpress`; config is the text of a folio.toml written to
// the data directory and passed with --config; label names the client of
// the application passwords it makes; importWXR lists WXR files that
// `folio import wxr` reads into the data directory (with the same
// --config) before the server starts. The server runs with the FOLIO_*
// variables of the environment removed, so an inherited FOLIO_COMPAT or
// FOLIO_DATABASE_URL cannot change what the test asked for, and it is
// killed if the test process exits without stopping it. The API rate
// limits are off.
export async function startFolio({ compat, config, label = 'tests', importWXR = [] } = {}) {
	const bin = await folioBinary();
	const data = await mkdtemp(path.join(tmpdir(), 'folio-test-data-'));
	const args = ['serve', '--addr', '127.0.0.1:0', '--data', data];
	if (compat) {
		args.push('--compat', compat);
	}
	if (config !== undefined) {
		const file = path.join(data, 'folio.toml');
		await writeFile(file, config);
		args.push('--config', file);
	}
	const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOLIO_')));
	// The suites seed and click far faster than a person: the API rate
	// limits (tested in internal/server) are off.
	env.FOLIO_RATE_LIMITS = 'off';
	if (importWXR.length) {
		const imp = ['import', 'wxr', '--data', data];
		if (config !== undefined) {
			imp.push('--config', path.join(data, 'folio.toml'));
		}
		await run(bin, [...imp, ...importWXR], { env, timeout: 120000, maxBuffer: 16 << 20 });
	}
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
	const reap = () => proc.kill('SIGKILL');
	process.once('exit', reap);
	proc.once('exit', () => process.removeListener('exit', reap));

	const server = {
		url,
		data,
		bin,
		log: () => log,
		// cli runs a folio command against the server's data directory and
		// returns its trimmed standard output.
		async cli(...cmd) {
			const { stdout } = await run(bin, [...cmd, '--data', data], { env, timeout: 60000 });
			return stdout.trim();
		},
		// createUser creates a user with the CLI and returns {id, login,
		// password}.
		async createUser(login, role = 'administrator', password = PASSWORD) {
			const out = await server.cli('user', 'create', '--login', login, '--email', `${login}@example.test`, '--password', password, '--role', role);
			return { id: parseInt(out.split('\n').pop(), 10), login, password };
		},
		// appPassword creates an application password for login and
		// returns it.
		async appPassword(login) {
			const out = await server.cli('user', 'app-password', '--login', login, '--name', label);
			return out.split('\n').pop().trim();
		},
		// stop shuts the server down (SIGTERM, SIGKILL after 10 s) and
		// removes its data directory.
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
