package webhooks_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/webhooks"
)

// TestObserveIsToldEveryOutcome: the metrics hear of each recorded
// attempt: a failure that will be retried, a delivery, and a delivery
// given up.
func TestObserveIsToldEveryOutcome(t *testing.T) {
	db := storetest.Open(t)
	defer db.Close()
	// The first call fails, the second succeeds; the other hook always
	// fails.
	ok := newReceiver(t, func(n int) int {
		if n == 0 {
			return 503
		}
		return 200
	})
	bad := newReceiver(t, func(int) int { return 500 })
	addHook(t, db, ok.srv.URL, "post.created")
	addHook(t, db, bad.srv.URL, "post.created")
	emit(t, db, publishedPost(1))
	var mu sync.Mutex
	var outcomes []string
	w := &webhooks.Worker{Targets: local, Store: db, MaxAttempts: 2, Backoff: func(int) time.Duration { return 0 },
		Observe: func(o string) {
			mu.Lock()
			outcomes = append(outcomes, o)
			mu.Unlock()
		}}
	for range 3 {
		if _, err := w.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	count := map[string]int{}
	for _, o := range outcomes {
		count[o]++
	}
	if count["retry"] != 2 || count["delivered"] != 1 || count["failed"] != 1 || len(outcomes) != 4 {
		t.Errorf("outcomes = %s, want two retries, one delivered, one failed", strings.Join(outcomes, ", "))
	}
}
