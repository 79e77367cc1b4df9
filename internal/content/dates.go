package content

import (
	"regexp"
	"strconv"
	"time"
)

// dateRE is the date-time form the interface accepts (reference §10.1
// "Dates on write"): YYYY-MM-DD[T| ]HH:MM:SS[.frac][Z|±HH[:MM]].
var dateRE = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$`)

// ParseDate parses a date-time as the interface accepts it. With ignoreOffset
// (date_gmt) any offset is dropped and the wall clock is taken as UTC;
// otherwise the value is converted to UTC using its offset, and a value
// without an offset is taken as UTC (the original's behaviour). The result is
// the instant in UTC. ok is false when the text is not a real date.
func ParseDate(s string, ignoreOffset bool) (time.Time, bool) {
	m := dateRE.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	y, mo, d, h, mi, se := n(1), n(2), n(3), n(4), n(5), n(6)
	if mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, se, 0, time.UTC)
	if t.Day() != d { // 2023-02-30 rolls over
		return time.Time{}, false
	}
	if ignoreOffset || m[7] == "" || m[7] == "Z" || m[7] == "z" {
		return t, true
	}
	off := m[7]
	sign := 1
	if off[0] == '-' {
		sign = -1
	}
	digits := off[1:]
	hh, _ := strconv.Atoi(digits[:2])
	mm := 0
	if len(digits) > 2 {
		rest := digits[2:]
		if rest[0] == ':' {
			rest = rest[1:]
		}
		mm, _ = strconv.Atoi(rest)
	}
	if hh > 23 || mm > 59 {
		return time.Time{}, false
	}
	return t.Add(-time.Duration(sign) * (time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute)), true
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
