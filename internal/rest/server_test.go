package rest_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/rest"
)

func TestErrorsHaveCodeMessageAndStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, method, target, body string
		hdr                        []string
		status                     int
		code, message              string
	}{
		{"unknown path", "GET", "/api/svc/v2/nope", "", nil, 404, "rest_no_route", "No route was found matching the URL and request method"},
		{"wrong method is 404 not 405", "PUT", "/api/svc/v2/things", "", nil, 404, "rest_no_route", "No route was found matching the URL and request method"},
		{"anchored match", "GET", "/api/svc/v2/things/5/extra", "", nil, 404, "rest_no_route", "No route was found matching the URL and request method"},
		{"handler error passes through", "GET", "/api/svc/v2/things/404", "", nil, 404, "rest_thing_invalid_id", "Invalid thing id."},
		{"plain error becomes 500", "GET", "/api/svc/v2/things/500", "", nil, 500, "rest_internal_error", "An internal error occurred."},
		{"panic becomes 500", "GET", "/api/svc/v2/things/666", "", nil, 500, "rest_internal_error", "An internal error occurred."},
		{"ErrForbidden anonymous is 401", "DELETE", "/api/svc/v2/things/5", "", nil, 401, "rest_forbidden", "You don't have permission to do this."},
		{"AuthError anonymous is 401", "POST", "/api/svc/v2/things", `{"name":"x"}`, []string{"Content-Type", "application/json"}, 401, "rest_cannot_create", "Sorry, you are not allowed to create things."},
		{"embedded AuthError signed in is 403", "GET", "/api/svc/v2/people/999", "", []string{"X-Test-User", "3"}, 403, "rest_person_hidden", "Hidden person."},
		{"auth error stops before routing", "GET", "/api/svc/v2/nope", "", []string{"X-Test-User", "bad"}, 401, "rest_authentication_failed", "Bad credentials."},
		{"other auth error is 500", "GET", "/api/svc/v2/things", "", []string{"X-Test-User", "boom"}, 500, "rest_internal_error", "An internal error occurred."},
		{"invalid JSON", "POST", "/api/svc/v2/echo", `{"a":`, []string{"Content-Type", "application/json; charset=utf-8"}, 400, "rest_invalid_json", ""},
		{"trailing garbage JSON", "POST", "/api/svc/v2/echo", `{"a":1} x`, []string{"Content-Type", "Application/JSON"}, 400, "rest_invalid_json", ""},
		{"jsonp invalid callback", "GET", "/api/svc/v2/things?_jsonp=alert(1)", "", nil, 400, "rest_callback_invalid", "The JSONP callback function is invalid."},
		{"jsonp empty callback", "GET", "/api/svc/v2/things?_jsonp=", "", nil, 400, "rest_callback_invalid", "The JSONP callback function is invalid."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, tc.method, tc.target, tc.body, tc.hdr...)
			if res.Status != tc.status {
				t.Fatalf("status = %d, want %d; body %s", res.Status, tc.status, res.Raw)
			}
			body := res.obj(t)
			if body["code"] != tc.code {
				t.Errorf("code = %v, want %s", body["code"], tc.code)
			}
			if tc.message != "" && body["message"] != tc.message {
				t.Errorf("message = %v, want %s", body["message"], tc.message)
			}
			if tc.code == "rest_invalid_json" && !strings.HasPrefix(body["message"].(string), "Invalid JSON body passed: ") {
				t.Errorf("message = %v, want the parse error", body["message"])
			}
			if got := path(body, "data", "status"); got != float64(tc.status) {
				t.Errorf("data.status = %v, want %d", got, tc.status)
			}
			if len(body) != 3 {
				t.Errorf("error body keys = %v, want code, message, data", body)
			}
		})
	}
}

func TestJSONPDisabled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *rest.Config) { c.DisableJSONP = true })
	res := f.do(t, "GET", "/api/svc/v2/things?_jsonp=cb", "")
	if res.Status != 400 || path(res.Body, "code") != "rest_callback_disabled" {
		t.Fatalf("got %d %s", res.Status, res.Raw)
	}
}

func TestJSONPWrapsBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "GET", "/api/svc/v2/echo?_jsonp=my.cb_1", "")
	if res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/javascript; charset=UTF-8" {
		t.Errorf("content type %q", ct)
	}
	if !strings.HasPrefix(res.Raw, "/**/my.cb_1({") || !strings.HasSuffix(res.Raw, "})") {
		t.Errorf("body %q", res.Raw)
	}
}

func TestBasicHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name   string
		hdr    []string
		want   map[string]string
		absent []string
	}{
		{"anonymous without origin", nil, map[string]string{
			"Content-Type":                  "application/json; charset=UTF-8",
			"X-Content-Type-Options":        "nosniff",
			"Access-Control-Expose-Headers": "X-API-Total, X-API-TotalPages, Link, Allow",
		}, []string{"Access-Control-Allow-Origin", "Cache-Control", "Expires", "Vary"}},
		{"no origin is allowed by default", []string{"Origin", "https://app.test"}, map[string]string{
			"Access-Control-Expose-Headers": "X-API-Total, X-API-TotalPages, Link, Allow",
		}, []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Vary"}},
		{"signed in gets no-cache", []string{"X-Test-User", "1"}, map[string]string{
			"Expires":       "Wed, 11 Jan 1984 05:00:00 GMT",
			"Cache-Control": "no-cache, must-revalidate, max-age=0",
			"Pragma":        "no-cache",
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "GET", "/api/svc/v2/things", "", tc.hdr...)
			for k, v := range tc.want {
				if got := res.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			for _, k := range tc.absent {
				if got := res.Header.Get(k); got != "" {
					t.Errorf("%s = %q, want none", k, got)
				}
			}
		})
	}
}

func TestWordPressNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *rest.Config) {
		c.Names = rest.WordPressNames()
		c.CORS.AllowedOrigins = []string{"https://app.test"}
	})
	res := f.do(t, "GET", "/wp-json/wp/v2/things", "", "Origin", "https://app.test")
	if res.Status != 200 {
		t.Fatalf("status %d %s", res.Status, res.Raw)
	}
	if res.Header.Get("X-WP-Total") != "5" || res.Header.Get("Access-Control-Expose-Headers") != "X-WP-Total, X-WP-TotalPages, Link, Allow" {
		t.Errorf("headers %v", res.Header)
	}
	if got := path(res.Body, 0, "_links", "wp:featuredmedia", 0, "href"); got != "http://example.test/wp-json/wp/v2/people/2" {
		t.Errorf("featuredmedia href %v", got)
	}
	if got := path(res.Body, 0, "_links", "curies", 0, "href"); got != "https://api.w.org/{rel}" {
		t.Errorf("curies %v", got)
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, method, target string
		status               int
		check                func(t *testing.T, r result)
	}{
		{"trailing slash matches", "GET", "/api/svc/v2/things/", 200, nil},
		{"namespace with trailing slash", "GET", "/api/svc/v2/", 200, func(t *testing.T, r result) {
			if path(r.Body, "namespace") != "svc/v2" {
				t.Errorf("body %s", r.Raw)
			}
		}},
		{"root without slash", "GET", "/api", 200, func(t *testing.T, r result) {
			if path(r.Body, "name") != "Folio Test" {
				t.Errorf("body %s", r.Raw)
			}
		}},
		{"root with slash", "GET", "/api/", 200, nil},
		{"rest_route query", "GET", "/api/?rest_route=/svc/v2/things/7", 200, func(t *testing.T, r result) {
			if path(r.Body, "id") != float64(7) {
				t.Errorf("body %s", r.Raw)
			}
		}},
		{"case-insensitive", "GET", "/api/SVC/V2/Things/3", 200, func(t *testing.T, r result) {
			if path(r.Body, "id") != float64(3) {
				t.Errorf("body %s", r.Raw)
			}
		}},
		{"url param captured", "GET", "/api/svc/v2/things/42", 200, func(t *testing.T, r result) {
			if path(r.Body, "id") != float64(42) {
				t.Errorf("body %s", r.Raw)
			}
		}},
		{"non-digit id", "GET", "/api/svc/v2/things/abc", 404, nil},
		{"HEAD uses GET without body", "HEAD", "/api/svc/v2/things", 200, func(t *testing.T, r result) {
			if r.Raw != "" {
				t.Errorf("HEAD body %q", r.Raw)
			}
			if r.Header.Get("X-API-Total") != "5" {
				t.Errorf("HEAD headers %v", r.Header)
			}
		}},
		{"method override query", "POST", "/api/svc/v2/echo?_method=delete", 200, func(t *testing.T, r result) {
			if path(r.Body, "method") != "DELETE" {
				t.Errorf("method %v", path(r.Body, "method"))
			}
		}},
		{"location passes through", "POST", "/api/svc/v2/things?name=x", 201, func(t *testing.T, r result) {
			if r.Header.Get("Location") != "http://example.test/api/svc/v2/things/77" {
				t.Errorf("Location %q", r.Header.Get("Location"))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.name == "location passes through" {
				hdr = []string{"X-Test-User", "1"}
			}
			res := f.do(t, tc.method, tc.target, "", hdr...)
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.Status, tc.status, res.Raw)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
}

func TestMethodOverrideOnlyOnPostWithQueryBeforeHeader(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, method, target string
		hdr                  []string
		want                 string
	}{
		{"header", "POST", "/api/svc/v2/echo", []string{"X-HTTP-Method-Override", "delete"}, "DELETE"},
		{"query wins over header", "POST", "/api/svc/v2/echo?_method=GET", []string{"X-HTTP-Method-Override", "DELETE"}, "GET"},
		{"none", "POST", "/api/svc/v2/echo", nil, "POST"},
		// A GET never writes: links and script tags can make one.
		{"GET ignores _method", "GET", "/api/svc/v2/echo?_method=DELETE", nil, "GET"},
		{"GET ignores the header", "GET", "/api/svc/v2/echo", []string{"X-HTTP-Method-Override", "POST"}, "GET"},
		{"DELETE ignores _method", "DELETE", "/api/svc/v2/echo?_method=POST", nil, "DELETE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, tc.method, tc.target, "", tc.hdr...)
			if got := path(res.Body, "method"); got != tc.want {
				t.Errorf("method = %v, want %s (%s)", got, tc.want, res.Raw)
			}
		})
	}
}

