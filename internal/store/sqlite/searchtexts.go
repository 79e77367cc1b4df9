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

// maxSearchTextBytes bounds the bytes of the fields and texts kept, and
// maxSearchTextPost the fields of one post that are split ahead: the
// writer splits a larger post itself, as it did before.
const (
	maxSearchTextBytes = 4 << 20
	maxSearchTextPost  = 64 << 10
)

// searchTexts keeps texts split ahead of the writer, keyed by a hash of
// the fields, the fields kept to tell collisions apart.
type searchTexts struct {
	mu    sync.Mutex
	m     map[uint64]*splitText
	ring  [maxSearchTexts]uint64 // keys in the order they were added
	next  int                    // the ring's oldest slot, the next one written
	bytes int                    // the size of what m holds
}

type splitText struct {
	title, excerpt, content string
	text                    string
}

func (t *splitText) size() int { return len(t.title) + len(t.excerpt) + len(t.content) + len(t.text) }

func searchTextKey(title, excerpt, content string) uint64 {
	d := xxhash.New()
	_, _ = d.WriteString(title)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(excerpt)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(content)
	return d.Sum64()
}

// prepare splits the fields' text and keeps it for take, unless the post
// is larger than maxSearchTextPost.
func (s *searchTexts) prepare(title, excerpt, content string) {
	if len(title)+len(excerpt)+len(content) > maxSearchTextPost {
		return
	}
	t := &splitText{title: title, excerpt: excerpt, content: content, text: sqlstore.SearchText(title, excerpt, content)}
	k := searchTextKey(title, excerpt, content)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[uint64]*splitText, maxSearchTexts)
	}
	if old, ok := s.m[k]; ok {
		s.bytes += t.size() - old.size()
		s.m[k] = t // the same text again: one entry, once in the ring
		return
	}
	// The oldest keys leave (those the writer has not taken yet), one
	// for the slot and more while the bytes kept are too many. A key
	// taken and kept again since is dropped early here: the writer then
	// splits that text itself.
	for n := 0; n < maxSearchTexts; n++ {
		s.drop(s.ring[s.next])
		s.ring[s.next] = 0
		if s.bytes+t.size() <= maxSearchTextBytes {
			break
		}
		s.next = (s.next + 1) % maxSearchTexts
	}
	s.m[k] = t
	s.bytes += t.size()
	s.ring[s.next] = k
	s.next = (s.next + 1) % maxSearchTexts
}

// drop forgets the text of key k, if kept.
func (s *searchTexts) drop(k uint64) {
	if t, ok := s.m[k]; ok {
		s.bytes -= t.size()
		delete(s.m, k)
	}
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
	s.drop(k)
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
