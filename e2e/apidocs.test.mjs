// The API reference page ({api_root}docs) in Chromium: Swagger UI, served
// from the binary, renders the OpenAPI description of the running site in
// both modes, shows the posts routes, and does so without console errors,
// Content-Security-Policy violations or requests to other hosts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startServer, Steps } from './harness.mjs';

for (const mode of [
	{ name: 'default', compat: undefined, prefix: '/api', ns: 'svc/v2' },
	{ name: 'WordPress-compatibility', compat: 'wordpress', prefix: '/wp-json', ns: 'wp/v2' },
]) {
	describe(`API reference page, ${mode.name} mode`, () => {
		let server, browser, page;
		const problems = [];
		const requests = [];

		before(async () => {
			server = await startServer({ compat: mode.compat });
			browser = await launchBrowser();
			page = await browser.context.newPage();
			page.on('console', (msg) => {
				if (msg.type() === 'error' || msg.type() === 'warning') {
					problems.push(`${msg.type()}: ${msg.text()}`);
				}
			});
			page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
			page.on('request', (req) => requests.push(req.url()));
		});

		after(async () => {
			await browser?.close();
			await server?.stop();
		});

		test('renders the description with the posts routes and no console errors', async (t) => {
			const steps = new Steps(t.name + ' ' + mode.name, page);
			const res = await steps.step('open', () => page.goto(server.url + mode.prefix + '/docs'));
			assert.equal(res.status(), 200);
			const csp = res.headers()['content-security-policy'];
			assert.match(csp, /script-src 'self';/);
			assert.doesNotMatch(csp, /unsafe-/);
			await steps.step('rendered', () => page.waitForSelector('body[data-ready="true"]', { timeout: 20000 }));
			await steps.step('posts tag', () => page.locator('#operations-tag-posts').waitFor());
			const paths = await page.locator('.opblock-summary-path').allTextContents();
			const posts = `/${mode.ns}/posts`;
			assert.ok(paths.some((p) => p.replace(/\u200b/g, '') === posts), `no ${posts} among ${paths.length} paths`);
			assert.ok(paths.some((p) => p.replace(/\u200b/g, '') === `${posts}/{id}`));
			assert.ok(paths.some((p) => p.replace(/\u200b/g, '') === '/batch/v1'));
			// Open "list posts" and see its parameters and pagination headers.
			await steps.step('expand list posts', async () => {
				await page.locator(`#operations-posts-listPosts .opblock-summary`).first().click();
				await page.getByText('per_page', { exact: true }).first().waitFor();
			});
			const body = await page.locator('#operations-posts-listPosts').innerText();
			assert.match(body, mode.compat ? /X-WP-Total/ : /X-API-Total/);
			assert.deepEqual(problems, []);
			const origin = new URL(server.url).origin;
			const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
			assert.deepEqual(foreign, [], 'the page loads nothing from other hosts');
		});
	});
}