func TestParameterSourcePrecedence(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	js := []string{"Content-Type", "application/json"}
	form := []string{"Content-Type", "application/x-www-form-urlencoded"}
	tests := []struct {
		name, method, target, body string
		hdr                        []string
		key                        string
		want                       any
	}{
		{"json beats form-less query", "POST", "/api/svc/v2/echo?slug=q", `{"slug":"j"}`, js, "slug", "j"},
		{"form beats query", "POST", "/api/svc/v2/echo?slug=q", `slug=f`, form, "slug", "f"},
		{"missing content type is a form", "POST", "/api/svc/v2/echo?slug=q", `slug=f`, nil, "slug", "f"},
		{"json null falls through", "POST", "/api/svc/v2/echo?slug=q", `{"slug":null}`, js, "slug", "q"},
		{"form ignored on DELETE", "DELETE", "/api/svc/v2/echo?slug=q", `slug=f`, form, "slug", "q"},
		{"json honoured on DELETE", "DELETE", "/api/svc/v2/echo?slug=q", `{"slug":"j"}`, js, "slug", "j"},
		{"form ignored after override to DELETE", "POST", "/api/svc/v2/echo?_method=DELETE&slug=q", `slug=f`, form, "slug", "q"},
		{"query beats url param", "GET", "/api/svc/v2/things/5?id=9", ``, nil, "id", float64(9)},
		{"default applies", "GET", "/api/svc/v2/echo", ``, nil, "per_page", float64(10)},
		{"undeclared raw value", "GET", "/api/svc/v2/echo?undeclared=x", ``, nil, "undeclared", "x"},
		{"bracket object", "GET", "/api/svc/v2/echo?filter[s]=rock&filter[year]=2020", ``, nil, "filter", map[string]any{"s": "rock", "year": "2020"}},
		{"json numbers are integers", "POST", "/api/svc/v2/echo", `{"count":12}`, js, "count", float64(12)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, tc.method, tc.target, tc.body, tc.hdr...)
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Raw)
			}
			if got := path(res.Body, tc.key); jsonString(got) != jsonString(tc.want) {
				t.Errorf("%s = %v, want %v (%s)", tc.key, got, tc.want, res.Raw)
			}
		})
	}
}

func TestSanitizedValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, query, key string
		want             any
	}{
		{"absint strips", "per_page=12abc", "per_page", float64(12)},
		{"absint negative passes validation", "per_page=-5", "per_page", float64(5)},
		{"integer cast", "count=7", "count", float64(7)},
		{"bool true", "force=TRUE", "force", true},
		{"bool false word", "force=false", "force", false},
		{"bool 1", "force=1", "force", true},
		{"bool 0", "force=0", "force", false},
		{"bool empty is false", "force=", "force", false},
		{"id list comma", "include=3,1,3,%202", "include", []any{float64(3), float64(1), float64(2)}},
		{"id list repeated", "include=4&include=-5&include=4", "include", []any{float64(4), float64(5)}},
		{"id list brackets", "include[]=8&include[]=9", "include", []any{float64(8), float64(9)}},
		{"string list", "roles=editor,author", "roles", []any{"editor", "author"}},
		{"email stripped", "email=%20a@example.com%20", "email", "a@example.com"},
		{"uri cleaned", "site=example.com/a%20b", "site", "http://example.com/a%20b"},
		{"string kept", "slug=a+b", "slug", "a b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "GET", "/api/svc/v2/echo?"+tc.query, "")
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Raw)
			}
			if got := path(res.Body, tc.key); jsonString(got) != jsonString(tc.want) {
				t.Errorf("%s = %v, want %v", tc.key, jsonString(got), jsonString(tc.want))
			}
		})
	}
}

func TestJSONIDList(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "POST", "/api/svc/v2/echo", `{"include":[3,"4",3,-1]}`, "Content-Type", "application/json")
	if got := jsonString(path(res.Body, "include")); got != "[3,4,1]" {
		t.Errorf("include = %s", got)
	}
	res = f.do(t, "POST", "/api/svc/v2/echo", `{"force":true}`, "Content-Type", "application/json")
	if path(res.Body, "force") != true {
		t.Errorf("json force = %v", path(res.Body, "force"))
	}
}

func TestValidationErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, query string
		want        map[string]string
		message     string
	}{
		{"enum", "context=bogus", map[string]string{"context": "context is not one of view, embed, edit"}, "Invalid parameter(s): context"},
		{"integer type", "count=abc", map[string]string{"count": "count is not of type integer"}, "Invalid parameter(s): count"},
		{"boolean", "force=yes", map[string]string{"force": "force is not of type boolean"}, "Invalid parameter(s): force"},
		{"between", "per_page=101", map[string]string{"per_page": "per_page must be between 1 (inclusive) and 100 (inclusive)"}, "Invalid parameter(s): per_page"},
		{"zero per_page", "per_page=0", map[string]string{"per_page": "per_page must be between 1 (inclusive) and 100 (inclusive)"}, ""},
		{"greater than", "page=0", map[string]string{"page": "page must be greater than 1 (inclusive)"}, ""},
		{"less than exclusive", "low=5", map[string]string{"low": "low must be less than 5 (exclusive)"}, ""},
		{"between exclusive min", "range=1", map[string]string{"range": "range must be between 1 (exclusive) and 9 (inclusive)"}, ""},
		{"date", "after=yesterday", map[string]string{"after": "The date you provided is invalid."}, ""},
		{"email", "email=nope", map[string]string{"email": "The email address you provided is invalid."}, ""},
		{"custom validator", "status=secret", map[string]string{"status": "Status is forbidden"}, ""},
		{"plain no", "status=plain", map[string]string{"status": "Invalid parameter."}, ""},
		{"string type", "slug[]=a", map[string]string{"slug": "slug is not of type string"}, ""},
		{"all collected in declared order", "status=secret&context=x&page=0", map[string]string{
			"context": "context is not one of view, embed, edit",
			"page":    "page must be greater than 1 (inclusive)",
			"status":  "Status is forbidden",
		}, "Invalid parameter(s): context, page, status"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "GET", "/api/svc/v2/echo?"+tc.query, "")
			if res.Status != 400 {
				t.Fatalf("status %d: %s", res.Status, res.Raw)
			}
			body := res.obj(t)
			if body["code"] != "rest_invalid_param" {
				t.Errorf("code %v", body["code"])
			}
			if tc.message != "" && body["message"] != tc.message {
				t.Errorf("message %v, want %s", body["message"], tc.message)
			}
			params, ok := path(body, "data", "params").(map[string]any)
			if !ok {
				t.Fatalf("params is not an object: %s", res.Raw)
			}
			if len(params) != len(tc.want) {
				t.Errorf("params %v, want %v", params, tc.want)
			}
			for k, v := range tc.want {
				if params[k] != v {
					t.Errorf("params[%s] = %v, want %q", k, params[k], v)
				}
			}
			if tc.message != "" && strings.Contains(tc.message, ",") {
				// Declared order in the params object too.
				if !strings.Contains(res.Raw, `"params":{"context":`) {
					t.Errorf("params not in declared order: %s", res.Raw)
				}
			}
		})
	}
}

func TestValidationBeatsPermission(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, body string
		status     int
		code       string
		params     string
	}{
		{"missing all", ``, 400, "rest_missing_callback_param", `["a","b"]`},
		{"missing one", `a=1`, 400, "rest_missing_callback_param", `["b"]`},
		{"empty string counts as present", `a=&b=2`, 401, "rest_forbidden", ""},
		{"invalid after required", `a=1&b=x`, 400, "rest_invalid_param", `{"b":"b is not of type integer"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "POST", "/api/svc/v2/required", tc.body, "Content-Type", "application/x-www-form-urlencoded")
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.Status, tc.status, res.Raw)
			}
			body := res.obj(t)
			if body["code"] != tc.code {
				t.Errorf("code %v", body["code"])
			}
			if tc.code == "rest_missing_callback_param" {
				want := "Missing parameter(s): " + strings.NewReplacer(`[`, ``, `]`, ``, `"`, ``, `,`, `, `).Replace(tc.params)
				if body["message"] != want {
					t.Errorf("message %v, want %s", body["message"], want)
				}
			}
			if tc.params != "" {
				if got := jsonString(path(body, "data", "params")); got != tc.params {
					t.Errorf("params %s, want %s", got, tc.params)
				}
			}
		})
	}
}

func TestEnvelope(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, target string
		status       float64
		hdrKey       string
	}{
		{"success", "/api/svc/v2/things?_envelope", 200, "X-API-Total"},
		{"error", "/api/svc/v2/things/404?_envelope=1", 404, "Allow"},
		{"no route", "/api/svc/v2/nope?_envelope", 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "GET", tc.target, "")
			if res.Status != 200 {
				t.Fatalf("HTTP status %d", res.Status)
			}
			body := res.obj(t)
			if body["status"] != tc.status {
				t.Errorf("status %v", body["status"])
			}
			if _, ok := body["body"]; !ok {
				t.Errorf("no body: %s", res.Raw)
			}
			if tc.hdrKey != "" {
				if path(body, "headers", tc.hdrKey) == nil {
					t.Errorf("headers lack %s: %s", tc.hdrKey, res.Raw)
				}
				if res.Header.Get(tc.hdrKey) != "" {
					t.Errorf("%s also sent as real header", tc.hdrKey)
				}
			}
		})
	}
}

