package sqlite

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestParseTimeMatchesTimeParse checks the hand-written reader against
// time.ParseInLocation: the same time for every valid stored date, an
// error for everything it rejects.
func TestParseTimeMatchesTimeParse(t *testing.T) {
	check := func(s string) {
		t.Helper()
		got, err := parseTime(s)
		want, werr := time.ParseInLocation(timeLayout, s, time.UTC)
		if s == "" || s == zeroDate {
			want, werr = time.Time{}, nil
		}
		if (err != nil) != (werr != nil) || !got.Equal(want) || got.Location() != want.Location() {
			t.Fatalf("parseTime(%q) = %v, %v; time.ParseInLocation gives %v, %v", s, got, err, want, werr)
		}
	}
	for _, s := range []string{
		"", zeroDate, "2020-01-02 03:04:05", "0000-01-01 00:00:00", "9999-12-31 23:59:59",
		"2024-02-29 12:00:00", "2023-02-29 12:00:00", "2023-04-31 00:00:00", "2023-13-01 00:00:00",
		"2023-00-10 00:00:00", "2023-01-00 00:00:00", "2023-01-01 24:00:00", "2023-01-01 23:60:00",
		"2023-01-01 23:59:60", "2023-01-01T23:59:59", "2023-1-01 23:59:59", "2023-01-01 23:59:5",
		"2023-01-01 23:59:59 ", "+023-01-01 23:59:59", "2023-01-01 2a:59:59", "garbage",
		"2023-01-01 23:59:59.5", "0000-00-00 00:00:01",
	} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(1, 9))
	for n := 0; n < 20000; n++ {
		tm := time.Date(rng.IntN(10000), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), 0, time.UTC)
		s := tm.Format(timeLayout)
		check(s)
		// And one byte changed to a digit or a separator.
		b := []byte(s)
		b[rng.IntN(len(b))] = "0123456789-: T"[rng.IntN(14)]
		check(string(b))
	}
}

// TestNocaseCompareMatchesSQLite sorts names in Go and with SQLite's
// NOCASE collation and wants the same order.
func TestNocaseCompareMatchesSQLite(t *testing.T) {
	db := newDB(t)
	names := []string{"beta", "Alpha", "alpha", "ALPHA", "alp", "a b", "ab", "Ärger", "ärger", "zeta", "Zeta_", "_under",
		"[x]", "`tick", "Ω", "", "b", "B", "ba", "Ba", "a", "A"}
	// Equal names keep their order, as SQLite's ties keep id order.
	got := append([]string(nil), names...)
	slices.SortStableFunc(got, func(a, b string) int { return nocaseCompare(a, b) })
	var want []string
	for _, n := range names {
		if _, err := db.write.Exec(`INSERT INTO terms (taxonomy, name, slug) VALUES ('t', ?, ?)`, n, "s-"+n); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.write.Query(`SELECT name FROM terms WHERE taxonomy = 't' ORDER BY name COLLATE NOCASE, id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("nocaseCompare order\n%q\\nSQLite's\n%q", got, want)
	}
}
