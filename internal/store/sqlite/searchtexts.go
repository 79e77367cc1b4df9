package sqlite

import (
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// The words of a post's text are split (sqlstore.SearchText) as the
// writer indexes the queued posts, in its turn, while every other write
// waits. A request that is about to write a post's text splits it before
// its write transaction (PrepareSearch, on its own goroutine), and the
// writer takes the words it finds here for a queued post whose title,
// excerpt and content are the same, splitting only the others.

// maxSearchTexts bounds the split texts kept for the writer: a text the
// writer never asks for (its write failed) is dropped once this many were
// kept after it.
const maxSearchTexts = 256

// searchTexts keeps texts split ahead of the writer, keyed by a hash of
// the fields, the fields kept to tell collisions apart.
type searchTexts struct {
	mu   sync.Mutex
	m    map[uint64]*splitText
	ring [maxSearchTexts]uint64 // keys in the order they were added
	next int
}

type splitText struct {
	title, excerpt, content string
	text                    string
}

func searchTextKey(title, excerpt, content string) uint64 {
	d := xxhash.New()
	_, _ = d.WriteString(title)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(excerpt)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(content)
	return d.Sum64()
}

// prepare splits the fields' text and keeps it for take.
func (s *searchTexts) prepare(title, excerpt, content string) {
	t := &splitText{title: title, excerpt: excerpt, content: content, text: sqlstore.SearchText(title, excerpt, content)}
	k := searchTextKey(title, excerpt, content)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[uint64]*splitText, maxSearchTexts)
	}
	if _, ok := s.m[k]; ok {
		s.m[k] = t // the same text again: one entry, once in the ring
		return
	}
	// The oldest key leaves (if the writer has not taken it yet). A key
	// taken and kept again since is dropped early here: the writer then
	// splits that text itself.
	if old := s.ring[s.next]; old != 0 {
		delete(s.m, old)
	}
	s.m[k] = t
	s.ring[s.next] = k
	s.next = (s.next + 1) % maxSearchTexts
}

// take returns the text split for the fields, if prepare kept it, and
// forgets it.
func (s *searchTexts) take(title, excerpt, content string) (string, bool) {
	k := searchTextKey(title, excerpt, content)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[k]
	if !ok || t.title != title || t.excerpt != excerpt || t.content != content {
		return "", false
	}
	delete(s.m, k)
	return t.text, true
}

// PrepareSearch splits a post's text into its search words now, for the
// writer to find when it indexes the post (store.SearchPreparer).
func (db *DB) PrepareSearch(title, excerpt, content string) {
	if title == "" && excerpt == "" && content == "" {
		return
	}
	db.c.group.texts.prepare(title, excerpt, content)
}