func TestAllowHeader(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, method, target string
		user                 string
		want                 string
	}{
		{"anonymous item", "GET", "/api/svc/v2/things/5", "", "GET"},
		{"signed-in item", "GET", "/api/svc/v2/things/5", "1", "GET, POST, PUT, PATCH, DELETE"},
		{"per-item permission", "GET", "/api/svc/v2/things/13", "1", "GET, DELETE"},
		{"error response still has Allow", "GET", "/api/svc/v2/things/404", "", "GET"},
		{"validation error has Allow", "GET", "/api/svc/v2/things/5?context=x", "1", "GET, POST, PUT, PATCH, DELETE"},
		{"denied request has Allow", "DELETE", "/api/svc/v2/things/5", "", "GET"},
		{"no route no Allow", "GET", "/api/svc/v2/nope", "", ""},
		{"nothing allowed omits Allow", "POST", "/api/svc/v2/required?a=1&b=2", "", ""},
		{"HEAD never listed", "HEAD", "/api/svc/v2/things", "", "GET"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.user != "" {
				hdr = []string{"X-Test-User", tc.user}
			}
			res := f.do(t, tc.method, tc.target, "", hdr...)
			if got := res.Header.Get("Allow"); got != tc.want {
				t.Errorf("Allow = %q, want %q", got, tc.want)
			}
			if _, present := res.Header["Allow"]; tc.want == "" && present {
				t.Errorf("Allow present")
			}
		})
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "OPTIONS", "/api/svc/v2/things", "")
	if res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	body := res.obj(t)
	if body["namespace"] != "svc/v2" || jsonString(body["methods"]) != `["GET","POST"]` {
		t.Errorf("route data %s", res.Raw)
	}
	if path(body, "schema", "title") != "thing" || path(body, "schema", "$schema") != "http://json-schema.org/draft-04/schema#" {
		t.Errorf("schema %v", body["schema"])
	}
	if got := jsonString(path(body, "schema", "properties", "title", "properties", "raw", "context")); got != `["edit"]` {
		t.Errorf("nested context %s", got)
	}
	if path(body, "schema", "properties", "id", "readonly") != true {
		t.Errorf("readonly missing")
	}
	if path(body, "schema", "properties", "name", "required") != true {
		t.Errorf("required missing")
	}
	if got := jsonString(path(body, "schema", "properties", "tags", "items")); got != `{"type":"integer"}` {
		t.Errorf("items %s", got)
	}
	if res.Header.Get("Allow") != "GET" {
		t.Errorf("Allow %q", res.Header.Get("Allow"))
	}
	if path(body, "_links", "self") != "http://example.test/api/svc/v2/things" {
		t.Errorf("self %v", path(body, "_links", "self"))
	}
	// Properties in declared order.
	if i, j := strings.Index(res.Raw, `"secret":`), strings.Index(res.Raw, `"status":{`); i < 0 || j < 0 || i > j {
		t.Errorf("schema properties not in declared order")
	}

	res = f.do(t, "OPTIONS", "/api/svc/v2/things/3", "", "X-Test-User", "2")
	if res.Header.Get("Allow") != "GET, POST, PUT, PATCH, DELETE" {
		t.Errorf("item Allow %q", res.Header.Get("Allow"))
	}
	if _, ok := path(res.Body, "_links").(map[string]any); ok {
		t.Errorf("route with variables has _links: %s", res.Raw)
	}

	res = f.do(t, "OPTIONS", "/api/svc/v2/things/13", "", "X-Test-User", "2")
	if res.Header.Get("Allow") != "GET, DELETE" {
		t.Errorf("permission sees the URL id: Allow %q", res.Header.Get("Allow"))
	}

	res = f.do(t, "OPTIONS", "/api/svc/v2/nothing/here", "")
	if res.Status != 200 || res.Raw != "[]" {
		t.Errorf("unmatched OPTIONS: %d %s", res.Status, res.Raw)
	}
}

func TestRootIndex(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "GET", "/api/", "")
	body := res.obj(t)
	checks := map[string]any{
		"name":           "Folio Test",
		"description":    "Just testing",
		"url":            "http://example.test",
		"home":           "http://example.test",
		"namespaces":     []any{"svc/v2"},
		"authentication": []any{},
	}
	for k, v := range checks {
		if jsonString(body[k]) != jsonString(v) {
			t.Errorf("%s = %v, want %v", k, jsonString(body[k]), jsonString(v))
		}
	}
	if !strings.Contains(res.Raw, `"authentication":[]`) {
		t.Errorf("authentication must be []")
	}
	if path(body, "_links", "help", 0, "href") != "https://developer.wordpress.org/rest-api/" {
		t.Errorf("help link %v", path(body, "_links"))
	}
	routes := path(body, "routes").(map[string]any)
	for _, key := range []string{"/", "/svc/v2", "/svc/v2/things", `/svc/v2/things/(?P<id>[\d]+)`} {
		if _, ok := routes[key]; !ok {
			t.Errorf("route %s missing", key)
		}
	}
	// Registration order.
	if a, b, c := strings.Index(res.Raw, `"/":{`), strings.Index(res.Raw, `"/svc/v2":{`), strings.Index(res.Raw, `"/svc/v2/echo":{`); !(a < b && b < c) {
		t.Errorf("routes not in registration order")
	}
	root := routes["/"]
	if path(root, "namespace") != "" || path(root, "_links", "self") != "http://example.test/api/" {
		t.Errorf("root route %v", jsonString(root))
	}
	if jsonString(path(root, "endpoints", 0, "args", "context")) != `{"default":"view","required":false}` {
		t.Errorf("root args %s", jsonString(path(root, "endpoints")))
	}
	if !strings.Contains(res.Raw, `"context":{"required":false,"default":"view","enum":["view","embed","edit"],"description":"Scope."}`) {
		t.Errorf("arg keys not in order required, default, enum, description")
	}
	item := routes[`/svc/v2/things/(?P<id>[\d]+)`]
	if _, ok := path(item, "_links").(map[string]any); ok {
		t.Errorf("item route has _links")
	}
	if jsonString(path(item, "methods")) != `["GET","POST","PUT","PATCH","DELETE"]` {
		t.Errorf("methods %s", jsonString(path(item, "methods")))
	}
	if n := len(path(item, "endpoints").([]any)); n != 3 {
		t.Errorf("endpoints %d", n)
	}
	if jsonString(path(item, "endpoints", 1, "methods")) != `["POST","PUT","PATCH"]` {
		t.Errorf("update methods %s", jsonString(path(item, "endpoints", 1)))
	}
	if jsonString(path(item, "endpoints", 2, "args", "force")) != `{"default":false,"required":false}` {
		t.Errorf("false default must be shown: %s", jsonString(path(item, "endpoints", 2, "args")))
	}
	if jsonString(path(routes, "/svc/v2/required", "endpoints", 0, "args", "a")) != `{"required":true}` {
		t.Errorf("required arg %s", jsonString(path(routes, "/svc/v2/required")))
	}
	if path(item, "schema") != nil {
		t.Errorf("schema without context=help")
	}

	res = f.do(t, "GET", "/api/?context=help", "")
	if path(res.Body, "routes", "/svc/v2/things", "schema", "title") != "thing" {
		t.Errorf("context=help adds no schema")
	}
}

