// The built-in reader and the first run in a real browser: the one-time
// setup link `folio serve` prints creates the first administrator and
// signs in, a post published from that session opens at its link; the
// home page, a post, a comment posted with the form, the search box and a
// category archive, each checked with what a reader sees and with a
// screenshot of every step.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startServer, Steps } from './harness.mjs';

describe('reader', () => {
	let server, browser, appPass, travel, post;

	const api = (method, route, body) => server.api(method, route, { user: 'owner', pass: appPass, body });

	before(async () => {
		// Guests' comments show at once (no "previously approved" rule), so
		// the test sees its comment on the page.
		server = await startServer({ config: '[site]\ntitle = "Field Notes"\ndescription = "A test site"\ncomment_previously_approved = false\n' });
		browser = await launchBrowser();
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	test('the setup link creates the first administrator, who publishes a post that opens at its link', async (t) => {
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		const m = /(http:\/\/127\.0\.0\.1:\d+\/admin\/setup\?token=[A-Za-z0-9_-]+)/.exec(server.log());
		assert.ok(m, 'serve printed no setup link:\n' + server.log());
		assert.match(server.log(), /admin: http:\/\/127\.0\.0\.1:\d+\/admin\//);
		await steps.step('setup form', async () => {
			await page.goto(m[1]);
			await page.getByRole('heading', { name: 'Create the first administrator' }).waitFor();
		});
		await steps.step('too short a password is refused', async () => {
			await page.getByLabel('Username').fill('owner');
			await page.getByLabel('Email address').fill('owner@example.com');
			await page.getByLabel('Password', { exact: true }).fill('short-pw-1');
			await page.getByLabel('Password again').fill('short-pw-1');
			// The browser checks minlength first; send the form as it is.
			await page.$eval('#setupform', (f) => f.setAttribute('novalidate', ''));
			await page.getByRole('button', { name: 'Create administrator and sign in' }).click();
			await page.getByRole('alert').filter({ hasText: 'at least 12 characters' }).waitFor();
		});
		await steps.step('administrator created and signed in', async () => {
			await page.getByLabel('Password', { exact: true }).fill('Hook-pass-1234');
			await page.getByLabel('Password again').fill('Hook-pass-1234');
			await page.getByRole('button', { name: 'Create administrator and sign in' }).click();
			await page.waitForURL(/\/admin\/$/);
			await page.waitForFunction(() => window.folioApiSettings && window.folioApiSettings.nonce);
		});
		const created = await steps.step('publish a post from the signed-in session', async () => {
			return page.evaluate(async () => {
				const s = window.folioApiSettings;
				const res = await fetch(s.root + 'svc/v2/posts', {
					method: 'POST',
					credentials: 'same-origin',
					headers: { 'Content-Type': 'application/json', 'X-API-Nonce': s.nonce },
					body: JSON.stringify({ title: 'Hello from the first run', content: 'Written right after setup.', status: 'publish' }),
				});
				return { status: res.status, body: await res.json() };
			});
		});
		assert.equal(created.status, 201, JSON.stringify(created.body));
		await steps.step('the post opens at its link', async () => {
			await page.goto(created.body.link);
			await page.getByRole('heading', { level: 1, name: 'Hello from the first run' }).waitFor();
			await page.getByText('Written right after setup.').waitFor();
		});
		await steps.step('the setup link is spent', async () => {
			const res = await page.goto(m[1]);
			assert.equal(res.status(), 410);
			await page.getByText('already has an administrator').waitFor();
		});
		await page.close();
		appPass = await server.appPassword('owner');
	});

	test('home, a post, a comment, search and a category archive', async (t) => {
		const cat = await api('POST', 'categories', { name: 'Travel' });
		assert.equal(cat.status, 201, JSON.stringify(cat.body));
		travel = cat.body;
		for (const [title, content] of [
			['Walking the coast', '<p>Salt air and <strong>long</strong> beaches.</p>'],
			['Mountain huts', '<p>Cold nights, warm soup.</p>'],
		]) {
			const res = await api('POST', 'posts', { title, content, status: 'publish', categories: [travel.id] });
			assert.equal(res.status, 201, JSON.stringify(res.body));
			post = res.body;
		}
		const draft = await api('POST', 'posts', { title: 'Secret draft', content: 'not yet', status: 'draft' });
		assert.equal(draft.status, 201);

		// A reader who is not signed in (the first test signed in).
		await browser.context.clearCookies();
		const page = await browser.context.newPage();
		const steps = new Steps(t.name, page);
		await steps.step('home page', async () => {
			await page.goto(server.url + '/');
			await page.getByRole('link', { name: 'Field Notes' }).waitFor();
			await page.getByRole('heading', { level: 2, name: 'Mountain huts' }).waitFor();
			await page.getByRole('heading', { level: 2, name: 'Walking the coast' }).waitFor();
			assert.equal(await page.getByText('Secret draft').count(), 0, 'the home page lists a draft');
			// The first Tab reaches the skip link.
			await page.keyboard.press('Tab');
			assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');
		});
		await steps.step('open a post', async () => {
			await page.getByRole('link', { name: 'Mountain huts' }).click();
			await page.waitForURL(post.link);
			await page.getByRole('heading', { level: 1, name: 'Mountain huts' }).waitFor();
			await page.getByText('Cold nights, warm soup.').waitFor();
		});
		await steps.step('post a comment as a guest', async () => {
			await page.getByLabel('Name', { exact: true }).fill('Robin');
			await page.getByLabel('Email', { exact: true }).fill('robin@example.com');
			await page.getByLabel('Comment', { exact: true }).fill('Which hut had the best soup?');
			await page.getByRole('button', { name: 'Post comment' }).click();
			await page.waitForURL(/#comment-\d+$/);
			const comment = page.locator('.comment').filter({ hasText: 'Which hut had the best soup?' });
			await comment.waitFor();
			await comment.getByText('Robin').waitFor();
			assert.equal(await page.getByText('robin@example.com').count(), 0, 'the page shows the email address');
		});
		await steps.step('a second comment right away is refused (flood rule)', async () => {
			await page.getByLabel('Name', { exact: true }).fill('Robin');
			await page.getByLabel('Email', { exact: true }).fill('robin@example.com');
			await page.getByLabel('Comment', { exact: true }).fill('And the best view?');
			await page.getByRole('button', { name: 'Post comment' }).click();
			await page.getByRole('alert').filter({ hasText: 'too quickly' }).waitFor();
			assert.equal(await page.getByLabel('Comment', { exact: true }).inputValue(), 'And the best view?');
		});
		await steps.step('search', async () => {
			await page.getByRole('searchbox', { name: 'Search posts' }).fill('beaches');
			await page.getByRole('searchbox', { name: 'Search posts' }).press('Enter');
			await page.getByRole('heading', { level: 1, name: 'Search results for “beaches”' }).waitFor();
			await page.getByRole('link', { name: 'Walking the coast' }).waitFor();
			assert.equal(await page.getByRole('link', { name: 'Mountain huts' }).count(), 0);
		});
		await steps.step('category archive', async () => {
			await page.getByRole('link', { name: 'Walking the coast' }).click();
			await page.getByRole('link', { name: 'Travel' }).first().click();
			await page.getByRole('heading', { level: 1, name: 'Category: Travel' }).waitFor();
			await page.getByRole('link', { name: 'Walking the coast' }).waitFor();
			await page.getByRole('link', { name: 'Mountain huts' }).waitFor();
			assert.equal(new URL(page.url()).pathname, new URL(travel.link).pathname);
		});
		await steps.step('an unknown address', async () => {
			const res = await page.goto(server.url + '/no/such/page/');
			assert.equal(res.status(), 404);
			await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
		});
		await page.close();
	});
});
