package wxr

import (
	"bufio"
	"encoding/xml"
	"io"
)

// ampFilter is a streaming io.Reader that turns every bare `&` of its
// input (one that does not start an entity or character reference) into
// `&amp;`, so that the strict XML decoder reads it as the literal it was
// meant to be. Some real exports carry bare `&` in URLs. CDATA sections,
// comments and processing instructions are copied unchanged. Every fix is
// reported through warn with its line and column in the original input;
// newlines are never added or removed, so the decoder's line numbers stay
// those of the file.
type ampFilter struct {
	in   *bufio.Reader
	warn func(line, col int)
	out  []byte // filtered bytes not yet returned
	line int
	col  int
	// state is what the bytes being copied belong to.
	state filterState
	// fixes records, per line, the columns (in the original) where bytes
	// were inserted, so that error columns can be told in the original.
	fixes map[int][]int
	err   error
}

type filterState int

const (
	inText filterState = iota
	inCDATA
	inComment
	inPI
)

func newAmpFilter(r io.Reader, warn func(line, col int)) *ampFilter {
	return &ampFilter{in: bufio.NewReaderSize(r, 64<<10), warn: warn, line: 1, col: 1, fixes: map[int][]int{}}
}

// originalColumn converts a column the decoder reports on line into the
// column of the original input.
func (f *ampFilter) originalColumn(line, col int) int {
	for _, c := range f.fixes[line] {
		if c < col {
			col -= len("amp;")
		}
	}
	return col
}

func (f *ampFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.fill()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// fill filters the next run of input into f.out.
func (f *ampFilter) fill() {
	for range 4096 {
		b, err := f.in.ReadByte()
		if err != nil {
			f.err = err
			return
		}
		f.out = append(f.out, b)
		startCol := f.col
		if b == '\n' {
			f.line++
			f.col = 1
		} else {
			f.col++ // in bytes, as the decoder counts
		}
		switch f.state {
		case inText:
			switch b {
			case '<':
				switch {
				case f.peekIs("![CDATA["):
					f.state = inCDATA
				case f.peekIs("!--"):
					f.state = inComment
				case f.peekIs("?"):
					f.state = inPI
				}
			case '&':
				if !f.entityFollows() {
					f.out = append(f.out, "amp;"...)
					f.fixes[f.line] = append(f.fixes[f.line], startCol)
					if f.warn != nil {
						f.warn(f.line, startCol)
					}
				}
			}
		case inCDATA:
			if b == '>' && f.endsWith("]]>") {
				f.state = inText
			}
		case inComment:
			if b == '>' && f.endsWith("-->") {
				f.state = inText
			}
		case inPI:
			if b == '>' && f.endsWith("?>") {
				f.state = inText
			}
		}
	}
}

// endsWith reports whether the filtered output ends with s. The markers it
// is used for are never split by an inserted `amp;` (that only follows `&`).
func (f *ampFilter) endsWith(s string) bool {
	return len(f.out) >= len(s) && string(f.out[len(f.out)-len(s):]) == s
}

// peekIs reports whether the input continues with s.
func (f *ampFilter) peekIs(s string) bool {
	b, _ := f.in.Peek(len(s))
	return string(b) == s
}

// maxEntityName bounds how far entityFollows looks for the closing `;`.
const maxEntityName = 32

// entityFollows reports whether the input after an `&` is an entity
// reference (`name;`) or a character reference (`#123;`, `#x1F;`).
func (f *ampFilter) entityFollows() bool {
	b, _ := f.in.Peek(maxEntityName + 2)
	if len(b) == 0 {
		return false
	}
	if b[0] == '#' {
		i := 1
		hex := len(b) > 1 && (b[1] == 'x' || b[1] == 'X')
		if hex {
			i = 2
		}
		start := i
		for i < len(b) && (isDigit(b[i]) || hex && isHexLetter(b[i])) {
			i++
		}
		return i > start && i < len(b) && b[i] == ';'
	}
	if !isNameStart(b[0]) {
		return false
	}
	i := 1
	for i < len(b) && (isNameStart(b[i]) || isDigit(b[i]) || b[i] == '-' || b[i] == '.') {
		i++
	}
	return i < len(b) && b[i] == ';' && knownEntity(string(b[:i]))
}

// knownEntity reports whether the decoder resolves the entity name: the
// five of XML and those of HTML (xml.HTMLEntity), which old exports use in
// titles. Any other `&name;` is kept as literal text.
func knownEntity(name string) bool {
	switch name {
	case "amp", "lt", "gt", "quot", "apos":
		return true
	}
	_, ok := xml.HTMLEntity[name]
	return ok
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isHexLetter(c byte) bool { return c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= 0x80
}