func TestNamespaceIndex(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "GET", "/api/svc/v2", "")
	body := res.obj(t)
	if body["namespace"] != "svc/v2" {
		t.Errorf("namespace %v", body["namespace"])
	}
	if path(body, "_links", "up", 0, "href") != "http://example.test/api/" {
		t.Errorf("up %v", path(body, "_links"))
	}
	routes := body["routes"].(map[string]any)
	if _, ok := routes["/"]; ok {
		t.Errorf("root route in namespace index")
	}
	nsRoute := routes["/svc/v2"]
	if jsonString(path(nsRoute, "endpoints", 0, "args")) != `{"context":{"default":"view","required":false},"namespace":{"default":"svc/v2","required":false}}` {
		t.Errorf("namespace args %s", jsonString(path(nsRoute, "endpoints", 0, "args")))
	}
	if path(nsRoute, "_links", "self") != "http://example.test/api/svc/v2" {
		t.Errorf("self %v", path(nsRoute, "_links"))
	}
}

func TestPaginationLinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	base := "http://example.test/api/svc/v2/things"
	tests := []struct {
		name, query string
		items       int
		link        string
	}{
		{"first page", "", 2, "<" + base + `?page=2>; rel="next"`},
		{"middle keeps query", "?context=view&page=2&filter[paged]=3&filter[posts_per_page]=9",
			2, "<" + base + `?context=view&page=1>; rel="prev", <` + base + `?context=view&page=3>; rel="next"`},
		{"last page", "?page=3", 1, "<" + base + `?page=2>; rel="prev"`},
		{"past the end", "?page=9&per_page=2", 0, "<" + base + `?page=3&per_page=2>; rel="prev"`},
		{"single page", "?per_page=10", 5, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "GET", "/api/svc/v2/things"+tc.query, "")
			if res.Status != 200 {
				t.Fatalf("status %d %s", res.Status, res.Raw)
			}
			if n := len(res.Body.([]any)); n != tc.items {
				t.Errorf("items %d, want %d", n, tc.items)
			}
			if res.Header.Get("X-API-Total") != "5" {
				t.Errorf("total %q", res.Header.Get("X-API-Total"))
			}
			if got := res.Header.Get("Link"); got != tc.link {
				t.Errorf("Link = %q\nwant   %q", got, tc.link)
			}
		})
	}
	res := f.do(t, "GET", "/api/svc/v2/things?per_page=2", "")
	if _, ok := res.RawHeader[rest.DefaultNames().TotalPagesHeader()]; !ok {
		t.Errorf("X-API-TotalPages not sent with the spec's spelling: %v", res.RawHeader)
	}
	if res.Header.Get("X-API-TotalPages") != "3" {
		t.Errorf("total pages %q", res.Header.Get("X-API-TotalPages"))
	}
	if res.Raw[0] != '[' {
		t.Errorf("empty page must be []")
	}
	res = f.do(t, "GET", "/api/svc/v2/things?page=9", "")
	if res.Raw != "[]" {
		t.Errorf("past end body %q", res.Raw)
	}
}

func TestResourceEncoding(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, query, want string
	}{
		{"view", "", `{"id":5,"title":{"rendered":"Thing 5"},"status":"publish","tags":[1,2],"name":"thing","_links":`},
		{"edit", "?context=edit", `{"id":5,"title":{"raw":"Raw 5","rendered":"Thing 5"},"secret":"s3cret","status":"publish","tags":[1,2],"name":"thing","_links":`},
		{"embed", "?context=embed", `{"id":5,"title":{"rendered":"Thing 5"},"_links":`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "GET", "/api/svc/v2/things/5"+tc.query, "")
			if !strings.HasPrefix(res.Raw, tc.want) {
				t.Errorf("got  %s\nwant %s...", res.Raw, tc.want)
			}
		})
	}
}

