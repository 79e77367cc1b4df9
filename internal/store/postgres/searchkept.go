package postgres

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

// Kept totals of common searches (migration 0034). The total of a search
// for a word in most posts counts every match (seconds at a million
// posts), each time it is asked; search_kept names up to maxKeptSearches
// searches whose totals triggers keep in search_kept_counts, per type and
// status of the posts, as the posts change. A search is kept by the
// request that counts it (sqlstore's countCommonSearch, in the turns of
// costly counts):
//
//  1. under an advisory lock, the search is written at a free position
//     (or at that of the search this process read least lately), not
//     kept yet: from then on every write that starts counts its matches;
//  2. the request waits until every transaction that was writing posts
//     when the search was written has ended: those may not have seen it;
//  3. one statement counts the search's matches per type and status and
//     sets the base of its position to that count minus what the slots
//     hold there, in the same snapshot, and marks it kept. Writes seen by
//     that snapshot are in the count and in the slots (they cancel);
//     later ones add to the slots. What a search kept there before left
//     in the slots is cancelled by the base too.
//
// A reader reads the kept row and the counts in one snapshot, so a total
// is that of the snapshot it is read in.

// maxKeptSearches is how many searches are kept: the bound of
// search_kept's positions (migration 0034). Each costs every write a
// match of its words against each post written.
const maxKeptSearches = 128

// maxKeptSeen bounds the searches counted and not kept that are
// remembered, in two generations of half as many.
const maxKeptSeen = 4096

// keptWait bounds how long keeping a search waits for the transactions
// that were writing posts when it was written; past it, the search is
// counted as before, and a later count tries again.
const keptWait = 500 * time.Millisecond

// keptSearches is what this process remembers of the kept searches.
type keptSearches struct {
	mu sync.Mutex
	// read is when this process last read each kept search's total.
	read map[string]time.Time
	// seen and seenBefore are the searches counted and not kept lately.
	seen, seenBefore map[string]bool
	// kept is how many searches the database kept when last looked at.
	kept int
	// loads is how many bulk loads this process runs (BulkLoad): none
	// is kept meanwhile.
	loads int
}

var _ sqlstore.SearchKeeper = (*conns)(nil)

func keptKey(words []string) string { return strings.Join(words, "\x00") }

// KeptSearch returns the kept total of words' unprotected matches among
// types × statuses, NULL when the search is not kept.
func (c *conns) KeptSearch(a *sqlstore.Args, words, types, statuses []string) string {
	return `SELECT CASE WHEN k.kept THEN (SELECT COALESCE(SUM(c.n[k.pos]), 0)::bigint FROM search_kept_counts c
		WHERE c.type = ANY (` + a.Add(types) + `::text[]) AND c.status = ANY (` + a.Add(statuses) + `::text[])) END
		FROM search_kept k WHERE k.words = ` + a.Add(words) + `::text[]`
}

// SearchRead notes that words' kept total was read.
func (c *conns) SearchRead(words []string) {
	k := &c.kept
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.read == nil {
		k.read = map[string]time.Time{}
	}
	k.read[keptKey(words)] = time.Now()
}

// KeepSearch keeps words' search when this process chooses to (its first
// count while fewer than half the positions are taken, its second count
// after that) and returns its unprotected matches among types × statuses.
// kept is false when the search is to be counted as before: not chosen,
// being kept by another request, or the transactions to wait for still
// running after keptWait.
func (c *conns) KeepSearch(ctx context.Context, words, types, statuses []string) (int64, bool, error) {
	key := keptKey(words)
	if !c.kept.choose(key) {
		return 0, false, nil
	}
	pos, ok, err := c.placeSearch(ctx, words)
	if err != nil || !ok {
		return 0, false, err
	}
	ok, err = c.waitForWriters(ctx)
	if err != nil || !ok {
		return 0, false, err
	}
	n, ok, err := c.countKept(ctx, pos, words, types, statuses)
	if err != nil || !ok {
		return 0, false, err
	}
	c.SearchRead(words)
	return n, true, nil
}

