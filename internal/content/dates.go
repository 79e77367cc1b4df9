package content

import (
	"time"

	"github.com/folio-server/folio/internal/schema"
)

// ParseDate parses a date-time as the interface accepts it, with the one
// parser of the API (schema.ParseDate: YYYY-MM-DD[T| ]HH:MM:SS[.frac]
// [Z|±HH[:MM]], reference §10.1 "Dates on write"). With ignoreOffset
// (date_gmt) any offset is dropped and the wall clock is taken as UTC;
// otherwise the value is converted to UTC using its offset, and a value
// without an offset is taken as UTC (the original's behaviour). The result
// is the instant in UTC, to the second. ok is false when the text is not a
// real date.
func ParseDate(s string, ignoreOffset bool) (time.Time, bool) {
	t, ok := schema.ParseDate(s)
	if !ok {
		return time.Time{}, false
	}
	if ignoreOffset {
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC), true
	}
	return t.UTC().Truncate(time.Second), true
}

// WallClock returns the wall clock in loc (the site's time zone, see
// Settings.Location) of the instant t as a naive time (location UTC), the
// way the local `date` fields are stored. The `_gmt` fields hold the
// instant itself, so a change of the time zone changes the local dates
// written from then on and never the instants stored.
func WallClock(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), 0, time.UTC)
}

// WallClockToUTC reads a naive wall clock in loc as an instant, in UTC.
func WallClockToUTC(t time.Time, loc *time.Location) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc).UTC()
}

// FormatDate prints a stored date as the interface does: RFC 3339 without
// an offset. A zero time yields ok false (the caller outputs null).
func FormatDate(t time.Time) (string, bool) {
	if t.IsZero() {
		return "", false
	}
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.Format("2006-01-02T15:04:05"), true
	}
	// What t.Format("2006-01-02T15:04:05") writes, without parsing the
	// layout: this runs four times for every post of every page.
	hour, minute, sec := t.Clock()
	var b [19]byte
	put := func(i, n, width int) {
		for j := i + width - 1; j >= i; j-- {
			b[j] = byte('0' + n%10)
			n /= 10
		}
	}
	put(0, year, 4)
	b[4] = '-'
	put(5, int(month), 2)
	b[7] = '-'
	put(8, day, 2)
	b[10] = 'T'
	put(11, hour, 2)
	b[13] = ':'
	put(14, minute, 2)
	b[16] = ':'
	put(17, sec, 2)
	return string(b[:]), true
}

func truncSecond(t time.Time) time.Time { return t.Truncate(time.Second) }