func TestLinksAndCuries(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "GET", "/api/svc/v2/things/5", "")
	i := strings.Index(res.Raw, `"_links":`)
	if i < 0 {
		t.Fatalf("no links: %s", res.Raw)
	}
	links := res.Raw[i+len(`"_links":`) : len(res.Raw)-1]
	want := `{"self":[{"href":"http://example.test/api/svc/v2/things/5"}],` +
		`"collection":[{"href":"http://example.test/api/svc/v2/things"}],` +
		`"author":[{"embeddable":true,"href":"http://example.test/api/svc/v2/people/1"}],` +
		`"replies":[{"embeddable":true,"href":"http://example.test/api/svc/v2/replies?thing=5"}],` +
		`"version-history":[{"href":"http://example.test/api/svc/v2/things/5/revisions"}],` +
		`"up":[{"embeddable":true,"href":"http://example.test/api/svc/v2/people/999"}],` +
		`"wp:featuredmedia":[{"embeddable":true,"href":"http://example.test/api/svc/v2/people/2"}],` +
		`"wp:term":[{"taxonomy":"category","embeddable":true,"href":"http://example.test/api/svc/v2/people?thing=5"},` +
		`{"taxonomy":"post_tag","embeddable":true,"href":"http://example.test/api/svc/v2/empty"}],` +
		`"curies":[{"name":"wp","href":"https://api.folio.dev/{rel}","templated":true}]}`
	if links != want {
		t.Errorf("links\n got %s\nwant %s", links, want)
	}
	// A resource without compacted rels has no curies.
	res = f.do(t, "GET", "/api/svc/v2/people/1", "")
	if strings.Contains(res.Raw, "curies") {
		t.Errorf("curies without compact rels: %s", res.Raw)
	}
}

func TestKeyedOrderAndEmpty(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "GET", "/api/svc/v2/keyed", "")
	if !strings.HasPrefix(res.Raw, `{"zeta":1,"alpha":{"id":3,`) {
		t.Errorf("keyed order: %s", res.Raw)
	}
	res = f.do(t, "GET", "/api/svc/v2/keyed?empty=1", "")
	if res.Raw != "{}" {
		t.Errorf("empty keyed: %s", res.Raw)
	}
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "GET", "/api/svc/v2/things?_embed&per_page=2", "")
	if res.Status != 200 {
		t.Fatalf("status %d %s", res.Status, res.Raw)
	}
	first := path(res.Body, 0, "_embedded").(map[string]any)
	// author: embedded in embed context, with its own _links, no nested _embedded.
	author := path(first, "author", 0)
	if path(author, "id") != float64(1) || path(author, "email") != nil {
		t.Errorf("author %v", jsonString(author))
	}
	if path(author, "_links", "self", 0, "href") == nil {
		t.Errorf("embedded item lacks _links")
	}
	if _, nested := path(author, "_embedded").(map[string]any); nested {
		t.Errorf("nested _embedded")
	}
	// Prefetch filled the cache.
	if path(author, "name") != "cached 1" {
		t.Errorf("prefetch cache not seen: %v", path(author, "name"))
	}
	// replies: thing 1 has one, so kept; thing 2 has none -> omitted.
	if jsonString(path(first, "replies")) != `[[{"reply":1}]]` {
		t.Errorf("replies %s", jsonString(path(first, "replies")))
	}
	second := path(res.Body, 1, "_embedded").(map[string]any)
	if _, ok := second["replies"]; ok {
		t.Errorf("empty replies kept")
	}
	// term list keeps the empty entry aligned.
	if got := jsonString(path(first, "wp:term")); got != `[[{"id":1,"name":"term of 1"}],[]]` {
		t.Errorf("wp:term %s", got)
	}
	// Errors are embedded as error objects.
	if got := jsonString(path(first, "up", 0)); got != `{"code":"rest_person_hidden","data":{"status":401},"message":"Hidden person."}` {
		t.Errorf("up %s", got)
	}
	// Non-embeddable rels never appear.
	for _, rel := range []string{"self", "collection", "version-history", "curies"} {
		if _, ok := first[rel]; ok {
			t.Errorf("%s embedded", rel)
		}
	}
	// Keys in _links order.
	raw := res.Raw
	if a, b := strings.Index(raw, `"_embedded":{"author"`), strings.Index(raw, `"wp:featuredmedia":[{"id"`); a < 0 || b < a {
		t.Errorf("embedded key order wrong: %s", raw)
	}

	// Dedupe and prefetch once: people/1 (author of both, featuredmedia of
	// thing 2), people/2 (featuredmedia of thing 1) and people/999.
	f.mu.Lock()
	defer f.mu.Unlock()
	batches := f.prefetches["people"]
	if len(batches) != 1 {
		t.Fatalf("prefetch called %d times", len(batches))
	}
	if got := strings.Join(batches[0], " "); got != "/svc/v2/people/2?context=embed /svc/v2/people/1?context=embed /svc/v2/people/999?context=embed" {
		t.Errorf("prefetch batch %s", got)
	}
	if f.personCalls != 3 {
		t.Errorf("person handler called %d times, want 3 (deduped)", f.personCalls)
	}
}

