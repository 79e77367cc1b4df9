// Folio's OpenAPI description checked with real tools: `folio openapi`
// prints it in both modes, Redocly CLI lints it clean, the running server
// answers the same document, and openapi-typescript generates types that
// a strict TypeScript program (client.ts) compiles against and then runs
// with against a live `folio serve`: list posts, create two, read one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { folioBinary, startFolio } from '../../testkit/folio.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const generated = path.join(here, 'generated');
const tool = (name) => path.join(here, 'node_modules', '.bin', name);
// The environment of the commands, without FOLIO_* variables that could
// change what the test asked for.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOLIO_')));

// sh runs a command in this directory and returns its standard output; a
// failure carries the command's output.
async function sh(cmd, args, opts = {}) {
	try {
		const { stdout } = await run(cmd, args, { cwd: here, env, maxBuffer: 64 << 20, timeout: 300000, ...opts });
		return stdout;
	} catch (err) {
		err.message += `\n${err.stdout || ''}\n${err.stderr || ''}`;
		throw err;
	}
}

describe('the OpenAPI description, checked with real tools', { timeout: 600000 }, () => {
	let folio, server;
	const docs = {};

	before(async () => {
		folio = await folioBinary();
		await mkdir(generated, { recursive: true });
		for (const [mode, args] of [['default', []], ['wordpress', ['--compat', 'wordpress']]]) {
			docs[mode] = await sh(folio, ['openapi', ...args]);
			await writeFile(path.join(generated, `openapi-${mode}.json`), docs[mode]);
		}
	});

	after(async () => {
		await server?.stop();
	});

	test('folio openapi prints an OpenAPI 3.1 document of the mode\'s routes', () => {
		const def = JSON.parse(docs.default);
		assert.equal(def.openapi, '3.1.0');
		assert.equal(def.servers[0].url, '/api');
		for (const p of ['/svc/v2/posts', '/svc/v2/posts/{id}', '/svc/v2/categories', '/svc/v2/users/me', '/batch/v1']) {
			assert.ok(def.paths[p], `${p} is described`);
		}
		assert.equal(def.components.securitySchemes.nonce.name, 'X-API-Nonce');
		const wp = JSON.parse(docs.wordpress);
		assert.equal(wp.servers[0].url, '/wp-json');
		assert.ok(wp.paths['/wp/v2/posts'] && wp.paths['/batch/v1']);
		assert.ok(!wp.paths['/svc/v2/posts']);
		assert.equal(wp.components.securitySchemes.nonce.name, 'X-WP-Nonce');
		assert.ok(wp.paths['/wp/v2/posts'].get.responses['200'].headers['X-WP-Total']);
	});

	for (const mode of ['default', 'wordpress']) {
		test(`Redocly CLI lints the ${mode} description without a problem`, async () => {
			const out = await sh(tool('redocly'), ['lint', path.join(generated, `openapi-${mode}.json`), '--config', 'redocly.yaml', '--format', 'stylish']);
			assert.doesNotMatch(out, /warning|error/i, out);
		});
	}

	test('the server answers the document folio openapi prints, with an ETag', async () => {
		server = await startFolio({ label: 'openapi' });
		const res = await fetch(server.url + '/api/openapi.json');
		assert.equal(res.status, 200);
		assert.match(res.headers.get('content-type'), /^application\/json/);
		assert.equal(await res.text(), docs.default);
		const tag = res.headers.get('etag');
		assert.ok(tag);
		const again = await fetch(server.url + '/api/openapi.json', { headers: { 'If-None-Match': tag } });
		assert.equal(again.status, 304);
	});

	test('openapi-typescript types type-check a client that lists and creates posts on the live server', async () => {
		await sh(tool('openapi-typescript'), [path.join(generated, 'openapi-default.json'), '-o', path.join(generated, 'folio.ts')]);
		const types = await readFile(path.join(generated, 'folio.ts'), 'utf8');
		assert.match(types, /"\/svc\/v2\/posts": \{/);
		await sh(tool('tsc'), ['-p', 'tsconfig.json']);

		server ??= await startFolio({ label: 'openapi' });
		await server.createUser('typed', 'editor');
		const pass = await server.appPassword('typed');
		const out = await sh(process.execPath, [path.join(here, 'build', 'client.js')], {
			env: { ...env, FOLIO_API: server.url + '/api', FOLIO_LOGIN: 'typed', FOLIO_APP_PASSWORD: pass },
		});
		const got = JSON.parse(out);
		assert.equal(got.totalBefore, 0);
		assert.equal(got.totalAfter, 2);
		assert.deepEqual(got.listed, got.created);
		assert.equal(got.firstTitle, 'Typed hello');
		assert.equal(got.draftStatus, 'draft');
		assert.equal(got.draftRaw, 'Typed draft');
		assert.equal(got.draftComments, 'closed');
	});
});
