package auth

import (
	"context"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store/storetest"
)

func TestNonceIsTenHexCharacters(t *testing.T) {
	t.Parallel()
	n := NewNonces([]byte("0123456789abcdef0123456789abcdef"))
	got := n.Create(7, "tok", RESTNonceAction)
	if len(got) != 10 {
		t.Fatalf("nonce %q has %d characters, want 10", got, len(got))
	}
	for _, c := range got {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			t.Fatalf("nonce %q is not hex", got)
		}
	}
}

func TestNonceVerifyLifetimeAndBinding(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	n := NewNonces([]byte("0123456789abcdef0123456789abcdef"))
	n.Now = func() time.Time { return now }
	nonce := n.Create(7, "tok", RESTNonceAction)

	if got := n.Verify(nonce, 7, "tok", RESTNonceAction); got != 1 {
		t.Fatalf("fresh nonce: Verify = %d, want 1", got)
	}
	for _, tc := range []struct {
		name   string
		uid    int64
		token  string
		action string
	}{
		{"wrong user", 8, "tok", RESTNonceAction},
		{"anonymous", 0, "", RESTNonceAction},
		{"wrong session", 7, "other", RESTNonceAction},
		{"wrong action", 7, "tok", "other_action"},
	} {
		if got := n.Verify(nonce, tc.uid, tc.token, tc.action); got != 0 {
			t.Errorf("%s: Verify = %d, want 0", tc.name, got)
		}
	}
	if got := n.Verify("", 7, "tok", RESTNonceAction); got != 0 {
		t.Errorf("empty nonce: Verify = %d, want 0", got)
	}
	if got := n.Verify(nonce+"0", 7, "tok", RESTNonceAction); got != 0 {
		t.Errorf("long nonce: Verify = %d, want 0", got)
	}

	// The next tick (12 hours on) still accepts it, as "2".
	now = now.Add(12 * time.Hour)
	if got := n.Verify(nonce, 7, "tok", RESTNonceAction); got != 2 {
		t.Errorf("one tick later: Verify = %d, want 2", got)
	}
	// Two ticks on (24 hours), it has expired.
	now = now.Add(12 * time.Hour)
	if got := n.Verify(nonce, 7, "tok", RESTNonceAction); got != 0 {
		t.Errorf("two ticks later: Verify = %d, want 0", got)
	}
}

func TestNonceTickBoundaries(t *testing.T) {
	t.Parallel()
	// A nonce made at the very end of a tick lives at least 12 hours.
	half := int64(12 * 3600)
	start := time.Unix(half*100000+1, 0) // first second of a tick
	end := time.Unix(half*100001, 0)     // last second of the same tick
	if tick(start) != tick(end) {
		t.Fatalf("tick(%v) = %d, tick(%v) = %d, want equal", start, tick(start), end, tick(end))
	}
	n := NewNonces([]byte("0123456789abcdef0123456789abcdef"))
	cur := end
	n.Now = func() time.Time { return cur }
	nonce := n.Create(1, "t", RESTNonceAction)
	cur = end.Add(12*time.Hour - time.Second)
	if n.Verify(nonce, 1, "t", RESTNonceAction) == 0 {
		t.Errorf("nonce rejected before 12 hours passed")
	}
	cur = end.Add(12*time.Hour + time.Second)
	if n.Verify(nonce, 1, "t", RESTNonceAction) != 0 {
		t.Errorf("nonce made at the end of a tick accepted after the next tick ended")
	}
}

func TestLoadNoncesSharesOneSecretAcrossNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbs := storetest.OpenN(t, 2) // two nodes on one database
	a, err := LoadNonces(ctx, dbs[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadNonces(ctx, dbs[1])
	if err != nil {
		t.Fatal(err)
	}
	nonce := a.Create(3, "tok", RESTNonceAction)
	if b.Verify(nonce, 3, "tok", RESTNonceAction) != 1 {
		t.Fatal("a nonce made by one node is rejected by another")
	}
	other := NewNonces([]byte("another secret of enough length!"))
	if other.Verify(nonce, 3, "tok", RESTNonceAction) != 0 {
		t.Fatal("a nonce verified under another secret")
	}
}