func TestEmbedSingleAndEnvelope(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "GET", "/api/svc/v2/things/1?_embed&_envelope", "")
	if path(res.Body, "body", "_embedded", "author", 0, "id") != float64(1) {
		t.Errorf("envelope+embed: %s", res.Raw)
	}
	// Without _embed nothing is embedded.
	res = f.do(t, "GET", "/api/svc/v2/things/1", "")
	if strings.Contains(res.Raw, "_embedded") {
		t.Errorf("embedded without _embed")
	}
}

func TestBodyLimits(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *rest.Config) { c.MaxBodyBytes = 64; c.MaxUploadBytes = 256 })
	big := `{"slug":"` + strings.Repeat("a", 100) + `"}`
	tests := []struct {
		name, target, body, ct string
		status                 int
	}{
		{"json over limit", "/api/svc/v2/echo", big, "application/json", 413},
		{"form over limit", "/api/svc/v2/echo", "slug=" + strings.Repeat("a", 100), "", 413},
		{"upload route allows more", "/api/svc/v2/upload", strings.Repeat("b", 200), "image/png", 201},
		{"upload over its limit", "/api/svc/v2/upload", strings.Repeat("b", 300), "image/png", 413},
		{"small json ok", "/api/svc/v2/echo", `{"slug":"a"}`, "application/json", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.ct != "" {
				hdr = []string{"Content-Type", tc.ct}
			}
			res := f.do(t, "POST", tc.target, tc.body, hdr...)
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.Status, tc.status, res.Raw)
			}
			if tc.status == 413 && path(res.Body, "code") != "rest_request_too_large" {
				t.Errorf("code %v", path(res.Body, "code"))
			}
		})
	}

	// Unknown length (chunked) is bounded too.
	req := httptest.NewRequest("POST", "http://example.test/api/svc/v2/echo", strings.NewReader(big))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, req)
	if w.Code != 413 {
		t.Errorf("chunked over limit: %d", w.Code)
	}
}

func TestMultipartUpload(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("title", "Hello")
	fw, _ := mw.CreateFormFile("file", "a.txt")
	_, _ = fw.Write([]byte("content"))
	_ = mw.Close()
	req := httptest.NewRequest("POST", "http://example.test/api/svc/v2/upload", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, req)
	if w.Code != 201 {
		t.Fatalf("status %d %s", w.Code, w.Body.String())
	}
	if !strings.Contains(w.Body.String(), `"files":1`) || !strings.Contains(w.Body.String(), `"title":"Hello"`) {
		t.Errorf("body %s", w.Body.String())
	}
}

func TestDispatchInternal(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, method, path string
		status             int
	}{
		{"found", "GET", "/svc/v2/things/3", 200},
		{"trailing slash", "GET", "svc/v2/things/3/", 200},
		{"no route", "GET", "/svc/v2/zzz", 404},
		{"panic recovered", "GET", "/svc/v2/things/666", 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := rest.NewRequest(t.Context(), tc.method, tc.path, nil)
			resp := f.srv.Dispatch(req)
			if resp.Status != tc.status {
				t.Errorf("status %d, want %d", resp.Status, tc.status)
			}
		})
	}
	req := rest.NewRequest(t.Context(), "GET", "/svc/v2/things/3", nil)
	if got := req.URL("svc/v2/x"); got != "http://localhost/api/svc/v2/x" {
		t.Errorf("URL before dispatch %q", got)
	}
	f.srv.Dispatch(req)
	if req.Route != `/svc/v2/things/(?P<id>[\d]+)` || req.URLParams["id"] != "3" {
		t.Errorf("route %q params %v", req.Route, req.URLParams)
	}
	if req.Cache() == nil {
		t.Errorf("nil cache")
	}
}

func TestSiteURLConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *rest.Config) { c.SiteURL = "https://blog.example/" })
	res := f.do(t, "GET", "/api/svc/v2/things/2", "")
	if got := path(res.Body, "_links", "self", 0, "href"); got != "https://blog.example/api/svc/v2/things/2" {
		t.Errorf("self %v", got)
	}
}

func TestTLSBase(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	req := httptest.NewRequest("GET", "https://secure.test/api/svc/v2/things/2", nil)
	req.Header.Set("X-Forwarded-Host", "evil.test")
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, req)
	if !strings.Contains(w.Body.String(), `"https://secure.test/api/svc/v2/things/2"`) {
		t.Errorf("body %s", w.Body.String())
	}
	if w.Code != http.StatusOK {
		t.Errorf("status %d", w.Code)
	}
}

func TestHasIgnoresDefaults(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, query, key string
		want             bool
	}{
		{"sent", "?slug=x", "has_slug", true},
		{"empty string is sent", "?slug=", "has_slug", true},
		{"default only", "", "has_per_page", false},
		{"default value still resolved", "", "per_page", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "GET", "/api/svc/v2/echo"+tc.query, "")
			if _, got := res.obj(t)[tc.key]; got != tc.want {
				t.Errorf("%s present = %v, want %v (%s)", tc.key, got, tc.want, res.Raw)
			}
		})
	}
}
