package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// Search totals. The total of a search (X-API-Total) counts its matches
// in the full-text index, and a word in most posts costs its whole list
// there: over 100 ms at a million posts. search_totals (migrations 0023
// and 0025) keeps the totals of the searches counted lately, and the
// writer keeps them exact: before each batch commits, it works out how
// many of the queued posts each kept search matched before (asking the
// index about those posts alone) and matches now (their new documents,
// checked in Go by the index's rules), and writes the new totals in the
// same transaction. A reader finds a kept total in its own snapshot, so a
// total is always that of the snapshot it is read in.
//
// A search not kept is counted by the reader that asks for it, on a
// snapshot whose index version (search_totals' row '') it reads first.
// It announces the count to the writer before counting; from the first
// batch that commits on top of that version, the writer adds what the
// batch changed to the search's future total, and once the count is in,
// it keeps the search with the count plus those changes. A batch that
// committed between the reader's snapshot and the writer seeing the
// announcement is caught up from the documents of the last batches, kept
// while they only added posts; otherwise the announcement is dropped and
// the search stays unkept until a later count.
//
// The totals are one JSON array, in the row '' beside the version (list):
// each kept search's row holds its words, its kinds and its place in the
// array (slot), so that a batch writes one row however many totals it
// changes.
//
// Every process writing the file keeps the totals the same way, and any
// change to the index or to search_totals moves the version: a writer
// that finds a version it did not write reloads the kept searches and
// drops what was announced to it.

// maxSearchTotals bounds the searches kept: each costs the writer a
// check of every new post.
const maxSearchTotals = 256

// keepTotalsFrom is the total from which a counted search is kept: a
// smaller one costs little to count again, and a search for a word in
// few posts (a new word each time) would push out the ones worth
// keeping, and cost a batch each.
const keepTotalsFrom = 5000

// searchTotalsHistory is how many of the last batches' documents the
// writer keeps to catch announcements up.
const searchTotalsHistory = 16

// searchTotalsHistoryDocs bounds the documents of a batch kept for
// catching up: a bulk load's batches are not kept.
const searchTotalsHistoryDocs = 256

// keepFromCount is the count of a search from which it is kept once half
// of maxSearchTotals are: a search asked once, as the words of a crawler
// or of random queries are, does not push out the ones asked again and
// again (an LRU of 256 searches alone was emptied of every common word by
// a few hundred random pairs of words, and each of those words cost its
// count again). Below half, a search is kept from its first count, so
// that a new site's common words cost one count each, not two.
const keepFromCount = 2

// maxSearchesSeen bounds the searches counted once that are remembered
// (searchTotals.seen), in two generations of half as many.
const maxSearchesSeen = 4096

// announcedWait is how long a reader waits for the search another reader
// counts to be kept before counting it too.
const announcedWait = 2 * time.Second

// keptTotal is a kept search, its total and its place in the list.
type keptTotal struct {
	words, kinds []string
	n            int64
	slot         int
}

// announcedTotal is a search a reader is counting.
type announcedTotal struct {
	key          string
	words, kinds []string
	// version is the index version of the reader's snapshot.
	version int64
	// counted and n are the reader's count, set under the lock.
	counted bool
	n       int64
	// adopted is set once the writer follows the search's changes, and
	// delta is their sum since version (the writer's, once committed).
	adopted bool
	delta   int64
	// done is closed when the search is kept or dropped.
	done    chan struct{}
	dropped bool
}

// historyBatch is a committed batch that only added posts (or changed
// nothing in the index): their documents.
type historyBatch struct {
	version int64
	docs    []string
}

// searchTotals is the writer's side of search_totals.
type searchTotals struct {
	mu sync.Mutex
	// version is the index version kept and entries are at, -1 before
	// the first batch reads them.
	version int64
	kept    map[string]*keptTotal
	// used is when each kept search was last read (for eviction).
	used      map[string]time.Time
	announced map[string]*announcedTotal
	history   []historyBatch
	// max is how many searches are kept (maxSearchTotals), from is
	// keepTotalsFrom, asked is keepFromCount.
	max   int
	from  int64
	asked int
	// seen and seenBefore are the searches counted lately and not kept
	// (the last two generations of maxSearchesSeen/2), for keepFromCount.
	seen, seenBefore map[string]bool

	// open is what the open batch changes, applied once it commits.
	open *totalsChange
}