// choose tells whether the search of key is to be kept now, and
// remembers it when it is not: while fewer than half of maxKeptSearches
// are kept, from its first count; after that, from its second, so that
// searches asked once (a crawler's, random queries) do not push out the
// ones asked again and again.
func (k *keptSearches) choose(key string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.loads > 0 {
		return false
	}
	if k.kept < maxKeptSearches/2 || k.seen[key] || k.seenBefore[key] {
		return true
	}
	if k.seen == nil || len(k.seen) >= maxKeptSeen/2 {
		k.seen, k.seenBefore = map[string]bool{}, k.seen
	}
	k.seen[key] = true
	return false
}

// placeSearch writes words' search at a position, not kept yet: the first
// free one, or that of the kept search this process read least lately
// (one it never read first). ok is false when the search is kept
// already; a search placed by a count that did not keep it (its wait ran
// out, or its process ended) is kept by this one.
func (c *conns) placeSearch(ctx context.Context, words []string) (pos int, ok bool, err error) {
	err = pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(c.keyPrefix+"search_kept")); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT pos, words, kept FROM search_kept ORDER BY pos`)
		if err != nil {
			return err
		}
		taken := map[int]string{}
		key := keptKey(words)
		var p int
		var w []string
		var kept bool
		if _, err := pgx.ForEachRow(rows, []any{&p, &w, &kept}, func() error {
			taken[p] = keptKey(w)
			if taken[p] == key {
				// Kept already, or placed by a count that did not finish
				// keeping it (which this one does).
				pos, ok = p, !kept
			}
			return nil
		}); err != nil || pos != 0 {
			return err
		}
		pos = c.kept.position(taken)
		_, err = tx.Exec(ctx, `INSERT INTO search_kept (pos, words, query, kept) VALUES ($1, $2::text[], $3::tsquery, false)
			ON CONFLICT (pos) DO UPDATE SET words = excluded.words, query = excluded.query, kept = false`,
			pos, words, prefixQuery(words))
		ok = err == nil
		return err
	})
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "25006" {
			// A read-only server (a standby, default_transaction_read_only):
			// its searches are counted as before.
			return 0, false, nil
		}
		return 0, false, fail("keep search", err)
	}
	return pos, ok, nil
}

// position returns the position for a new search among the taken ones
// (position to key), and forgets the reads of searches no longer kept.
func (k *keptSearches) position(taken map[int]string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kept = len(taken) + 1
	keys := map[string]bool{}
	for _, key := range taken {
		keys[key] = true
	}
	for key := range k.read {
		if !keys[key] {
			delete(k.read, key)
		}
	}
	for p := 1; p <= maxKeptSearches; p++ {
		if _, used := taken[p]; !used {
			return p
		}
	}
	k.kept = maxKeptSearches
	best, bestRead := 0, time.Time{}
	for p := 1; p <= maxKeptSearches; p++ {
		if r := k.read[taken[p]]; best == 0 || r.Before(bestRead) {
			best, bestRead = p, r
		}
	}
	return best
}

// postWriters selects the transactions (virtual ids) that hold a lock on
// this schema's posts other than a plain read's: every transaction that
// has written posts (and so run their triggers) until it ends, and those
// that locked rows of it to write them.
const postWriters = `SELECT COALESCE(array_agg(DISTINCT virtualtransaction), '{}') FROM pg_locks
	WHERE locktype = 'relation' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND relation = 'posts'::regclass AND mode <> 'AccessShareLock' AND pid <> pg_backend_pid()`

// waitForWriters waits until every transaction that writes posts now has
// ended, for at most keptWait; ok is false when some still run then. A
// write whose triggers ran before the search was placed did not count
// it, and has written posts; one that writes posts later sees it (a
// statement of a READ COMMITTED transaction takes its snapshot when it
// starts). Other databases and schemas, and transactions that only read
// posts, are not waited for.
func (c *conns) waitForWriters(ctx context.Context) (ok bool, err error) {
	var running []string
	if err := c.pool.QueryRow(ctx, postWriters).Scan(&running); err != nil {
		return false, fail("keep search", err)
	}
	deadline := time.Now().Add(keptWait)
	for delay := 100 * time.Microsecond; len(running) > 0; delay = min(2*delay, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, fail("keep search", ctx.Err())
		case <-time.After(delay):
		}
		var now []string
		if err := c.pool.QueryRow(ctx, postWriters).Scan(&now); err != nil {
			return false, fail("keep search", err)
		}
		// Those still writing (a virtual id is not used again by a later
		// transaction of its backend).
		running = slices.DeleteFunc(running, func(v string) bool { return !slices.Contains(now, v) })
	}
	return true, nil
}

// countKept counts the search at pos, sets its base and marks it kept, in
// one REPEATABLE READ transaction (one snapshot), and returns its
// unprotected matches among types × statuses. ok is false when pos no
// longer holds the search, holds it kept already, or another request
// changed it meanwhile (a serialization failure).
func (c *conns) countKept(ctx context.Context, pos int, words, types, statuses []string) (n int64, ok bool, err error) {
	err = pgx.BeginTxFunc(ctx, c.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM search_kept WHERE pos = $1 AND words = $2::text[] AND NOT kept)`,
			pos, words).Scan(&ok); err != nil || !ok {
			return err
		}
		// The matches per type and status, planned for the words (run
		// as pgx's unnamed statement, as PlanEach does): the planner
		// reads the posts' ids, types and statuses from
		// posts_type_status_date and leaves the protected ones out
		// through posts_protected.
		counts := map[[2]string]int64{}
		var kind [2]string
		var k int64
		rows, err := tx.Query(ctx, `SELECT p.type, p.status, COUNT(*) FROM posts p JOIN post_search s ON s.post_id = p.id
			WHERE s.words @@ $1::tsquery AND NOT EXISTS (SELECT 1 FROM posts x WHERE x.id = p.id AND x.password <> '')
			GROUP BY 1, 2`, pgx.QueryExecModeCacheDescribe, prefixQuery(words))
		if err != nil {
			return err
		}
		if _, err := pgx.ForEachRow(rows, []any{&kind[0], &kind[1], &k}, func() error {
			counts[kind] = k
			if slices.Contains(types, kind[0]) && slices.Contains(statuses, kind[1]) {
				n += k
			}
			return nil
		}); err != nil {
			return err
		}
		// What the slots hold at pos (writes this snapshot sees, and what
		// a search kept there before left).
		rows, err = tx.Query(ctx, `SELECT type, status, COALESCE(SUM(n[$1]) FILTER (WHERE slot >= 0), 0)::bigint
			FROM search_kept_counts GROUP BY 1, 2`, pos)
		if err != nil {
			return err
		}
		held := map[[2]string]int64{}
		if _, err := pgx.ForEachRow(rows, []any{&kind[0], &kind[1], &k}, func() error {
			held[kind] = k
			return nil
		}); err != nil {
			return err
		}
		var bt, bs []string
		var bn []int64
		for kind := range counts { // every kind counted gets a base
			if _, ok := held[kind]; !ok {
				held[kind] = 0
			}
		}
		for kind, h := range held {
			bt, bs, bn = append(bt, kind[0]), append(bs, kind[1]), append(bn, counts[kind]-h)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO search_kept_counts AS c (type, status, slot, n)
			SELECT b.type, b.status, -1, folio_search_kept_add('{}', ARRAY[$1::integer], ARRAY[b.n])
			FROM unnest($2::text[], $3::text[], $4::integer[]) AS b(type, status, n)
			ON CONFLICT (type, status, slot) DO UPDATE SET n[$1] = excluded.n[$1]`, pos, bt, bs, bn); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE search_kept SET kept = true WHERE pos = $1`, pos)
		return err
	})
	if err != nil {
		if (dialect{}).Busy(err) {
			return 0, false, nil
		}
		return 0, false, fail("keep search", err)
	}
	return n, ok, nil
}

var _ store.BulkLoader = (*DB)(nil)

// BulkLoad runs load (folio import, folio db copy, the bench's seeding)
// with no search kept: the insert trigger would match every loaded post
// against each kept search (some 45 µs a post with 87 kept). The kept
// searches are dropped first, this process keeps none until the load
// ends, and the searches are kept again by their next counts afterwards
// (what a dropped search left in search_kept_counts is cancelled by the
// base of the search kept at its position next). Searches stay exact
// meanwhile: they are counted. It implements store.BulkLoader.
func (db *DB) BulkLoad(ctx context.Context, load func(ctx context.Context) error) error {
	k := &db.c.kept
	k.mu.Lock()
	k.loads++
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.loads--
		k.mu.Unlock()
	}()
	if _, err := db.c.pool.Exec(ctx, `DELETE FROM search_kept`); err != nil {
		return fail("bulk load", err)
	}
	k.mu.Lock()
	k.kept = 0 // the next counts keep from their first again
	k.mu.Unlock()
	return load(ctx)
}
