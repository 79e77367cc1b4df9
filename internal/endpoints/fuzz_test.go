package endpoints_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// collectionRoutes are the collections FuzzCollectionQuery reads.
var collectionRoutes = []string{"posts", "pages", "media", "comments", "users", "categories", "tags", "types", "statuses", "taxonomies", "posts/1/revisions"}

// FuzzCollectionQuery reads the real collections, on the real store, with
// arbitrary query strings (filters, dates, brackets, orderings, searches,
// _fields, _embed) as every caller: never a panic, never a 5xx, always
// JSON, and never more items than per_page allows.
func FuzzCollectionQuery(f *testing.F) {
	for _, s := range []string{
		"search=hello&orderby=title&order=asc",
		"filter[s]=x&filter[year]=2020&filter[monthnum]=13&filter[author_name]=nobody",
		"after=2020-01-01T00:00:00&before=garbage&page=abc&per_page=1000",
		"include[]=1&include[]=x&exclude=1,2,3&status=any&context=edit",
		"categories=1&tags_exclude[]=2&sticky=true&slug=a%20b",
		"post=1&parent=0&type=pings&status=hold&author_email=a@b",
		"roles=administrator&orderby=registered_date&_fields=id,name&_embed=1",
		"hide_empty=true&parent=1&orderby=count&search=%FF",
		"offset=-5&page=0&per_page=0&order=sideways",
		"context=embed&_envelope=1&_jsonp=a.b",
	} {
		for i := range collectionRoutes {
			f.Add(uint8(i), uint8(i%len(allRoles)), s)
		}
	}
	e := newEnv(f)
	e.createPost("editor", "post", map[string]any{"title": "Fuzzed", "content": "body"})
	f.Fuzz(func(t *testing.T, route, role uint8, query string) {
		u := e.URL + "/api/svc/v2/" + collectionRoutes[int(route)%len(collectionRoutes)] + "?" + query
		req, err := http.NewRequest("GET", u, nil)
		if err != nil {
			return
		}
		if login := allRoles[int(role)%len(allRoles)]; login != "" {
			req.SetBasicAuth(login, e.Users[login].AppPassword)
		}
		res, err := e.HTTP.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body json.RawMessage
		dec := json.NewDecoder(res.Body)
		if res.StatusCode >= 500 {
			_ = dec.Decode(&body)
			t.Fatalf("GET %s: %d %s", u, res.StatusCode, body)
		}
		if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			if err := dec.Decode(&body); err != nil {
				t.Fatalf("GET %s: not JSON: %v", u, err)
			}
			var items []json.RawMessage
			if json.Unmarshal(body, &items) == nil && len(items) > 100 {
				t.Fatalf("GET %s: %d items", u, len(items))
			}
		}
	})
}

// FuzzWriteBody creates and updates posts with arbitrary JSON bodies as an
// administrator (every field, every type): a bad body is a 4xx with the
// error shape, never a 5xx.
func FuzzWriteBody(f *testing.F) {
	for _, s := range []string{
		`{"title":"t","content":"c","status":"publish"}`,
		`{"title":{"raw":"x"},"date":"2020-13-45T99:99:99","categories":[1,"x",-3]}`,
		`{"status":"future","date_gmt":"2099-01-01T00:00:00Z","password":"p","sticky":"yes"}`,
		`{"meta":{"a":[1,2]},"featured_media":99999,"author":-1,"format":"video"}`,
		`{"slug":"\u00e9t\u00e9","parent":1,"menu_order":"1e3","comment_status":"maybe"}`,
		`[1,2,3]`, `"string"`, `null`, `{"title":"` + strings.Repeat("x", 70000) + `"}`,
	} {
		f.Add(false, s)
		f.Add(true, s)
	}
	e := newEnv(f)
	p := e.createPost("administrator", "post", nil)
	item := "/api/svc/v2/posts/" + strconv.FormatInt(p.ID, 10)
	f.Fuzz(func(t *testing.T, update bool, body string) {
		target := "/api/svc/v2/posts"
		if update {
			target = item
		}
		req, err := http.NewRequest("POST", e.URL+target, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.SetBasicAuth("administrator", e.Users["administrator"].AppPassword)
		res, err := e.HTTP.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
			t.Fatalf("POST %s %q: not a JSON object: %v", target, body, err)
		}
		if res.StatusCode >= 500 {
			t.Fatalf("POST %s %q: %d %v", target, body, res.StatusCode, m)
		}
		if res.StatusCode >= 400 {
			data, _ := m["data"].(map[string]any)
			if _, ok := m["code"].(string); !ok || data == nil || data["status"] != float64(res.StatusCode) {
				t.Fatalf("POST %s %q: error without the spec's shape: %v", target, body, m)
			}
		}
	})
}
