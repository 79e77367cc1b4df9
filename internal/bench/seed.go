package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// seedBatch is how many posts one seeding transaction inserts. On SQLite
// each transaction adds a piece to the full-text index that later ones
// merge: fewer, larger pieces cost less merging.
const seedBatch = 2000

var words = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing
elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad
minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea
commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum
fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa
qui officia deserunt mollit anim id est laborum garden river mountain coffee
morning journey library window autumn harbor engine letter market silver
practice question season theory weather yellow orchard lantern meadow`)

var titleWords = strings.Fields(`Notes on Building Quiet Gardens Rivers of the
North Why Coffee Matters A Week in the Mountains Lessons from an Old Library
The Autumn Market Letters to a Young Engineer Silver Harbor Stories Practical
Theory of Weather Lanterns and Meadows Questions Worth Asking Orchard Diaries`)

// SeedAuthors inserts n author accounts (login author1…authorN) directly
// through the store and returns their ids. They have no password: they
// exist to own posts.
func SeedAuthors(ctx context.Context, st store.Store, n int) ([]int64, error) {
	ids := make([]int64, 0, n)
	now := time.Now().UTC().Truncate(time.Second)
	for i := 1; i <= n; i++ {
		login := fmt.Sprintf("author%d", i)
		u := &store.User{
			Login:       login,
			Email:       login + "@example.com",
			DisplayName: fmt.Sprintf("Author %d", i),
			Nicename:    login,
			Nickname:    login,
			Registered:  now,
			Roles:       []string{"author"},
		}
		if err := st.InsertUser(ctx, u); err != nil {
			return nil, fmt.Errorf("seed author %s: %w", login, err)
		}
		ids = append(ids, u.ID)
	}
	return ids, nil
}

// SeedPosts inserts n published posts spread over the authors, in batched
// transactions (multi-row inserts when the store has them:
// store.PostBulkInserter), and returns their ids. One goroutine builds the
// batches, in order, while writers others store them, each batch in a
// transaction of its own: a store whose write transactions run side by
// side (PostgreSQL) spends as many server processes on them. The same
// seed gives the same posts; with several writers, a later batch may take
// lower ids than an earlier one.
func SeedPosts(ctx context.Context, st store.Store, n int, authors []int64, seed uint64, writers int) ([]int64, error) {
	if len(authors) == 0 {
		return nil, fmt.Errorf("seed posts: no authors")
	}
	writers = max(writers, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type batch struct {
		first int
		posts []*store.Post
	}
	batches := make(chan batch, writers)
	go func() {
		defer close(batches)
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		end := time.Now().UTC().Truncate(time.Second)
		for done := 0; done < n; {
			posts := make([]*store.Post, min(seedBatch, n-done))
			for i := range posts {
				k := done + i
				posts[i] = fakePost(rng, k, authors[k%len(authors)], seedDate(end, n, k))
			}
			select {
			case batches <- batch{done, posts}:
			case <-ctx.Done():
				return
			}
			done += len(posts)
		}
	}()
	ids := make([]int64, n)
	errs := make(chan error, writers)
	for range writers {
		go func() {
			for b := range batches {
				if err := insertBatch(ctx, st, b.posts); err != nil {
					cancel()
					errs <- fmt.Errorf("seed posts %d-%d: %w", b.first+1, b.first+len(b.posts), err)
					return
				}
				for i, p := range b.posts {
					ids[b.first+i] = p.ID
				}
			}
			errs <- nil
		}()
	}
	var err error
	for range writers {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		return nil, err
	}
	return ids, ctx.Err()
}

// insertBatch stores posts in one transaction.
func insertBatch(ctx context.Context, st store.Store, posts []*store.Post) error {
	return st.Tx(ctx, func(tx store.Store) error {
		if b, ok := tx.(store.PostBulkInserter); ok {
			return b.InsertPosts(ctx, posts)
		}
		for _, p := range posts {
			if err := tx.InsertPost(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// fakePost builds the k-th seeded post.
func fakePost(rng *rand.Rand, k int, author int64, date time.Time) *store.Post {
	title := Title(rng)
	return &store.Post{
		Type:          "post",
		Status:        "publish",
		Author:        author,
		Title:         title,
		Content:       BlockContent(rng, 1024+rng.IntN(2048)),
		Slug:          fmt.Sprintf("%s-%d", slug(title), k+1),
		Date:          date,
		DateGMT:       date,
		Modified:      date,
		ModifiedGMT:   date,
		CommentStatus: "open",
		PingStatus:    "open",
		Format:        "standard",
	}
}

// Title returns a plausible post title of three to seven words.
func Title(rng *rand.Rand) string {
	n := 3 + rng.IntN(5)
	start := rng.IntN(len(titleWords) - n)
	return strings.Join(titleWords[start:start+n], " ")
}

// BlockContent returns block-editor markup (paragraphs, headings and lists
// inside block comments) of about size bytes.
func BlockContent(rng *rand.Rand, size int) string {
	var b strings.Builder
	b.Grow(size + 512)
	for b.Len() < size {
		switch rng.IntN(6) {
		case 0:
			b.WriteString("<!-- wp:heading -->\n<h2>")
			writeSentence(&b, rng, 4)
			b.WriteString("</h2>\n<!-- /wp:heading -->\n\n")
		case 1:
			b.WriteString("<!-- wp:list -->\n<ul>")
			for range 2 + rng.IntN(3) {
				b.WriteString("<li>")
				writeSentence(&b, rng, 5)
				b.WriteString("</li>")
			}
			b.WriteString("</ul>\n<!-- /wp:list -->\n\n")
		default:
			b.WriteString("<!-- wp:paragraph -->\n<p>")
			for i := range 2 + rng.IntN(4) {
				if i > 0 {
					b.WriteByte(' ')
				}
				writeSentence(&b, rng, 8+rng.IntN(10))
				b.WriteByte('.')
			}
			b.WriteString("</p>\n<!-- /wp:paragraph -->\n\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// sentence returns n random words, the first capitalised.
func sentence(rng *rand.Rand, n int) string {
	var b strings.Builder
	writeSentence(&b, rng, n)
	return b.String()
}

// writeSentence writes sentence(rng, n) to b, drawing the same numbers.
func writeSentence(b *strings.Builder, rng *rand.Rand, n int) {
	for i := range n {
		w := words[rng.IntN(len(words))]
		if i == 0 {
			b.WriteByte(w[0] - 'a' + 'A')
			b.WriteString(w[1:])
			continue
		}
		b.WriteByte(' ')
		b.WriteString(w)
	}
}

func slug(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", "-"))
}

// seedSpan is the most years the seeded posts' dates span: a site with a
// million posts has written them over years, not centuries.
const seedSpan = 20

// seedDate is the date of the k-th of n seeded posts (from 0): one every
// three hours, or closer together when n of them would span more than
// seedSpan years, the last one a step before end. (A million posts three hours
// apart went back 342 years, past what a time.Duration holds: the
// oldest 146,000 wrapped round to dates centuries ahead.)
func seedDate(end time.Time, n, k int) time.Time {
	step := 3 * time.Hour
	if perPost := time.Duration(seedSpan) * 365 * 24 * time.Hour / time.Duration(max(n, 1)); perPost < step {
		step = perPost
	}
	return end.Add(-time.Duration(n-k) * step)
}
