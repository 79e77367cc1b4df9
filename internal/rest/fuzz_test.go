package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzRequest sends arbitrary query strings, bodies and content types to
// the fixture's routes (parameters of every type, brackets, JSON and form
// bodies, _method, _envelope, _jsonp, _fields, _embed): the server never
// panics, never answers 5xx, and every JSON answer parses.
func FuzzRequest(f *testing.F) {
	seeds := []struct {
		route       uint8
		method      uint8
		query, body string
		contentType string
	}{
		{0, 0, "slug=a&n=1&flag=true&list[]=1&list[]=2", "", ""},
		{1, 0, "page=abc&per_page=0&context=edit", "", ""},
		{1, 0, "page=2&per_page=1&_embed=1&_fields=id,title", "", ""},
		{0, 1, "_method=DELETE", `{"slug":"j","n":3}`, "application/json"},
		{0, 1, "", `slug=f&filter[s]=x&obj[a]=b`, "application/x-www-form-urlencoded"},
		{2, 1, "", `{"a":null,"b":"x"}`, "application/json"},
		{0, 1, "", `{"a":[1,{"b":{}}],"c":"\u0000"}`, "application/json"},
		{0, 1, "", `{`, "application/json"},
		{0, 0, "_jsonp=cb&_envelope=1", "", ""},
		{0, 0, "q=%FF%00&x[=1&[]=2", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.route, s.method, s.query, s.body, s.contentType)
	}
	fx := newFixture(f, nil)
	routes := []string{"/api/svc/v2/echo", "/api/svc/v2/things", "/api/svc/v2/required", "/api/svc/v2/things/5", "/api/", "/api/svc/v2"}
	methods := []string{"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"}
	f.Fuzz(func(t *testing.T, route, method uint8, query, body, contentType string) {
		u := &url.URL{Scheme: "http", Host: "example.test", Path: routes[int(route)%len(routes)], RawQuery: query}
		req, err := http.NewRequest(methods[int(method)%len(methods)], u.String(), strings.NewReader(body))
		if err != nil {
			return
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		w := httptest.NewRecorder()
		fx.srv.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %s (%q, %q): %d %s", req.Method, u, contentType, body, w.Code, w.Body)
		}
		if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") && w.Body.Len() > 0 && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %s: invalid JSON %q", req.Method, u, w.Body)
		}
	})
}
