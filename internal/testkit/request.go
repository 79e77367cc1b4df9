package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
)

// API returns the path of an API route in the site's names, with the
// route formatted like fmt.Sprintf: s.API("/posts/%d", id) is
// "/api/svc/v2/posts/7" (or "/wp-json/wp/v2/posts/7" in the
// WordPress-compatibility mode).
func (s *Site) API(route string, args ...any) string {
	n := s.Server.Names()
	if len(args) > 0 {
		route = fmt.Sprintf(route, args...)
	}
	return n.Prefix + "/" + n.Namespace + route
}

// Response is an answer the test has read whole.
type Response struct {
	T      testing.TB
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request to path (a site path or an absolute URL) as login
// ("" is anonymous; a user's application password over HTTP Basic
// otherwise). body may be omitted or nil, a string (sent as a form),
// []byte (sent as JSON as it is) or any other value (encoded as JSON).
// After body come header names and values in pairs.
func (s *Site) Do(method, path, login string, args ...any) *Response {
	s.T.Helper()
	req := s.Request(method, path, args...)
	if login != "" {
		req.SetBasicAuth(login, s.user(login).AppPassword)
	}
	return s.Send(s.HTTP.Client(), req)
}

// Request builds the request Do sends, without credentials.
func (s *Site) Request(method, path string, args ...any) *http.Request {
	s.T.Helper()
	var body any
	if len(args) > 0 {
		body = args[0]
	}
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ctype = strings.NewReader(b), "application/x-www-form-urlencoded"
	case []byte:
		rd, ctype = bytes.NewReader(b), "application/json"
	default:
		js, err := json.Marshal(b)
		if err != nil {
			s.T.Fatal(err)
		}
		rd, ctype = bytes.NewReader(js), "application/json"
	}
	if strings.HasPrefix(path, "/") {
		path = s.URL + path
	}
	req, err := http.NewRequest(method, path, rd)
	if err != nil {
		s.T.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if len(args) > 1 {
		for i := 1; i+1 < len(args); i += 2 {
			req.Header.Set(fmt.Sprint(args[i]), fmt.Sprint(args[i+1]))
		}
	}
	return req
}

// Send sends req with client and reads the whole answer.
func (s *Site) Send(client *http.Client, req *http.Request) *Response {
	s.T.Helper()
	res, err := client.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		s.T.Fatal(err)
	}
	return &Response{T: s.T, Status: res.StatusCode, Header: res.Header, Body: data}
}

// Upload sends data as a file named name to the media route as login.
func (s *Site) Upload(login, name, ctype string, data []byte) *Response {
	s.T.Helper()
	req := s.Request("POST", s.API("/media"))
	req.Body = io.NopCloser(bytes.NewReader(data))
	req.ContentLength = int64(len(data))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	if login != "" {
		req.SetBasicAuth(login, s.user(login).AppPassword)
	}
	return s.Send(s.HTTP.Client(), req)
}

// Object decodes the body as a JSON object.
func (r *Response) Object() map[string]any {
	r.T.Helper()
	var m map[string]any
	r.Decode(&m)
	return m
}

// Array decodes the body as a JSON array.
func (r *Response) Array() []any {
	r.T.Helper()
	var a []any
	r.Decode(&a)
	return a
}

// Decode decodes the JSON body into v; the test fails if it cannot.
func (r *Response) Decode(v any) {
	r.T.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.T.Fatalf("body (status %d) does not decode into %T: %v: %s", r.Status, v, err, r.Body)
	}
}

// WantStatus fails the test unless the status is status.
func (r *Response) WantStatus(status int) *Response {
	r.T.Helper()
	if r.Status != status {
		r.T.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	return r
}

// WantError fails the test unless the answer is an API error with status
// and code (and data.status and a message, as every error has); it returns
// the error object.
func (r *Response) WantError(status int, code string) map[string]any {
	r.T.Helper()
	r.WantStatus(status)
	m := r.Object()
	if m["code"] != code {
		r.T.Fatalf("code = %v, want %s; body %s", m["code"], code, r.Body)
	}
	data, _ := m["data"].(map[string]any)
	if data == nil || data["status"] != float64(status) {
		r.T.Fatalf("data.status = %v, want %d; body %s", m["data"], status, r.Body)
	}
	if msg, _ := m["message"].(string); msg == "" {
		r.T.Fatalf("no message in %s", r.Body)
	}
	return m
}

// WantFields fails the test unless the body is an object holding each of
// fields with an equal JSON value (numbers compare as JSON numbers); it
// returns the object.
func (r *Response) WantFields(fields map[string]any) map[string]any {
	r.T.Helper()
	m := r.Object()
	for k, want := range fields {
		w, err := json.Marshal(want)
		if err != nil {
			r.T.Fatal(err)
		}
		g, _ := json.Marshal(m[k])
		if _, ok := m[k]; !ok || !jsonEqual(g, w) {
			r.T.Errorf("%s = %s, want %s", k, g, w)
		}
	}
	return m
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// IDs returns the "id" of each object of a JSON array body.
func (r *Response) IDs() []int64 {
	r.T.Helper()
	var items []struct {
		ID int64 `json:"id"`
	}
	r.Decode(&items)
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// Browser is a visitor with a cookie jar that does not follow redirects,
// signed in through the sign-in form or anonymous.
type Browser struct {
	Site   *Site
	Client *http.Client
	Login  string
}

// Browser returns an anonymous visitor.
func (s *Site) Browser() *Browser {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Browser{Site: s, Client: c}
}

// SignIn returns a visitor signed in as login through the sign-in form
// with the account password.
func (s *Site) SignIn(login string) *Browser {
	s.T.Helper()
	b := s.Browser()
	form := url.Values{"log": {login}, "pwd": {s.user(login).Password}}
	r := b.Do("POST", "/login", form.Encode())
	if r.Status != http.StatusFound {
		s.T.Fatalf("sign in as %s: %d %s", login, r.Status, r.Body)
	}
	b.Login = login
	return b
}

// Do sends a request with the browser's cookies, as Site.Do without
// credentials.
func (b *Browser) Do(method, path string, args ...any) *Response {
	b.Site.T.Helper()
	return b.Site.Send(b.Client, b.Site.Request(method, path, args...))
}

// Nonce asks the site's nonce endpoint for a fresh nonce of the signed-in
// browser.
func (b *Browser) Nonce() string {
	b.Site.T.Helper()
	r := b.Do("GET", b.Site.Server.Names().NonceEndpoint).WantStatus(http.StatusOK)
	return string(r.Body)
}

// API sends an API request with the browser's session cookie and a fresh
// nonce in the nonce header, as the admin's scripts do.
func (b *Browser) API(method, route string, body any) *Response {
	b.Site.T.Helper()
	return b.Do(method, b.Site.API(route), body, b.Site.Server.Names().NonceHeader(), b.Nonce())
}
