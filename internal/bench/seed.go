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
// store.PostBulkInserter), and returns their ids. The same seed gives the
// same posts. The next batch is written while the store inserts one.
func SeedPosts(ctx context.Context, st store.Store, n int, authors []int64, seed uint64) ([]int64, error) {
	if len(authors) == 0 {
		return nil, fmt.Errorf("seed posts: no authors")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []*store.Post, 1)
	go func() {
		defer close(batches)
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		// Posts are dated one every few hours, ending now.
		end := time.Now().UTC().Truncate(time.Second)
		step := 3 * time.Hour
		for done := 0; done < n; {
			posts := make([]*store.Post, min(seedBatch, n-done))
			for i := range posts {
				k := done + i
				posts[i] = fakePost(rng, k, authors[k%len(authors)], end.Add(-time.Duration(n-k)*step))
			}
			select {
			case batches <- posts:
			case <-ctx.Done():
				return
			}
			done += len(posts)
		}
	}()
	ids := make([]int64, 0, n)
	for posts := range batches {
		err := st.Tx(ctx, func(tx store.Store) error {
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
		if err != nil {
			return nil, fmt.Errorf("seed posts %d-%d: %w", len(ids)+1, len(ids)+len(posts), err)
		}
		for _, p := range posts {
			ids = append(ids, p.ID)
		}
	}
	return ids, ctx.Err()
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
	for b.Len() < size {
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "<!-- wp:heading -->\n<h2>%s</h2>\n<!-- /wp:heading -->\n\n", sentence(rng, 4))
		case 1:
			b.WriteString("<!-- wp:list -->\n<ul>")
			for range 2 + rng.IntN(3) {
				fmt.Fprintf(&b, "<li>%s</li>", sentence(rng, 5))
			}
			b.WriteString("</ul>\n<!-- /wp:list -->\n\n")
		default:
			b.WriteString("<!-- wp:paragraph -->\n<p>")
			for i := range 2 + rng.IntN(4) {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(sentence(rng, 8+rng.IntN(10)))
				b.WriteByte('.')
			}
			b.WriteString("</p>\n<!-- /wp:paragraph -->\n\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func sentence(rng *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[rng.IntN(len(words))]
	}
	ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
	return strings.Join(ws, " ")
}

func slug(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", "-"))
}
