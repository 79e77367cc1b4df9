package rest

import (
	"reflect"
	"testing"
)

func TestPathTemplateTurnsRoutePatternsIntoTemplates(t *testing.T) {
	for _, tc := range []struct {
		key, tmpl string
		params    []oaPathParam
		ok        bool
	}{
		{"/", "/", nil, true},
		{"/svc/v2/posts", "/svc/v2/posts", nil, true},
		{`/svc/v2/posts/(?P<id>[\d]+)`, "/svc/v2/posts/{id}", []oaPathParam{{"id", `[\d]+`}}, true},
		{`/svc/v2/posts/(?P<parent>[\d]+)/revisions/(?P<id>[\d]+)`, "/svc/v2/posts/{parent}/revisions/{id}", []oaPathParam{{"parent", `[\d]+`}, {"id", `[\d]+`}}, true},
		{`/svc/v2/users/(?P<user_id>(?:[\d]+|me))/sessions`, "/svc/v2/users/{user_id}/sessions", []oaPathParam{{"user_id", `(?:[\d]+|me)`}}, true},
		{`/x/(?P<name>[a-z)]+)/y`, "/x/{name}/y", []oaPathParam{{"name", `[a-z)]+`}}, true},
		{`/x/report\.csv`, "/x/report.csv", nil, true},
		{`/x/(\d+)`, "", nil, false},
		{`/x/a|b`, "", nil, false},
		{`/x/(?P<id>\d+`, "", nil, false},
		{`/x/(?P<>\d+)`, "", nil, false},
	} {
		tmpl, params, ok := pathTemplate(tc.key)
		if ok != tc.ok || tmpl != tc.tmpl || !reflect.DeepEqual(params, tc.params) {
			t.Errorf("pathTemplate(%q) = %q, %v, %v; want %q, %v, %v", tc.key, tmpl, params, ok, tc.tmpl, tc.params, tc.ok)
		}
	}
}

func TestJSPatternEscapesDashesNextToClassEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`[\w-]+`:        `[\w\-]+`,
		`[-\w]+`:        `[\-\w]+`,
		`[a-z0-9]+`:     `[a-z0-9]+`,
		`[\da-f]+`:      `[\da-f]+`,
		`(?:[\d]+|me)`:  `(?:[\d]+|me)`,
		`[\w.-]+\.json`: `[\w.\-]+\.json`,
	} {
		if got, ok := jsPattern(in); !ok || got != want {
			t.Errorf("jsPattern(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`(?i)abc`, `\pL+`, `(?P<x>a)`} {
		if _, ok := jsPattern(in); ok {
			t.Errorf("jsPattern(%q) is accepted", in)
		}
	}
}
