package wxrexport

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestCleanKeepsXMLCharactersOnly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"tab\tlf\ncr\r", "tab\tlf\ncr\r"},
		{"nul\x00bell\x07vt\x0b", "nulbellvt"},
		{"Καλημέρα 🎉 \u202Ebidi\u202C", "Καλημέρα 🎉 \u202Ebidi\u202C"},
		{"non\uFFFEchar\uFFFF", "nonchar"},
		{"caf\xe9 \xa0", "café \u00a0"}, // stray bytes are Latin-1
		{"ok\uFFFD", "ok\uFFFD"},
	} {
		if got := clean(tc.in); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCDATARoundTripsThroughAnXMLParser(t *testing.T) {
	for _, s := range []string{
		"", "]]>", "]]]]>", "a]]>b]]>c", "]", "]]", ">", "line\r\nline\rline\n", "<b>&amp;</b>", "end]]",
		"Καλημέρα 🎉 \u202E", "x]]\r>y",
	} {
		doc := "<a>" + cdata(s) + "</a>"
		var got string
		if err := xml.Unmarshal([]byte(doc), &got); err != nil {
			t.Fatalf("cdata(%q) = %s: %v", s, doc, err)
		}
		if got != s {
			t.Errorf("cdata(%q) parses back as %q (%s)", s, got, doc)
		}
		if strings.Contains(cdata(s), "\r") {
			t.Errorf("cdata(%q) holds a raw carriage return", s)
		}
	}
}

func TestEscapedTextAndAttributesRoundTrip(t *testing.T) {
	type el struct {
		A    string `xml:"a,attr"`
		Text string `xml:",chardata"`
	}
	for _, s := range []string{"a&b<c>d\"e'f", "tab\tnl\ncr\r", "]]>", "Ελληνικά"} {
		doc := `<e a="` + escAttr(s) + `">` + escText(s) + `</e>`
		var got el
		if err := xml.Unmarshal([]byte(doc), &got); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if got.A != s || got.Text != s {
			t.Errorf("%q came back as attribute %q and text %q", s, got.A, got.Text)
		}
	}
}

func TestPHPSerializeAsWordPressWritesIt(t *testing.T) {
	got := phpSerialize(phpArray{
		{"width", 10}, {"file", "ü.jpg"}, {"sizes", phpArray{}}, {"list", []string{"a", "b"}},
		{int64(7), nil}, {"ok", true}, {"no", false}, {"f", 1.5},
	})
	want := `a:8:{s:5:"width";i:10;s:4:"file";s:6:"ü.jpg";s:5:"sizes";a:0:{}s:4:"list";a:2:{i:0;s:1:"a";i:1;s:1:"b";}` +
		`i:7;N;s:2:"ok";b:1;s:2:"no";b:0;s:1:"f";d:1.5;}`
	if got != want {
		t.Errorf("phpSerialize =\n%s\nwant\n%s", got, want)
	}
}
