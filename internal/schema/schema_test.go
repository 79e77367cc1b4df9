package schema_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/schema"
)

func TestParseContextAndNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want schema.Context
		ok   bool
	}{
		{"view", schema.View, true},
		{"edit", schema.Edit, true},
		{"embed", schema.Embed, true},
		{"help", 0, false},
		{"VIEW", 0, false},
	}
	for _, tc := range tests {
		got, ok := schema.ParseContext(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseContext(%q) = %v, %v", tc.in, got, ok)
		}
	}
	names := []struct {
		c    schema.Context
		want []string
	}{
		{schema.AllContexts, []string{"view", "edit", "embed"}},
		{schema.Embed | schema.View, []string{"view", "embed"}},
		{schema.Edit, []string{"edit"}},
		{0, []string{}},
	}
	for _, tc := range names {
		if got := tc.c.Names(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Names(%d) = %v, want %v", tc.c, got, tc.want)
		}
	}
}

func TestObjectIndexAddReplace(t *testing.T) {
	t.Parallel()
	o := schema.NewObject("post",
		&schema.Property{Name: "id", Type: "integer"},
		&schema.Property{Name: "title", Type: "object"},
	)
	o.Add(&schema.Property{Name: "extra", Type: "string"})
	o.Add(&schema.Property{Name: "title", Type: "string", Description: "replaced"})
	tests := []struct {
		name string
		idx  int
	}{{"id", 0}, {"title", 1}, {"extra", 2}, {"missing", -1}}
	for _, tc := range tests {
		if got := o.Index(tc.name); got != tc.idx {
			t.Errorf("Index(%s) = %d, want %d", tc.name, got, tc.idx)
		}
	}
	if o.Prop("title").Description != "replaced" || o.Prop("missing") != nil {
		t.Errorf("Prop wrong")
	}
	// A literal Object without index works too.
	lit := &schema.Object{Properties: []*schema.Property{{Name: "a"}, {Name: "b"}}}
	if lit.Index("b") != 1 || lit.Index("c") != -1 {
		t.Errorf("literal index")
	}
}

