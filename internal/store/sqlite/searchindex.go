package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// The writer applies posts_fts_queue (migration 0017) to the full-text
// index before each batch commits: the triggers on posts only note which
// posts changed. FTS5 writes its pending words at every savepoint, and
// every write transaction of a batch is a savepoint; written from the
// queue, the index gains one segment per batch instead of one per
// transaction. The writer splits each queued post's text into words once
// (sqlstore.SearchText), for posts_fts and for search_terms (the list of
// indexed words that prefix searches look up, migration 0020), and
// inserts into search_terms only the words it has not seen committed.

// searchIndexChunk is how many queued posts the writer reads and indexes
// at a time: the queue of a bulk import can hold every post of a site.
const searchIndexChunk = 256

// searchIndexParallel is the size of a chunk past which its posts' words
// are split on every CPU.
const searchIndexParallel = 16

// maxKnownTerms bounds the words the writer remembers as already in
// search_terms; past it, it forgets them all and inserts them again as
// they come (INSERT OR IGNORE: a lookup each).
const maxKnownTerms = 1 << 16

// searchTerms is the writer's memory of search_terms. Only the turn
// holder uses it.
type searchTerms struct {
	// known are words search_terms holds: committed there by this
	// writer, or found there by an insert that did nothing. Words are
	// never removed from search_terms, so known stays true while the
	// file is the same one.
	known map[string]struct{}
	// added are the words the open batch inserted: known once it
	// commits, forgotten if it rolls back.
	added []string
}

// committed makes the open batch's words known.
func (t *searchTerms) committed() {
	if len(t.known)+len(t.added) > maxKnownTerms {
		clear(t.known)
	}
	if t.known == nil {
		t.known = make(map[string]struct{}, len(t.added))
	}
	for _, w := range t.added {
		t.known[w] = struct{}{}
	}
	t.added = t.added[:0]
}

// rolledBack forgets the open batch's words.
func (t *searchTerms) rolledBack() { t.added = t.added[:0] }

// queuedPost is a queued post's indexed fields, then what the index
// gets for it.
type queuedPost struct {
	id                                             int64
	title, excerpt, content, typ, status, password string
	document                                       string
	// fresh are words of the post that are not known (searchTerms).
	fresh []string
}

// flushSearchQueue applies posts_fts_queue to posts_fts and search_terms
// in tx, the open batch, and empties it.
func (g *group) flushSearchQueue(tx *sql.Tx) error {
	if !g.searchQueue.Load() {
		return nil
	}
	ctx := context.Background()
	q := sqlTx{tx: tx, w: g.w} // the writer's prepared statements: the texts below are fixed
	totals, err := g.totals.begin(ctx, q)
	if err != nil {
		return fmt.Errorf("index searches: %w", err)
	}
	// Whether the batch changes or deletes indexed posts: it then cannot
	// be replayed from its new documents (searchtotals.go).
	var changes int64
	if err := scanOne(ctx, q, `SELECT COUNT(*) FROM posts_fts_queue WHERE op <> 'i'`, &changes); err != nil {
		return fmt.Errorf("index searches: %w", err)
	}
	if changes > 0 {
		if err := totals.before(ctx); err != nil {
			return fmt.Errorf("index searches: %w", err)
		}
		if _, err := q.Exec(ctx, `DELETE FROM posts_fts WHERE rowid IN (SELECT id FROM posts_fts_queue WHERE op <> 'i')`); err != nil {
			return fmt.Errorf("index searches: %w", err)
		}
	}
	var after int64
	var docs []string // the new documents, while few (searchTotalsHistoryDocs)
	posts := make([]queuedPost, 0, 8)
	for {
		posts = posts[:0]
		err := func() error {
			rows, err := q.Query(ctx, `SELECT p.id, p.title, p.excerpt, p.content, p.type, p.status, p.password
				FROM posts_fts_queue q CROSS JOIN posts p ON p.id = q.id
				WHERE q.id > ? AND q.op <> 'd' ORDER BY q.id LIMIT ?`, after, searchIndexChunk)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var p queuedPost
				if err := rows.Scan(&p.id, &p.title, &p.excerpt, &p.content, &p.typ, &p.status, &p.password); err != nil {
					return err
				}
				posts = append(posts, p)
			}
			return rows.Err()
		}()
		if err != nil {
			return fmt.Errorf("index searches: %w", err)
		}
		if len(posts) == 0 {
			break
		}
		g.terms.index(posts, &g.texts)
		if err := writeSearchIndex(ctx, q, posts, &g.terms); err != nil {
			return fmt.Errorf("index searches: %w", err)
		}
		totals.after(posts)
		if after == 0 && len(posts) <= searchTotalsHistoryDocs {
			for _, p := range posts {
				docs = append(docs, p.document)
			}
		} else {
			docs = nil
		}
		if len(posts) < searchIndexChunk {
			break
		}
		after = posts[len(posts)-1].id
	}
	res, err := q.Exec(ctx, `DELETE FROM posts_fts_queue`)
	if err != nil {
		return fmt.Errorf("index searches: %w", err)
	}
	queued, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("index searches: %w", err)
	}
	if err := totals.finish(ctx, queued > 0, changes == 0 && (docs != nil || queued == 0), docs); err != nil {
		return fmt.Errorf("search totals: %w", err)
	}
	return nil
}

