package wxr_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/folio-server/folio/internal/wxr"
)

// FuzzReader feeds the reader arbitrary bytes, seeded with small real
// exports and broken variants of them. Whatever the input, the reader must
// end with io.EOF or an error (never a panic or an endless loop), keep
// returning that error afterwards, and give a structural error a line
// number.
func FuzzReader(f *testing.F) {
	for _, name := range []string{
		"wordpress-importer/valid-wxr-1.0.xml",
		"wordpress-importer/valid-wxr-1.1.xml",
		"wordpress-importer/namespace-edge-cases.xml",
		"wordpress-importer/wxr-with-sub-data.xml",
		"tryghost-migrate/sample.xml",
		"blueprints/starter-content.xml",
	} {
		b, err := os.ReadFile("../../testdata/wxr/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(bytes.ReplaceAll(b, []byte("</item>"), nil))
	}
	f.Add([]byte(`<rss><channel><item><wp:post_id>1</wp:post_id></item></channel></rss>`))
	f.Add([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><rss><channel><title>caf` + "\xe9" + `</title></channel></rss>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		rd := wxr.NewReader(bytes.NewReader(doc))
		var last error
		for i := 0; ; i++ {
			if i > len(doc)+1 {
				t.Fatalf("more records (%d) than bytes of input (%d)", i, len(doc))
			}
			rec, err := rd.Next()
			if err != nil {
				last = err
				break
			}
			if rec == nil {
				t.Fatal("Next returned neither a record nor an error")
			}
		}
		if _, err := rd.Next(); err == nil || (err != last && err.Error() != last.Error()) {
			t.Fatalf("after %v, Next returned %v", last, err)
		}
		var se *wxr.SyntaxError
		if errors.As(last, &se) && se.Line < 1 {
			t.Fatalf("syntax error without a line: %v", se)
		}
	})
}