func TestJSONSchema(t *testing.T) {
	t.Parallel()
	o := schema.NewObject("post",
		&schema.Property{Name: "id", Description: "Id.", Type: "integer", Context: schema.AllContexts, Readonly: true},
		&schema.Property{Name: "title", Description: "Title.", Type: "object", Context: schema.View | schema.Edit, Properties: []*schema.Property{
			{Name: "raw", Description: "Raw.", Type: "string", Context: schema.Edit},
			{Name: "rendered", Description: "Rendered.", Type: "string", Context: schema.View | schema.Edit},
		}},
		&schema.Property{Name: "status", Description: "Status.", Type: "string", Enum: []string{"publish", "draft"}, Context: schema.Edit, Required: true},
		&schema.Property{Name: "link", Description: "Link.", Type: "string", Format: "uri", Context: schema.View},
		&schema.Property{Name: "tags", Description: "Tags.", Type: "array", Items: &schema.Property{Type: "integer"}, Context: schema.View},
	)
	b, err := json.Marshal(o.JSONSchema())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{` +
		`"id":{"description":"Id.","type":"integer","context":["view","edit","embed"],"readonly":true},` +
		`"title":{"description":"Title.","type":"object","context":["view","edit"],"properties":{"raw":{"description":"Raw.","type":"string","context":["edit"]},"rendered":{"description":"Rendered.","type":"string","context":["view","edit"]}}},` +
		`"status":{"description":"Status.","type":"string","enum":["publish","draft"],"context":["edit"],"required":true},` +
		`"link":{"description":"Link.","type":"string","format":"uri","context":["view"]},` +
		`"tags":{"description":"Tags.","type":"array","context":["view"],"items":{"type":"integer"}}` +
		`},"title":"post","type":"object"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestValidateReasons(t *testing.T) {
	t.Parallel()
	one, hundred := int64(1), int64(100)
	tests := []struct {
		name string
		rule schema.Rule
		v    any
		want string
	}{
		{"enum ok", schema.Rule{Type: "string", Enum: []string{"view", "embed", "edit"}}, "edit", ""},
		{"enum bad", schema.Rule{Type: "string", Enum: []string{"view", "embed", "edit"}}, "x", "p is not one of view, embed, edit"},
		{"enum list", schema.Rule{Type: "array", Enum: []string{"a", "b"}}, []string{"a", "c"}, "p is not one of a, b"},
		{"integer ok", schema.Rule{Type: "integer"}, int64(4), ""},
		{"integer numeric string", schema.Rule{Type: "integer"}, "4.5", ""},
		{"integer bad", schema.Rule{Type: "integer"}, "abc", "p is not of type integer"},
		{"integer bool", schema.Rule{Type: "integer"}, true, "p is not of type integer"},
		{"string bad", schema.Rule{Type: "string"}, []string{"a"}, "p is not of type string"},
		{"string number", schema.Rule{Type: "string"}, int64(5), "p is not of type string"},
		{"date ok", schema.Rule{Type: "string", Format: "date-time"}, "2024-01-02T03:04:05", ""},
		{"date zone", schema.Rule{Type: "string", Format: "date-time"}, "2024-01-02T03:04:05.123+02:00", ""},
		{"date bad", schema.Rule{Type: "string", Format: "date-time"}, "2024-02-30T03:04:05", schema.ReasonInvalidDate},
		{"date words", schema.Rule{Format: "date-time"}, "yesterday", "The date you provided is invalid."},
		{"email ok", schema.Rule{Type: "string", Format: "email"}, "a.b@example.com", ""},
		{"email bad", schema.Rule{Type: "string", Format: "email"}, "a@b", "The email address you provided is invalid."},
		{"uri not validated", schema.Rule{Type: "string", Format: "uri"}, "::::", ""},
		{"boolean not validated", schema.Rule{Type: "boolean"}, "maybe", ""},
		{"min inclusive", schema.Rule{Type: "integer", Minimum: &one}, int64(0), "p must be greater than 1 (inclusive)"},
		{"min exclusive", schema.Rule{Type: "integer", Minimum: &one, ExclusiveMinimum: true}, int64(1), "p must be greater than 1 (exclusive)"},
		{"max", schema.Rule{Type: "integer", Maximum: &hundred}, int64(101), "p must be less than 100 (inclusive)"},
		{"max exclusive edge", schema.Rule{Type: "number", Maximum: &hundred, ExclusiveMaximum: true}, 100.0, "p must be less than 100 (exclusive)"},
		{"between", schema.Rule{Type: "integer", Minimum: &one, Maximum: &hundred}, int64(0), "p must be between 1 (inclusive) and 100 (inclusive)"},
		{"between ok", schema.Rule{Type: "integer", Minimum: &one, Maximum: &hundred}, int64(100), ""},
		{"between both exclusive", schema.Rule{Type: "integer", Minimum: &one, Maximum: &hundred, ExclusiveMinimum: true, ExclusiveMaximum: true}, int64(100), "p must be between 1 (exclusive) and 100 (exclusive)"},
		{"range ignored for strings", schema.Rule{Type: "string", Minimum: &one}, "0", ""},
		{"nil is valid", schema.Rule{Type: "integer"}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := schema.Validate(tc.rule, "p", tc.v); got != tc.want {
				t.Errorf("Validate = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rule   schema.Rule
		v      any
		want   any
		reason string
	}{
		{"integer string", schema.Rule{Type: "integer"}, "42", int64(42), ""},
		{"integer float", schema.Rule{Type: "integer"}, 4.9, int64(4), ""},
		{"integer junk kept", schema.Rule{Type: "integer"}, "12abc", "12abc", ""},
		{"number", schema.Rule{Type: "number"}, "1.5", 1.5, ""},
		{"bool TRUE", schema.Rule{Type: "boolean"}, "TRUE", true, ""},
		{"bool False", schema.Rule{Type: "boolean"}, "False", false, ""},
		{"bool empty", schema.Rule{Type: "boolean"}, "", false, ""},
		{"bool json", schema.Rule{Type: "boolean"}, true, true, ""},
		{"bool bad", schema.Rule{Type: "boolean"}, "yes", "yes", "p is not of type boolean"},
		{"bool 2", schema.Rule{Type: "boolean"}, int64(2), int64(2), "p is not of type boolean"},
		{"id list string", schema.Rule{Type: "array", Items: "integer"}, "3, 1 3,x", []int64{3, 1, 0}, ""},
		{"id list json", schema.Rule{Type: "array", Items: "integer"}, []any{int64(-2), "2", 5.0}, []int64{2, 5}, ""},
		{"id list single", schema.Rule{Type: "array", Items: "integer"}, int64(7), []int64{7}, ""},
		{"string list", schema.Rule{Type: "array", Items: "string"}, "a, b", []string{"a", "b"}, ""},
		{"email text", schema.Rule{Type: "string", Format: "email"}, " <b>a@b.co</b>\n", "a@b.co", ""},
		{"date text", schema.Rule{Type: "string", Format: "date-time"}, " 2024-01-01T00:00:00 ", "2024-01-01T00:00:00", ""},
		{"uri scheme", schema.Rule{Type: "string", Format: "uri"}, "javascript:alert(1)", "", ""},
		{"uri host", schema.Rule{Type: "string", Format: "uri"}, "example.com/x y", "http://example.com/x%20y", ""},
		{"uri https", schema.Rule{Type: "string", Format: "uri"}, "https://e.com/a<b>", "https://e.com/ab", ""},
		{"plain string kept", schema.Rule{Type: "string"}, " x ", " x ", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := schema.Sanitize(tc.rule, "p", tc.v)
			if !reflect.DeepEqual(got, tc.want) || reason != tc.reason {
				t.Errorf("Sanitize = %#v, %q; want %#v, %q", got, reason, tc.want, tc.reason)
			}
		})
	}
}

func TestAbsIntAndToInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want int64
	}{
		{"12abc", 12}, {"-5", 5}, {"abc", 0}, {int64(-3), 3}, {7.9, 7}, {" 8", 8}, {"1e3", 1000}, {nil, 0}, {true, 1},
	}
	for _, tc := range tests {
		if got := schema.AbsInt(tc.in); got != tc.want {
			t.Errorf("AbsInt(%#v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestIsEmail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"user@example.com", true},
		{"first.last+tag@sub.example.org", true},
		{"a@b.c", false},
		{"no-at.example.com", false},
		{"@example.com", false},
		{"user@localhost", false},
		{"user@exa..mple.com", false},
		{"us er@example.com", false},
		{"user@-example.com", false},
	}
	for _, tc := range tests {
		if got := schema.IsEmail(tc.in); got != tc.want {
			t.Errorf("IsEmail(%q) = %v", tc.in, got)
		}
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		ok   bool
		unix int64
	}{
		{"2024-01-02T03:04:05", true, 1704164645},
		{"2024-01-02 03:04:05Z", true, 1704164645},
		{"2024-01-02T05:04:05+02:00", true, 1704164645},
		{"2024-01-02T05:04:05+0200", true, 1704164645},
		{"2024-01-02", false, 0},
		{"2024-13-02T03:04:05", false, 0},
		{"2024-01-02T24:04:05", false, 0},
	}
	for _, tc := range tests {
		got, ok := schema.ParseDate(tc.in)
		if ok != tc.ok || (ok && got.Unix() != tc.unix) {
			t.Errorf("ParseDate(%q) = %v, %v", tc.in, got, ok)
		}
	}
}

func TestSanitizeTextField(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"  a\tb\n c  ", "a b c"},
		{"<script>x</script>y", "xy"},
		{"ok", "ok"},
		{"bad\xffutf", "badutf"},
	}
	for _, tc := range tests {
		if got := schema.SanitizeTextField(tc.in); got != tc.want {
			t.Errorf("SanitizeTextField(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if strings.Contains(schema.EscURLRaw("http://x.com/\"onmouseover"), `"`) {
		t.Errorf("quote kept in URL")
	}
}
