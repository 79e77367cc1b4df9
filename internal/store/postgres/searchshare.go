package postgres

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// wordStatsMaxAge is how long the statistics of the posts' words read
// from pg_stats serve before they are read again. ANALYZE (autovacuum's,
// after a tenth of the rows changed) is what changes them.
const wordStatsMaxAge = 5 * time.Minute

// wordStats holds what ANALYZE found of post_search.words: its most
// common words and the share of the posts each is in.
type wordStats struct {
	mu      sync.Mutex
	read    time.Time // when they were read; zero: never
	reading bool      // a caller is reading them
	words   []string  // sorted
	share   []float64 // share[i] is words[i]'s
}

var _ sqlstore.SearchEstimator = (*conns)(nil)

// SearchShare estimates the share of the posts whose words every one of
// words begins from the planner's statistics of post_search.words (its
// most common elements, and the share of the rows each is in): the share
// of a word is that of the most common indexed word it begins, the words
// of a search are taken as independent of each other. A word that begins
// none of the most common words is rare (share 0). ok is false when the
// column was never analyzed (or the statistics cannot be read): the
// estimate chooses a search page's plan (sqlstore.listSearchFirstWindow),
// never what the page holds.
func (c *conns) SearchShare(ctx context.Context, words []string) (float64, bool) {
	common, share, ok := c.words.get(ctx, c)
	if !ok {
		return 0, false
	}
	est := 1.0
	for _, w := range words {
		best := 0.0
		// The words w begins follow w in sorted order.
		for i, _ := slices.BinarySearch(common, w); i < len(common) && strings.HasPrefix(common[i], w); i++ {
			best = max(best, share[i])
		}
		est *= best
	}
	return est, true
}

// get returns the statistics. When they are older than wordStatsMaxAge,
// one caller reads them again while the others go on with the ones read
// before (none, at first: no estimate); a failed read keeps those.
func (s *wordStats) get(ctx context.Context, c *conns) ([]string, []float64, bool) {
	s.mu.Lock()
	words, share := s.words, s.share
	stale := !s.reading && time.Since(s.read) > wordStatsMaxAge
	if stale {
		s.reading = true
	}
	s.mu.Unlock()
	if stale {
		w, sh, err := readWordStats(ctx, c)
		s.mu.Lock()
		s.reading = false
		if err == nil {
			s.words, s.share, s.read = w, sh, time.Now()
			words, share = w, sh
		}
		s.mu.Unlock()
	}
	return words, share, words != nil
}

// readWordStats reads post_search.words' most common elements and their
// shares from pg_stats; words is nil when the column has none.
func readWordStats(ctx context.Context, c *conns) (words []string, share []float64, err error) {
	var elems []string
	var freqs []float64
	err = c.pool.QueryRow(ctx, `SELECT COALESCE(most_common_elems::text::text[], '{}'), COALESCE(most_common_elem_freqs::float8[], '{}')
		FROM pg_stats WHERE schemaname = $1 AND tablename = 'post_search' AND attname = 'words'`, c.schema).Scan(&elems, &freqs)
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	// most_common_elem_freqs ends with three more numbers (the least and
	// the greatest share and that of empty values).
	if len(elems) == 0 || len(freqs) < len(elems) {
		return nil, nil, nil
	}
	idx := make([]int, len(elems))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(elems[a], elems[b]) })
	words, share = make([]string, len(elems)), make([]float64, len(elems))
	for i, j := range idx {
		words[i], share[i] = elems[j], freqs[j]
	}
	return words, share, nil
}
