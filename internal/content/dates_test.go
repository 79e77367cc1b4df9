package content

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	cases := []struct {
		in           string
		ignoreOffset bool
		want         string
		ok           bool
	}{
		{"2021-03-04T05:06:07", false, "2021-03-04 05:06:07", true},
		{"2021-03-04 05:06:07", false, "2021-03-04 05:06:07", true},
		{"2021-03-04t05:06:07Z", false, "2021-03-04 05:06:07", true},
		{"2021-03-04T05:06:07.123456", false, "2021-03-04 05:06:07", true},
		{"2021-03-04T05:06:07+02:00", false, "2021-03-04 03:06:07", true},
		{"2021-03-04T05:06:07-0130", false, "2021-03-04 06:36:07", true},
		{"2021-03-04T05:06:07+02", false, "2021-03-04 03:06:07", true},
		{"2021-03-04T05:06:07+02:00", true, "2021-03-04 05:06:07", true},
		{"2021-02-29T00:00:00", false, "", false},
		{"2020-02-29T00:00:00", false, "2020-02-29 00:00:00", true},
		{"2021-13-01T00:00:00", false, "", false},
		{"2021-01-01T24:00:00", false, "", false},
		{"2021-01-01", false, "", false},
		{"yesterday", false, "", false},
		{"2021-01-01T00:00:00+25:00", false, "", false},
	}
	for _, tc := range cases {
		got, ok := ParseDate(tc.in, tc.ignoreOffset)
		if ok != tc.ok {
			t.Errorf("ParseDate(%q) ok = %v", tc.in, ok)
			continue
		}
		if ok && got.Format("2006-01-02 15:04:05") != tc.want {
			t.Errorf("ParseDate(%q) = %s, want %s", tc.in, got.Format(time.DateTime), tc.want)
		}
	}
}

func TestFormatDateZeroIsNull(t *testing.T) {
	if _, ok := FormatDate(time.Time{}); ok {
		t.Fatal("zero date must be null")
	}
	s, ok := FormatDate(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC))
	if !ok || s != "2020-01-02T03:04:05" {
		t.Fatalf("FormatDate = %q", s)
	}
}

// TestFormatDateMatchesTimeFormat checks the hand-written formatter against
// time.Format over years 0 to 9999 (and outside, where it falls back),
// every field's range and other locations.
func TestFormatDateMatchesTimeFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	locs := []*time.Location{time.UTC, paris, time.FixedZone("odd", -(9*3600 + 30*60))}
	years := []int{0, 1, 9, 10, 99, 100, 999, 1000, 1969, 1970, 2000, 2038, 9999, 10000, 12345, -1}
	for n := 0; n < 5000; n++ {
		y := years[n%len(years)]
		if n%2 == 1 {
			y = rng.IntN(10000)
		}
		tm := time.Date(y, time.Month(1+rng.IntN(12)), 1+rng.IntN(31), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.IntN(1e9), locs[n%len(locs)])
		if tm.IsZero() {
			continue
		}
		got, ok := FormatDate(tm)
		if want := tm.Format("2006-01-02T15:04:05"); !ok || got != want {
			t.Fatalf("FormatDate(%v) = %q, %v; want %q", tm, got, ok, want)
		}
	}
}
