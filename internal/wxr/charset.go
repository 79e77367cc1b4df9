package wxr

import (
	"io"
	"unicode/utf8"
)

// cp1252High maps the bytes 0x80–0x9F of windows-1252 to their characters
// (0 for the five bytes it leaves undefined, read as in ISO-8859-1).
var cp1252High = [32]rune{
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
}

// singleByteReader decodes ISO-8859-1 (or windows-1252) into UTF-8.
type singleByteReader struct {
	in     io.Reader
	cp1252 bool
	buf    [4096]byte
	out    []byte
}

func (r *singleByteReader) Read(p []byte) (int, error) {
	if len(r.out) == 0 {
		n, err := r.in.Read(r.buf[:])
		if n == 0 {
			return 0, err
		}
		r.out = r.out[:0]
		for _, b := range r.buf[:n] {
			c := rune(b)
			if r.cp1252 && b >= 0x80 && b <= 0x9F && cp1252High[b-0x80] != 0 {
				c = cp1252High[b-0x80]
			}
			r.out = utf8.AppendRune(r.out, c)
		}
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}
