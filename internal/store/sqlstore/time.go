package sqlstore

import (
	"fmt"
	"time"
)

// TimeLayout is the text form of a date, the form SQLite stores and copies
// carry: a naive wall clock.
const TimeLayout = "2006-01-02 15:04:05"

// ZeroDate is the text form of the zero time.Time.
const ZeroDate = "0000-00-00 00:00:00"

// FormatTime formats t's wall clock without zone; the zero time becomes
// ZeroDate.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ZeroDate
	}
	return t.Format(TimeLayout)
}

// ParseTime reads a date in text form back as a time.UTC wall-clock value;
// ZeroDate (or an empty value) becomes the zero time.Time.
func ParseTime(s string) (time.Time, error) {
	if s == "" || s == ZeroDate {
		return time.Time{}, nil
	}
	if t, ok := parseStoredTime(s); ok {
		return t, nil
	}
	t, err := time.ParseInLocation(TimeLayout, s, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad stored date %q: %w", s, err)
	}
	return t, nil
}

// parseStoredTime reads a well-formed TimeLayout value without parsing the
// layout (every post row carries four dates). ok is false for anything
// time.ParseInLocation would have to judge: it gives the error.
func parseStoredTime(s string) (time.Time, bool) {
	if len(s) != len(TimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(i, width int) int {
		n := 0
		for _, c := range []byte(s[i : i+width]) {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day { // past the end of the month
		return time.Time{}, false
	}
	return t, true
}

// WallClock returns t's wall clock to the second in time.UTC, zone dropped;
// the zero time stays zero (a database's zero date, 0001-01-01 00:00:00,
// reads back as it).
func WallClock(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// timeCol scans a date column into a time.Time, whatever the driver gives:
// a time.Time (a timestamp column) or the text form; NULL is the zero time.
// Scan into (*timeCol)(&t).
type timeCol time.Time

// Scan implements sql.Scanner.
func (t *timeCol) Scan(src any) error {
	var v time.Time
	var err error
	switch x := src.(type) {
	case nil:
	case time.Time:
		v = WallClock(x)
	case string:
		v, err = ParseTime(x)
	case []byte:
		v, err = ParseTime(string(x))
	default:
		err = fmt.Errorf("date column holds %T", src)
	}
	*t = timeCol(v)
	return err
}

// at returns a scan destination for a date column.
func at(t *time.Time) *timeCol { return (*timeCol)(t) }
