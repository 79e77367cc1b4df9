package sqlstore

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestTimeRoundTrip(t *testing.T) {
	t.Parallel()
	berlin := time.FixedZone("CET", 3600)
	tests := []struct {
		name   string
		in     time.Time
		stored string
		want   time.Time
	}{
		{"zero", time.Time{}, "0000-00-00 00:00:00", time.Time{}},
		{"utc", time.Date(2020, 2, 29, 23, 59, 58, 0, time.UTC), "2020-02-29 23:59:58", time.Date(2020, 2, 29, 23, 59, 58, 0, time.UTC)},
		{"wall clock kept, zone dropped", time.Date(2021, 7, 1, 8, 0, 0, 0, berlin), "2021-07-01 08:00:00", time.Date(2021, 7, 1, 8, 0, 0, 0, time.UTC)},
		{"sub-second dropped", time.Date(2021, 7, 1, 8, 0, 0, 999, time.UTC), "2021-07-01 08:00:00", time.Date(2021, 7, 1, 8, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		s := FormatTime(tt.in)
		if s != tt.stored {
			t.Errorf("%s: stored %q, want %q", tt.name, s, tt.stored)
		}
		got, err := ParseTime(s)
		if err != nil || !got.Equal(tt.want) || got.Location() != tt.want.Location() {
			t.Errorf("%s: read back %v (%v), want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := ParseTime("garbage"); err == nil {
		t.Error("ParseTime accepted garbage")
	}
}

// TestParseTimeMatchesTimeParse checks the hand-written reader against
// time.ParseInLocation: the same time for every valid stored date, an
// error for everything it rejects.
func TestParseTimeMatchesTimeParse(t *testing.T) {
	check := func(s string) {
		t.Helper()
		got, err := ParseTime(s)
		want, werr := time.ParseInLocation(TimeLayout, s, time.UTC)
		if s == "" || s == ZeroDate {
			want, werr = time.Time{}, nil
		}
		if (err != nil) != (werr != nil) || !got.Equal(want) || got.Location() != want.Location() {
			t.Fatalf("ParseTime(%q) = %v, %v; time.ParseInLocation gives %v, %v", s, got, err, want, werr)
		}
	}
	for _, s := range []string{
		"", ZeroDate, "2020-01-02 03:04:05", "0000-01-01 00:00:00", "9999-12-31 23:59:59",
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
		s := tm.Format(TimeLayout)
		check(s)
		// And one byte changed to a digit or a separator.
		b := []byte(s)
		b[rng.IntN(len(b))] = "0123456789-: T"[rng.IntN(14)]
		check(string(b))
	}
}
