package storetest_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestSignInReadsArePlannedCheaply: the reads Basic authentication makes
// on every request (the user with its passwords, and the generations)
// are planned as the few-row reads they are, on a fresh database whose
// one-row tables were never analysed. PostgreSQL guesses thousands of
// rows for such a table, and joining two of them made it guess millions
// and compile the query to machine code (JIT, 200 ms of CPU) every time:
// the estimated cost stays far below jit_above_cost (100,000).
func TestSignInReadsArePlannedCheaply(t *testing.T) {
	if storetest.Backend() != "postgres" {
		t.Skip("costs are PostgreSQL's (SQLite plans these reads by rows it reads)")
	}
	t.Parallel()
	ctx := context.Background()
	pg := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	u := &store.User{Login: "plan", Nicename: "plan", Roles: []string{"author"}}
	if err := pg.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := pg.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-plan", UserID: u.ID, Name: "p", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	plans, err := pg.Plans(ctx, func(ctx context.Context) error {
		if _, err := pg.GetUserAppPasswords(ctx, "plan", "pair:plan"); err != nil {
			return err
		}
		_, _, err := pg.AuthGeneration(ctx, "pair:plan")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 2 {
		t.Fatalf("%d statements planned, want 2", len(plans))
	}
	cost := regexp.MustCompile(`cost=[0-9.]+\.\.([0-9.]+)`)
	for _, p := range plans {
		m := cost.FindStringSubmatch(p.Steps[0])
		if m == nil {
			t.Fatalf("no cost in the plan's first line:\n%s", p)
		}
		total, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		if total > 1000 {
			t.Errorf("estimated cost %.0f, want under 1,000:\n%s\n%s", total, p.SQL, p)
		}
	}
}