// index sets each post's document and fresh words, on every CPU when
// there are many posts, with the texts split ahead (texts) where there
// are. known is only read meanwhile.
func (t *searchTerms) index(posts []queuedPost, texts *searchTexts) {
	split := make([]string, len(posts))
	found := make([]bool, len(posts))
	for i, p := range posts {
		split[i], found[i] = texts.take(p.title, p.excerpt, p.content)
	}
	one := func(i int) {
		p := &posts[i]
		text := split[i]
		if !found[i] {
			text = sqlstore.SearchText(p.title, p.excerpt, p.content)
		}
		p.document = sqlstore.SearchDocumentOf(text, p.typ, p.status, p.password)
		p.fresh = p.fresh[:0]
		for w := range strings.SplitSeq(text, " ") {
			if _, ok := t.known[w]; !ok && w != "" {
				p.fresh = append(p.fresh, w)
			}
		}
		// The text is not needed any more: only the document is written.
		p.title, p.excerpt, p.content = "", "", ""
	}
	workers := runtime.GOMAXPROCS(0)
	if len(posts) < searchIndexParallel || workers < 2 {
		for i := range posts {
			one(i)
		}
		return
	}
	var wg sync.WaitGroup
	per := (len(posts) + workers - 1) / workers
	for lo := 0; lo < len(posts); lo += per {
		hi := min(lo+per, len(posts))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				one(i)
			}
		})
	}
	wg.Wait()
}

// writeSearchIndex inserts the posts' documents into posts_fts and their
// fresh words into search_terms, each in one statement of a fixed text
// (the rows as a JSON array).
func writeSearchIndex(ctx context.Context, q sqlTx, posts []queuedPost, t *searchTerms) error {
	docs := make([][2]any, len(posts))
	for i, p := range posts {
		docs[i] = [2]any{p.id, p.document}
	}
	list, err := json.Marshal(docs)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `INSERT INTO posts_fts (rowid, words)
		SELECT value ->> 0, value ->> 1 FROM json_each(?)`, string(list)); err != nil {
		return err
	}
	var fresh []string
	seen := map[string]struct{}{}
	for _, p := range posts {
		for _, w := range p.fresh {
			if _, ok := seen[w]; !ok {
				seen[w] = struct{}{}
				fresh = append(fresh, strings.Clone(w)) // not a piece of a document
			}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	list, err = json.Marshal(fresh)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `INSERT OR IGNORE INTO search_terms (term) SELECT value FROM json_each(?)`, string(list)); err != nil {
		return err
	}
	t.added = append(t.added, fresh...)
	return nil
}