// keptAnnouncement is an announcement a batch keeps, and its place in
// the list.
type keptAnnouncement struct {
	a    *announcedTotal
	slot int
}

// keptUpdate is a kept search's total after a batch.
type keptUpdate struct {
	k *keptTotal
	n int64
}

// totalsChange is what one batch changes in the kept totals.
type totalsChange struct {
	version  int64 // the version the batch commits
	reload   map[string]*keptTotal
	updates  []keptUpdate // new totals of kept searches
	adopted  map[*announcedTotal]int64
	kept     []keptAnnouncement // announcements kept, with their totals
	evicted  []string
	history  *historyBatch
	dropHist bool // the batch cannot be replayed
}

func newSearchTotals() *searchTotals {
	return &searchTotals{version: -1, max: maxSearchTotals, from: keepTotalsFrom, asked: keepFromCount,
		used: map[string]time.Time{}, announced: map[string]*announcedTotal{}, seen: map[string]bool{}}
}

// askedAgain notes that key is counted and reports whether it may be
// kept: from its first count while fewer than half of max searches are
// kept or being counted, from its keepFromCount-th count among the
// searches seen lately after that.
func (t *searchTotals) askedAgain(key string) bool {
	if t.asked <= 1 {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen[key] || t.seenBefore[key] || len(t.kept)+len(t.announced) < t.max/2 {
		return true
	}
	if len(t.seen) >= maxSearchesSeen/2 {
		t.seenBefore, t.seen = t.seen, map[string]bool{}
	}
	t.seen[key] = true
	return false
}

// totalKey is a search's key in search_totals.
func totalKey(words, kinds []string) string {
	return strings.Join(words, " ") + "\x00" + strings.Join(kinds, " ")
}

// SearchTotal implements sqlstore.SearchTotals.
func (c *conns) SearchTotal(ctx context.Context, words, kinds []string, count func(ctx context.Context, c sqlstore.Conn) (int64, error)) (int64, error) {
	t := c.group.totals
	if !c.group.searchQueue.Load() {
		// Not migrated (search_totals may not exist): count.
		return count(ctx, readConn{c})
	}
	key := totalKey(words, kinds)
	for range 2 {
		if n, ok, err := c.keptTotal(ctx, key); err != nil || ok {
			return n, err
		}
		t.mu.Lock()
		a := t.announced[key]
		t.mu.Unlock()
		if a == nil {
			break
		}
		// Another reader counts it: wait for it to be kept, for a while.
		wait := time.NewTimer(announcedWait)
		select {
		case <-a.done:
		case <-wait.C:
		case <-ctx.Done():
			wait.Stop()
			return 0, ctx.Err()
		}
		wait.Stop()
	}
	leave := func() {}
	if c.counts != nil { // a slot before a connection (sqlstore.Gate)
		var err error
		if leave, err = c.counts.Enter(ctx); err != nil {
			return 0, err
		}
		defer leave()
		// Kept while this waited?
		if n, ok, err := c.keptTotal(ctx, key); err != nil || ok {
			return n, err
		}
	}
	tx, err := c.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var version int64
	if err := scanOne(ctx, tx, `SELECT n FROM search_totals WHERE key = ''`, &version); err != nil {
		return 0, err
	}
	var a *announcedTotal
	if t.askedAgain(key) {
		a = t.announce(key, words, kinds, version)
	}
	n, err := count(ctx, tx)
	if a == nil {
		return n, err
	}
	if err != nil || n < t.from {
		t.drop(a)
		return n, err
	}
	if !t.counted(a, n) {
		return n, nil
	}
	// A write transaction of nothing: its batch keeps the search. The
	// count is done: its slot goes to the next one meanwhile.
	_ = tx.Rollback(ctx)
	leave()
	if m, err := c.group.begin(ctx); err == nil {
		_ = m.Commit(ctx)
	}
	return n, nil
}

// keptTotal reads a kept total.
func (c *conns) keptTotal(ctx context.Context, key string) (int64, bool, error) {
	rs, err := c.stmts.query(ctx, keptTotalQuery, []any{key})
	if err != nil {
		return 0, false, err
	}
	defer rs.Close()
	if !rs.Next() {
		return 0, false, rs.Err()
	}
	var n sql.NullInt64
	if err := rs.Scan(&n); err != nil {
		return 0, false, err
	}
	if !n.Valid {
		return 0, false, fmt.Errorf("search_totals %q: no total in the list", key)
	}
	t := c.group.totals
	t.mu.Lock()
	t.used[key] = time.Now()
	t.mu.Unlock()
	return n.Int64, true, nil
}

// keptTotalQuery reads a kept search's total from the list.
const keptTotalQuery = `SELECT v.list ->> t.slot FROM search_totals t, search_totals v WHERE t.key = ? AND v.key = ''`

// announce notes that a reader counts key on a snapshot of version; nil
// when another reader announced it first.
func (t *searchTotals) announce(key string, words, kinds []string, version int64) *announcedTotal {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.announced[key] != nil {
		return nil
	}
	a := &announcedTotal{key: key, words: words, kinds: kinds, version: version, done: make(chan struct{})}
	t.announced[key] = a
	return a
}

// counted sets a's count; false when a was dropped meanwhile.
func (t *searchTotals) counted(a *announcedTotal, n int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	a.n, a.counted = n, true
	return !a.dropped
}

// drop forgets a. The caller must not hold the lock.
func (t *searchTotals) drop(a *announcedTotal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dropLocked(a)
}

func (t *searchTotals) dropLocked(a *announcedTotal) {
	if a.dropped {
		return
	}
	a.dropped = true
	if t.announced[a.key] == a {
		delete(t.announced, a.key)
	}
	close(a.done)
}

// searchDoc is a document of posts_fts as the index matches it: its
// words sorted, its kind's mark and whether it has the password mark.
type searchDoc struct {
	words     []string
	kind      string
	protected bool
}

func parseSearchDoc(doc string) searchDoc {
	var d searchDoc
	for w := range strings.SplitSeq(doc, " ") {
		switch {
		case w == "":
		case w == sqlstore.SearchMarkProtected:
			d.protected = true
		case strings.HasPrefix(w, sqlstore.SearchMarkKind):
			d.kind = w
		default:
			d.words = append(d.words, w)
		}
	}
	slices.Sort(d.words)
	d.words = slices.Compact(d.words)
	return d
}

// matches reports whether the index matches d for a kept search: one of
// its kinds, no password, and every word begins one of d's words.
func (d *searchDoc) matches(words, kinds []string) bool {
	if d.protected || !slices.Contains(kinds, d.kind) {
		return false
	}
	for _, w := range words {
		i, _ := slices.BinarySearch(d.words, w)
		if i == len(d.words) || !strings.HasPrefix(d.words[i], w) {
			return false
		}
	}
	return true
}

// totalsBatch is the writer's work on the kept totals in one batch.
type totalsBatch struct {
	t   *searchTotals
	q   sqlTx
	cur int64 // the committed version
	// follow are the searches whose changes the batch counts: the kept
	// ones and the adopted announcements.
	follow []followed
	ch     *totalsChange
}

type followed struct {
	key          string
	words, kinds []string
	delta        int64
	// kept is set for a kept search, announced for an announcement.
	kept      *keptTotal
	announced *announcedTotal
}

// begin starts the batch's work: it reads the version, reloads the kept
// searches when another process moved it, and adopts announcements.
func (t *searchTotals) begin(ctx context.Context, q sqlTx) (*totalsBatch, error) {
	b := &totalsBatch{t: t, q: q, ch: &totalsChange{adopted: map[*announcedTotal]int64{}}}
	if err := scanOne(ctx, q, `SELECT n FROM search_totals WHERE key = ''`, &b.cur); err != nil {
		return nil, err
	}
	kept := t.kept
	if b.cur != t.version || kept == nil {
		reload, err := loadTotals(ctx, q)
		if err != nil {
			return nil, err
		}
		b.ch.reload, kept = reload, reload
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	b.follow = make([]followed, 0, len(kept)+len(t.announced))
	for key, k := range kept {
		b.follow = append(b.follow, followed{key: key, words: k.words, kinds: k.kinds, kept: k})
	}
	if b.ch.reload != nil {
		for _, a := range t.announced {
			t.dropLocked(a)
		}
		return b, nil
	}
	for _, a := range t.announced {
		if a.adopted {
			b.follow = append(b.follow, followed{key: a.key, words: a.words, kinds: a.kinds, announced: a})
			continue
		}
		delta, ok := t.catchUp(a, b.cur)
		if !ok {
			t.dropLocked(a)
			continue
		}
		b.ch.adopted[a] = delta
		b.follow = append(b.follow, followed{key: a.key, words: a.words, kinds: a.kinds, announced: a})
	}
	return b, nil
}

// catchUp returns what the batches committed after a's version changed
// in its total, when the history holds them all.
func (t *searchTotals) catchUp(a *announcedTotal, cur int64) (int64, bool) {
	if a.version == cur {
		return 0, true
	}
	if a.version > cur || cur-a.version > int64(len(t.history)) {
		return 0, false
	}
	var delta int64
	for _, h := range t.history[len(t.history)-int(cur-a.version):] {
		for _, doc := range h.docs {
			d := parseSearchDoc(doc)
			if d.matches(a.words, a.kinds) {
				delta++
			}
		}
	}
	return delta, true
}

func loadTotals(ctx context.Context, q sqlTx) (map[string]*keptTotal, error) {
	var raw sql.NullString
	if err := scanOne(ctx, q, `SELECT list FROM search_totals WHERE key = ''`, &raw); err != nil {
		return nil, err
	}
	var list []int64
	if raw.Valid {
		if err := json.Unmarshal([]byte(raw.String), &list); err != nil {
			return nil, fmt.Errorf("search_totals list: %w", err)
		}
	}
	rs, err := q.Query(ctx, `SELECT key, words, kinds, slot FROM search_totals WHERE key <> ''`)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	kept := map[string]*keptTotal{}
	for rs.Next() {
		var key, words, kinds string
		k := &keptTotal{}
		if err := rs.Scan(&key, &words, &kinds, &k.slot); err != nil {
			return nil, err
		}
		if err := errors.Join(json.Unmarshal([]byte(words), &k.words), json.Unmarshal([]byte(kinds), &k.kinds)); err != nil {
			return nil, fmt.Errorf("search_totals %q: %w", key, err)
		}
		if k.slot < 0 || k.slot >= len(list) {
			return nil, fmt.Errorf("search_totals %q: slot %d of a list of %d", key, k.slot, len(list))
		}
		k.n = list[k.slot]
		kept[key] = k
	}
	return kept, rs.Err()
}

// scanOne scans the first row of query, if any, into dest.
func scanOne(ctx context.Context, q sqlstore.Conn, query string, dest any, args ...any) error {
	rs, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	if rs.Next() {
		if err := rs.Scan(dest); err != nil {
			return err
		}
	}
	return rs.Err()
}

// before subtracts, from every followed search, the queued posts it
// matches in the index as it is: those about to be deleted or replaced.
func (b *totalsBatch) before(ctx context.Context) error {
	for i := range b.follow {
		f := &b.follow[i]
		a := &sqlstore.Args{}
		query := dialect{}.SearchCount(a, f.words, f.kinds) +
			` AND rowid IN (SELECT id FROM posts_fts_queue WHERE op <> 'i')`
		var n int64
		if err := scanOne(ctx, b.q, query, &n, a.Values()...); err != nil {
			return err
		}
		f.delta -= n
	}
	return nil
}

// after adds, to every followed search, the new documents it matches.
func (b *totalsBatch) after(posts []queuedPost) {
	if len(b.follow) == 0 {
		return
	}
	for i := range posts {
		d := parseSearchDoc(posts[i].document)
		for j := range b.follow {
			if d.matches(b.follow[j].words, b.follow[j].kinds) {
				b.follow[j].delta++
			}
		}
	}
}

// finish writes the batch's totals, keeps the counted announcements and
// moves the version when the index or search_totals changed. docs are
// the batch's new documents when it only added posts (replayable), nil
// otherwise; indexed is whether the index changed at all.
func (b *totalsBatch) finish(ctx context.Context, indexed, replayable bool, docs []string) error {
	t, ch := b.t, b.ch
	changed := indexed
	kept := t.kept
	if ch.reload != nil {
		kept = ch.reload
	}
	for _, f := range b.follow {
		if f.kept != nil && f.delta != 0 {
			ch.updates = append(ch.updates, keptUpdate{f.kept, f.kept.n + f.delta})
			changed = true
		}
	}
	t.mu.Lock()
	var keep []*announcedTotal
	for _, f := range b.follow {
		a := f.announced
		if a == nil || a.dropped {
			continue
		}
		ch.adopted[a] += f.delta // after what begin caught up
		switch {
		case !a.counted:
		case kept[a.key] != nil: // kept meanwhile by another process
			t.dropLocked(a)
		default:
			keep = append(keep, a)
		}
	}
	// The least used kept searches make room.
	room := len(kept) + len(keep) - t.max
	var evict []string
	if room > 0 {
		keys := make([]string, 0, len(kept))
		for key := range kept {
			keys = append(keys, key)
		}
		slices.SortFunc(keys, func(x, y string) int { return t.used[x].Compare(t.used[y]) })
		evict = keys[:min(room, len(keys))]
	}
	t.mu.Unlock()
	for _, key := range evict {
		if _, err := b.q.Exec(ctx, `DELETE FROM search_totals WHERE key = ?`, key); err != nil {
			return err
		}
		changed = true
	}
	ch.evicted = evict
	// The list after the batch: every total, new ones in the places the
	// evicted and the lowest free ones leave.
	var list []int64
	var taken []bool
	set := func(slot int, n int64) {
		for len(list) <= slot {
			list, taken = append(list, 0), append(taken, false)
		}
		list[slot], taken[slot] = n, true
	}
	var evicted map[string]bool
	if len(evict) > 0 {
		evicted = make(map[string]bool, len(evict))
		for _, key := range evict {
			evicted[key] = true
		}
	}
	for _, f := range b.follow {
		if f.kept != nil && !evicted[f.key] {
			set(f.kept.slot, f.kept.n+f.delta)
		}
	}
	free := 0
	for _, a := range keep {
		for free < len(taken) && taken[free] {
			free++
		}
		total := a.n + a.delta + ch.adopted[a]
		words, _ := json.Marshal(a.words)
		kinds, _ := json.Marshal(a.kinds)
		if _, err := b.q.Exec(ctx, `INSERT OR REPLACE INTO search_totals (key, words, kinds, n, slot) VALUES (?, ?, ?, 0, ?)`,
			a.key, string(words), string(kinds), free); err != nil {
			return err
		}
		set(free, total)
		ch.kept = append(ch.kept, keptAnnouncement{a, free})
		changed = true
	}
	ch.version = b.cur
	if changed {
		ch.version = b.cur + 1
		if _, err := b.q.Exec(ctx, `UPDATE search_totals SET n = ?, list = ? WHERE key = ''`, ch.version, totalsList(list)); err != nil {
			return err
		}
		if replayable && len(docs) <= searchTotalsHistoryDocs {
			ch.history = &historyBatch{version: ch.version, docs: docs}
		} else {
			ch.dropHist = true
		}
	}
	t.open = ch
	return nil
}

// totalsList is list as the JSON array search_totals keeps.
func totalsList(list []int64) string {
	b := make([]byte, 0, 2+8*len(list))
	b = append(b, '[')
	for i, n := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, n, 10)
	}
	return string(append(b, ']'))
}

