// client.ts is a small program typed by the types openapi-typescript
// generates from Folio's OpenAPI description (generated/folio.ts): it lists
// posts, creates two, lists them again and reads one back, through plain
// fetch against a running `folio serve`. openapi.test.mjs compiles it with
// tsc (strict), which fails if the description and the calls disagree,
// then runs it and checks what it prints.
//
// Environment: FOLIO_API (the API root, e.g. http://127.0.0.1:8080/api),
// FOLIO_LOGIN and FOLIO_APP_PASSWORD (HTTP Basic with an application
// password).
import type { components, paths } from './generated/folio.js';

// The two Node globals the program uses (no @types/node needed).
declare const process: { env: Record<string, string | undefined>; exit(code: number): never };

type ListPosts = paths['/svc/v2/posts']['get'];
type ListQuery = NonNullable<ListPosts['parameters']['query']>;
type PostPage = ListPosts['responses'][200]['content']['application/json'];
type CreatePost = paths['/svc/v2/posts']['post'];
type NewPost = NonNullable<CreatePost['requestBody']>['content']['application/json'];
type Created = CreatePost['responses'][201]['content']['application/json'];
type GetPost = paths['/svc/v2/posts/{id}']['get'];
type PostID = GetPost['parameters']['path']['id'];
type Post = components['schemas']['Post'];
type APIError = components['schemas']['Error'];

function env(name: string): string {
	const v = process.env[name];
	if (!v) {
		throw new Error(`${name} is not set`);
	}
	return v;
}

const api = env('FOLIO_API').replace(/\/$/, '');
const authorization = 'Basic ' + btoa(`${env('FOLIO_LOGIN')}:${env('FOLIO_APP_PASSWORD')}`);

// search turns typed query parameters into a query string.
function search(q: ListQuery): string {
	const p = new URLSearchParams();
	for (const [k, v] of Object.entries(q)) {
		if (Array.isArray(v)) {
			for (const x of v) {
				p.append(k, String(x));
			}
		} else if (v !== undefined) {
			p.set(k, String(v));
		}
	}
	const s = p.toString();
	return s ? '?' + s : '';
}

async function failure(res: Response): Promise<Error> {
	const body = (await res.json()) as APIError;
	return new Error(`${res.status} ${body.code}: ${body.message}`);
}

async function listPosts(q: ListQuery): Promise<{ posts: PostPage; total: number }> {
	const res = await fetch(`${api}/svc/v2/posts${search(q)}`, { headers: { Authorization: authorization } });
	if (res.status !== 200) {
		throw await failure(res);
	}
	const total = Number(res.headers.get('X-API-Total'));
	return { posts: (await res.json()) as PostPage, total };
}

async function createPost(post: NewPost): Promise<Created> {
	const res = await fetch(`${api}/svc/v2/posts`, {
		method: 'POST',
		headers: { Authorization: authorization, 'Content-Type': 'application/json' },
		body: JSON.stringify(post),
	});
	if (res.status !== 201) {
		throw await failure(res);
	}
	return (await res.json()) as Created;
}

type Context = NonNullable<NonNullable<GetPost['parameters']['query']>['context']>;

async function getPost(id: PostID, context: Context): Promise<Post> {
	const res = await fetch(`${api}/svc/v2/posts/${id}?context=${context}`, { headers: { Authorization: authorization } });
	if (res.status !== 200) {
		throw await failure(res);
	}
	return (await res.json()) as Post;
}

async function main(): Promise<void> {
	const before = await listPosts({ per_page: 5, status: 'publish' });
	const first = await createPost({ title: 'Typed hello', content: 'Written through the generated types.', status: 'publish' });
	const second = await createPost({ title: { raw: 'Typed draft' }, status: 'draft', comment_status: 'closed' });
	if (first.id === undefined || second.id === undefined) {
		throw new Error('a created post has no id');
	}
	const after = await listPosts({ per_page: 5, status: 'any', orderby: 'id', order: 'asc', context: 'edit' });
	const draft: Post = await getPost(second.id, 'edit');
	console.log(
		JSON.stringify({
			totalBefore: before.total,
			totalAfter: after.total,
			created: [first.id, second.id],
			listed: after.posts.map((p) => p.id),
			firstTitle: first.title?.rendered,
			draftStatus: draft.status,
			draftRaw: draft.title?.raw,
			draftComments: draft.comment_status,
		}),
	);
}

main().catch((err: unknown) => {
	console.error(err);
	process.exit(1);
});