// committed applies the open batch's change.
func (t *searchTotals) committed() {
	ch := t.open
	t.open = nil
	if ch == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ch.reload != nil {
		t.kept = ch.reload
		t.history = nil
		for key := range t.used {
			if t.kept[key] == nil {
				delete(t.used, key) // evicted by another process
			}
		}
	}
	for _, u := range ch.updates {
		u.k.n = u.n
	}
	for a, d := range ch.adopted {
		a.adopted = true
		a.delta += d
	}
	now := time.Now()
	for _, ka := range ch.kept {
		a := ka.a
		t.kept[a.key] = &keptTotal{words: a.words, kinds: a.kinds, n: a.n + a.delta, slot: ka.slot}
		t.used[a.key] = now
		if t.announced[a.key] == a {
			delete(t.announced, a.key)
		}
		close(a.done)
	}
	for _, key := range ch.evicted {
		delete(t.kept, key)
		delete(t.used, key)
	}
	switch {
	case ch.dropHist:
		t.history = nil
	case ch.history != nil:
		t.history = append(t.history, *ch.history)
		if len(t.history) > searchTotalsHistory {
			t.history = slices.Delete(t.history, 0, len(t.history)-searchTotalsHistory)
		}
	}
	t.version = ch.version
}

// rolledBack forgets the open batch's change.
func (t *searchTotals) rolledBack() { t.open = nil }

var _ sqlstore.SearchTotals = (*conns)(nil)

// KeptSearchTotal implements sqlstore.SearchTotals.
func (c *conns) KeptSearchTotal(ctx context.Context, words, kinds []string) (int64, bool, error) {
	if !c.group.searchQueue.Load() {
		return 0, false, nil
	}
	return c.keptTotal(ctx, totalKey(words, kinds))
}
