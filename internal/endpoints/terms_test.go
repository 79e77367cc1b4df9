package endpoints_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	hookev "github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

const (
	cats     = "/api/svc/v2/categories"
	tagsPath = "/api/svc/v2/tags"
)

// termStatus is the authorization-required status for a login.
func termStatus(login string) int {
	if login == "" {
		return 401
	}
	return 403
}

// mkTerm creates a term through the API as the editor and returns its id.
func (e *env) mkTerm(path string, body map[string]any) int64 {
	e.T.Helper()
	r := e.do("POST", path, "editor", body)
	if r.Status != 201 {
		e.T.Fatalf("create term at %s: %d %s", path, r.Status, r.Body)
	}
	return int64(r.Object()["id"].(float64))
}

func idList(v any) []int64 {
	out := []int64{}
	for _, x := range v.([]any) {
		out = append(out, int64(x.(float64)))
	}
	return out
}

func TestTermsRoleMatrix(t *testing.T) {
	e := newEnv(t)
	for _, login := range allRoles {
		canManage := login == "administrator" || login == "editor"
		r := e.do("POST", cats, login, map[string]any{"name": "Cat " + login})
		if canManage {
			r.WantStatus(201)
		} else {
			r.WantError(termStatus(login), "rest_cannot_create")
		}
		r = e.do("POST", tagsPath, login, map[string]any{"name": "Tag " + login})
		if canManage {
			r.WantStatus(201)
		} else {
			r.WantError(termStatus(login), "rest_cannot_create")
		}
	}
	id := e.mkTerm(cats, map[string]any{"name": "Target"})
	item := fmt.Sprintf("%s/%d", cats, id)
	for _, login := range allRoles {
		canManage := login == "administrator" || login == "editor"
		r := e.do("POST", item, login, map[string]any{"description": "by " + login})
		if canManage {
			r.WantStatus(200)
		} else {
			r.WantError(termStatus(login), "rest_cannot_update")
		}
		// Everyone may read, edit context needs edit_terms.
		e.do("GET", item, login).WantStatus(200)
		r = e.do("GET", item+"?context=edit", login)
		if canManage {
			r.WantStatus(200)
		} else {
			r.WantError(termStatus(login), "rest_forbidden_context")
		}
		r = e.do("GET", cats+"?context=edit", login)
		if canManage {
			r.WantStatus(200)
		} else {
			r.WantError(termStatus(login), "rest_forbidden_context")
		}
		if !canManage {
			e.do("DELETE", item+"?force=true", login).WantError(termStatus(login), "rest_cannot_delete")
		}
	}
	// Existence is checked before permission on update and delete.
	e.do("POST", cats+"/9999", "subscriber", map[string]any{"name": "x"}).WantError(404, "rest_term_invalid")
	e.do("DELETE", cats+"/9999?force=true", "").WantError(404, "rest_term_invalid")
	e.do("GET", cats+"/9999", "").WantError(404, "rest_term_invalid")
	// A category id on the tags route is not found.
	e.do("GET", fmt.Sprintf("%s/%d", tagsPath, id), "").WantError(404, "rest_term_invalid")
	e.do("DELETE", item+"?force=true", "administrator").WantStatus(200)
}

func TestTermRecordAndSchema(t *testing.T) {
	e := newEnv(t)
	parent := e.mkTerm(cats, map[string]any{"name": "Parent"})
	r := e.do("POST", cats, "editor", map[string]any{"name": "  Child <b>cat</b> ", "description": "<script>x</script><em>d</em>", "parent": parent})
	r.WantStatus(201)
	m := r.Object()
	id := int64(m["id"].(float64))
	if loc := r.Header.Get("Location"); !strings.HasSuffix(loc, fmt.Sprintf("/api/svc/v2/categories/%d", id)) {
		t.Errorf("Location %q", loc)
	}
	if m["name"] != "Child cat" || m["slug"] != "child-cat" || m["taxonomy"] != "category" || m["parent"] != float64(parent) || m["count"] != float64(0) {
		t.Errorf("created term %v", m)
	}
	if d := m["description"].(string); strings.Contains(d, "script") || !strings.Contains(d, "<em>d</em>") {
		t.Errorf("description not filtered: %q", d)
	}
	if !strings.HasSuffix(m["link"].(string), "/category/parent/child-cat/") {
		t.Errorf("link %v", m["link"])
	}
	links := m["_links"].(map[string]any)
	for _, rel := range []string{"self", "collection", "about", "up", "wp:post_type"} {
		if links[rel] == nil {
			t.Errorf("term lacks %s link: %v", rel, links)
		}
	}
	if pt := links["wp:post_type"].([]any)[0].(map[string]any)["href"].(string); !strings.HasSuffix(pt, fmt.Sprintf("/svc/v2/posts?categories=%d", id)) {
		t.Errorf("post_type link %s", pt)
	}
	fields := func(path, ctx string) []string {
		got := keys(e.do("GET", path+"?context="+ctx, "editor").Object())
		sort.Strings(got)
		return got
	}
	item := fmt.Sprintf("%s/%d", cats, id)
	want := map[string][]string{
		"view":  {"_links", "count", "description", "id", "link", "name", "parent", "slug", "taxonomy"},
		"edit":  {"_links", "count", "description", "id", "link", "name", "parent", "slug", "taxonomy"},
		"embed": {"_links", "id", "link", "name", "slug", "taxonomy"},
	}
	for ctx, w := range want {
		if got := fields(item, ctx); !reflect.DeepEqual(got, w) {
			t.Errorf("%s fields %v, want %v", ctx, got, w)
		}
	}
	tag := e.mkTerm(tagsPath, map[string]any{"name": "Flat"})
	if got := fields(fmt.Sprintf("%s/%d", tagsPath, tag), "view"); slices.Contains(got, "parent") {
		t.Errorf("tag has parent: %v", got)
	}
	for path, title := range map[string]string{cats: "category", tagsPath: "tag"} {
		o := e.do("OPTIONS", path, "").Object()
		sch := o["schema"].(map[string]any)
		props := sch["properties"].(map[string]any)
		n := 8
		if title == "tag" {
			n = 7
		}
		if sch["title"] != title || len(props) != n {
			t.Errorf("%s schema title %v with %d properties", path, sch["title"], len(props))
		}
		if _, ok := props["meta"]; ok {
			t.Errorf("%s schema has meta", path)
		}
	}
	// name is required on create.
	e.do("POST", cats, "editor", map[string]any{"description": "x"}).WantError(400, "rest_missing_callback_param")
}

func TestTermCreateRules(t *testing.T) {
	e := newEnv(t)
	tag := e.mkTerm(tagsPath, map[string]any{"name": "Go"})
	e.do("POST", tagsPath, "editor", map[string]any{"name": "Child", "parent": tag}).WantError(400, "rest_taxonomy_not_hierarchical")
	e.do("POST", cats, "editor", map[string]any{"name": "Orphan", "parent": 9999}).WantError(400, "rest_term_invalid")
	e.do("POST", cats, "editor", map[string]any{"name": "Orphan", "parent": tag}).WantError(400, "rest_term_invalid")

	// decisions #5: 400 term_exists with the existing term's id.
	m := e.do("POST", tagsPath, "editor", map[string]any{"name": "go"}).WantError(400, "term_exists")
	if d := m["data"].(map[string]any); d["term_id"] != float64(tag) {
		t.Errorf("term_exists data %v", d)
	}
	// A distinct free slug makes a second term with the same name.
	other := e.mkTerm(tagsPath, map[string]any{"name": "Go", "slug": "golang"})
	if other == tag {
		t.Fatal("same term")
	}
	// Hierarchical: the same name is fine under another parent only.
	a := e.mkTerm(cats, map[string]any{"name": "A"})
	b := e.mkTerm(cats, map[string]any{"name": "B"})
	x1 := e.mkTerm(cats, map[string]any{"name": "X", "parent": a})
	x2 := e.mkTerm(cats, map[string]any{"name": "X", "parent": b})
	m = e.do("POST", cats, "editor", map[string]any{"name": "x", "parent": a}).WantError(400, "term_exists")
	if m["data"].(map[string]any)["term_id"] != float64(x1) {
		t.Errorf("term_exists data %v", m["data"])
	}
	// The second X got a unique slug.
	got := e.do("GET", fmt.Sprintf("%s/%d", cats, x2), "").Object()
	if got["slug"] != "x-2" {
		t.Errorf("second slug %v", got["slug"])
	}
	e.do("POST", cats, "editor", map[string]any{"name": "   "}).WantError(400, "empty_term_name")
	// parent 0 is the top level.
	e.do("POST", cats, "editor", map[string]any{"name": "Top", "parent": 0}).WantStatus(201)
}

func TestTermUpdateRules(t *testing.T) {
	e := newEnv(t)
	a := e.mkTerm(cats, map[string]any{"name": "A"})
	b := e.mkTerm(cats, map[string]any{"name": "B", "parent": a})
	item := fmt.Sprintf("%s/%d", cats, a)
	before, _ := e.db.Version(context.Background())
	r := e.do("POST", item, "editor", map[string]any{})
	r.WantStatus(200)
	if r.Object()["name"] != "A" {
		t.Errorf("unchanged term %v", r.Object())
	}
	e.do("PUT", item, "editor", map[string]any{"name": "A", "slug": "a"}).WantStatus(200)
	if after, _ := e.db.Version(context.Background()); after != before {
		t.Errorf("an update with nothing to change wrote (%d → %d)", before, after)
	}
	m := e.do("PATCH", item, "editor", map[string]any{"name": "Alpha", "description": "d"}).Object()
	if m["name"] != "Alpha" || m["slug"] != "a" || m["description"] != "d" {
		t.Errorf("updated %v", m)
	}
	e.do("POST", item, "editor", map[string]any{"slug": "b"}).WantError(400, "duplicate_term_slug")
	e.do("POST", item, "editor", map[string]any{"parent": b}).WantError(400, "rest_term_invalid")
	e.do("POST", item, "editor", map[string]any{"parent": a}).WantError(400, "rest_term_invalid")
	e.do("POST", item, "editor", map[string]any{"parent": 9999}).WantError(400, "rest_term_invalid")
	e.do("POST", item, "editor", map[string]any{"name": ""}).WantError(400, "empty_term_name")
	tag := e.mkTerm(tagsPath, map[string]any{"name": "T"})
	e.do("POST", fmt.Sprintf("%s/%d", tagsPath, tag), "editor", map[string]any{"parent": 0}).WantError(400, "rest_taxonomy_not_hierarchical")
	m = e.do("POST", fmt.Sprintf("%s/%d", cats, b), "editor", map[string]any{"parent": 0}).Object()
	if m["parent"] != float64(0) {
		t.Errorf("parent %v", m["parent"])
	}
}

func TestTermDelete(t *testing.T) {
	e := newEnv(t)
	a := e.mkTerm(cats, map[string]any{"name": "A"})
	b := e.mkTerm(cats, map[string]any{"name": "B", "parent": a})
	c := e.mkTerm(cats, map[string]any{"name": "C", "parent": b})
	only := e.createPost("editor", "post", map[string]any{"categories": []int64{b}})
	both := e.createPost("editor", "post", map[string]any{"categories": []int64{a, b}})
	item := fmt.Sprintf("%s/%d", cats, b)
	e.do("DELETE", item, "editor").WantError(501, "rest_trash_not_supported")
	e.do("DELETE", item+"?force=false", "editor").WantError(501, "rest_trash_not_supported")
	r := e.do("DELETE", item+"?force=true", "editor")
	r.WantStatus(200)
	if m := r.Object(); m["id"] != float64(b) || m["name"] != "B" || m["count"] != float64(2) {
		t.Errorf("delete body %v", m)
	}
	e.do("GET", item, "").WantError(404, "rest_term_invalid")
	if m := e.do("GET", fmt.Sprintf("%s/%d", cats, c), "").Object(); m["parent"] != float64(a) {
		t.Errorf("child not moved to the deleted term's parent: %v", m["parent"])
	}
	if got := idList(e.do("GET", fmt.Sprintf("%s/%d", posts, only.ID), "").Object()["categories"]); !reflect.DeepEqual(got, []int64{content.DefaultCategoryID}) {
		t.Errorf("post left without categories has %v", got)
	}
	if got := idList(e.do("GET", fmt.Sprintf("%s/%d", posts, both.ID), "").Object()["categories"]); !reflect.DeepEqual(got, []int64{a}) {
		t.Errorf("post with another category has %v", got)
	}
	// The counts follow: the default category took the post left
	// without one, A kept its own, and nothing counts the deleted term.
	counts := e.termCounts(cats)
	if counts[content.DefaultCategoryID] != 1 || counts[a] != 1 {
		t.Errorf("counts after the delete: default %d, A %d, want 1 and 1", counts[content.DefaultCategoryID], counts[a])
	}
	if _, ok := counts[b]; ok {
		t.Errorf("the deleted category is still listed: %v", counts)
	}
	if got := e.do("GET", fmt.Sprintf("%s?categories=%d", posts, b), "").Array(); len(got) != 0 {
		t.Errorf("posts of the deleted category: %d, want none", len(got))
	}
	// The default category cannot be deleted.
	e.do("DELETE", cats+"/1?force=true", "administrator").WantError(500, "rest_cannot_delete")
	e.do("GET", cats+"/1", "").WantStatus(200)
}

func TestTermCollection(t *testing.T) {
	e := newEnv(t)
	news := e.mkTerm(cats, map[string]any{"name": "News", "description": "z"})
	local := e.mkTerm(cats, map[string]any{"name": "Local", "parent": news, "slug": "local-news"})
	sport := e.mkTerm(cats, map[string]any{"name": "Sport"})
	e.createPost("editor", "post", map[string]any{"categories": []int64{local}})
	e.createPost("editor", "post", map[string]any{"categories": []int64{local, sport}})
	list := func(q string) []int64 {
		t.Helper()
		r := e.do("GET", cats+q, "")
		r.WantStatus(200)
		return ids(r.Array())
	}
	cases := map[string][]int64{
		"":                          {local, news, sport, 1},
		"?order=desc":               {1, sport, news, local},
		"?orderby=id":               {1, news, local, sport},
		"?orderby=count&order=desc": {local, sport, news, 1},
		"?orderby=description":      {1, local, sport, news},
		"?orderby=include&include=" + fmt.Sprintf("%d,%d", sport, news): {sport, news},
		"?search=news":                    {local, news},
		"?exclude=1," + fmt.Sprint(local): {news, sport},
		"?slug=sport":                     {sport},
		"?parent=0":                       {news, sport, 1},
		fmt.Sprintf("?parent=%d", news):   {local},
		fmt.Sprintf("?parent=%d", local):  {},
		"?hide_empty=true":                {local, news, sport},
		"?hide_empty=1&parent=0":          {news, sport},
		"?per_page=2&page=2":              {sport, 1},
		"?per_page=2&offset=3":            {1},
	}
	for q, want := range cases {
		if got := list(q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", q, got, want)
		}
	}
	r := e.do("GET", cats+"?per_page=2&page=2", "")
	if r.Header.Get("X-API-Total") != "4" || r.Header.Get("X-API-TotalPages") != "2" || !strings.Contains(r.Header.Get("Link"), `rel="prev"`) {
		t.Errorf("headers %v", r.Header)
	}
	// Past the end: no items, right totals; a falsy total is 0.
	r = e.do("GET", cats+"?per_page=2&page=5", "")
	if len(r.Array()) != 0 || r.Header.Get("X-API-Total") != "4" {
		t.Errorf("past the end: %s %v", r.Body, r.Header)
	}
	r = e.do("GET", cats+"?offset=10", "")
	if len(r.Array()) != 0 {
		t.Errorf("offset past the end: %s", r.Body)
	}
	r = e.do("GET", tagsPath+"?search=nothing", "")
	if len(r.Array()) != 0 || r.Header.Get("X-API-Total") != "0" || r.Header.Get("X-API-TotalPages") != "0" {
		t.Errorf("empty: %s %v", r.Body, r.Header)
	}
	e.do("GET", cats+"?orderby=term_id", "").WantError(400, "rest_invalid_param")
	e.do("GET", cats+"?order=up", "").WantError(400, "rest_invalid_param")
	e.do("GET", cats+"?per_page=101", "").WantError(400, "rest_invalid_param")
	e.do("GET", cats+"?context=nope", "").WantError(400, "rest_invalid_param")
	// Flat taxonomies declare offset, hierarchical ones parent.
	idx := e.do("GET", "/api/svc/v2", "").Object()["routes"].(map[string]any)
	catArgs := idx["/svc/v2/categories"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["args"].(map[string]any)
	tagArgs := idx["/svc/v2/tags"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["args"].(map[string]any)
	if catArgs["parent"] == nil || catArgs["offset"] != nil || tagArgs["offset"] == nil || tagArgs["parent"] != nil {
		t.Errorf("args: categories %v, tags %v", keys(catArgs), keys(tagArgs))
	}
	for _, a := range []string{"context", "page", "per_page", "search", "exclude", "include", "order", "orderby", "hide_empty", "post", "slug"} {
		if catArgs[a] == nil {
			t.Errorf("categories lack %s", a)
		}
	}
}

func TestTermsOfPost(t *testing.T) {
	e := newEnv(t)
	a := e.mkTerm(tagsPath, map[string]any{"name": "alpha"})
	b := e.mkTerm(tagsPath, map[string]any{"name": "beta"})
	c := e.mkTerm(tagsPath, map[string]any{"name": "gamma"})
	pub := e.createPost("editor", "post", map[string]any{"tags": []int64{c, a, b}})
	priv := e.createPost("editor", "post", map[string]any{"tags": []int64{a}, "status": "private"})
	q := fmt.Sprintf("%s?post=%d", tagsPath, pub.ID)
	if got := ids(e.do("GET", q, "").Array()); !reflect.DeepEqual(got, []int64{a, b, c}) {
		t.Errorf("post's tags %v", got)
	}
	if got := ids(e.do("GET", q+"&order=desc&per_page=2", "").Array()); !reflect.DeepEqual(got, []int64{c, b}) {
		t.Errorf("desc page %v", got)
	}
	// include, exclude and search are ignored in this mode.
	if got := ids(e.do("GET", q+fmt.Sprintf("&exclude=%d&search=zzz", a), "").Array()); len(got) != 3 {
		t.Errorf("post mode filtered: %v", got)
	}
	r := e.do("GET", q+"&per_page=1&page=3", "")
	if got := ids(r.Array()); !reflect.DeepEqual(got, []int64{c}) || r.Header.Get("X-API-Total") != "3" {
		t.Errorf("paged: %v %v", got, r.Header)
	}
	if got := e.do("GET", tagsPath+"?post=99999", "").Array(); len(got) != 0 {
		t.Errorf("unknown post: %v", got)
	}
	// The post's visibility applies.
	pq := fmt.Sprintf("%s?post=%d", tagsPath, priv.ID)
	e.do("GET", pq, "").WantError(401, "rest_forbidden_context")
	e.do("GET", pq, "subscriber").WantError(403, "rest_forbidden_context")
	if got := ids(e.do("GET", pq, "editor").Array()); !reflect.DeepEqual(got, []int64{a}) {
		t.Errorf("editor sees %v", got)
	}
}

func TestPostTermArrays(t *testing.T) {
	e := newEnv(t)
	news := e.mkTerm(cats, map[string]any{"name": "News"})
	tag := e.mkTerm(tagsPath, map[string]any{"name": "t1"})
	tag2 := e.mkTerm(tagsPath, map[string]any{"name": "t2"})

	// No categories sent: the default category.
	m := e.do("POST", posts, "author", map[string]any{"title": "Plain", "status": "publish"}).Object()
	if got := idList(m["categories"]); !reflect.DeepEqual(got, []int64{1}) || len(idList(m["tags"])) != 0 {
		t.Errorf("default: categories %v tags %v", m["categories"], m["tags"])
	}
	// Ids are cast to non-negative integers; a form list works too.
	r := e.do("POST", posts, "author", fmt.Sprintf("title=Form&categories=%d&tags=-%d,%d", news, tag, tag2))
	r.WantStatus(201)
	m = r.Object()
	if got := idList(m["categories"]); !reflect.DeepEqual(got, []int64{news}) {
		t.Errorf("categories %v", got)
	}
	if got := idList(m["tags"]); !reflect.DeepEqual(got, []int64{tag, tag2}) {
		t.Errorf("tags %v", got)
	}
	id := int64(m["id"].(float64))
	item := fmt.Sprintf("%s/%d", posts, id)
	// Unknown ids, and ids of another taxonomy, are skipped silently
	// (reference "Terms on write"), on create and on update.
	skipped := e.do("POST", posts, "author", map[string]any{"title": "Skipped", "categories": []int64{news, 99999999}, "tags": []int64{news}})
	skipped.WantStatus(201)
	sm := skipped.Object()
	if got := idList(sm["categories"]); !reflect.DeepEqual(got, []int64{news}) {
		t.Errorf("unknown category kept: %v", got)
	}
	if got := idList(sm["tags"]); len(got) != 0 {
		t.Errorf("a category id kept as a tag: %v", got)
	}
	only := e.do("POST", posts, "author", map[string]any{"title": "Only unknown", "categories": []int64{99999999}})
	only.WantStatus(201)
	if got := idList(only.Object()["categories"]); len(got) != 0 {
		t.Errorf("categories [99999999] gave %v, want []", got)
	}
	upd := e.do("POST", fmt.Sprintf("%s/%d", posts, int64(sm["id"].(float64))), "author", map[string]any{"tags": []int64{tag, 424242}})
	upd.WantStatus(200)
	if got := idList(upd.Object()["tags"]); !reflect.DeepEqual(got, []int64{tag}) {
		t.Errorf("update kept an unknown tag: %v", got)
	}
	// A non-numeric id is no term: skipped like an unknown one.
	if r := e.do("POST", item, "author", map[string]any{"tags": []any{"abc"}}); r.Status != 200 || len(idList(r.Object()["tags"])) != 0 {
		t.Errorf("tags [abc]: %d %s", r.Status, r.Body)
	}
	// Update replaces the terms of the taxonomies sent only.
	m = e.do("POST", item, "author", map[string]any{"tags": []int64{tag2}}).Object()
	if !reflect.DeepEqual(idList(m["tags"]), []int64{tag2}) || !reflect.DeepEqual(idList(m["categories"]), []int64{news}) {
		t.Errorf("after update %v %v", m["tags"], m["categories"])
	}
	m = e.do("POST", item, "author", map[string]any{"categories": []int64{}}).Object()
	if len(idList(m["categories"])) != 0 {
		t.Errorf("[] left %v", m["categories"])
	}
	// An explicit empty list on create means none.
	m = e.do("POST", posts, "author", map[string]any{"title": "None", "categories": []int64{}}).Object()
	if len(idList(m["categories"])) != 0 {
		t.Errorf("explicit [] on create gave %v", m["categories"])
	}

	// Links: one {rel_base}term per taxonomy with its taxonomy attribute,
	// embeddable.
	got := e.do("GET", item+"?_embed", "author").Object()
	links := got["_links"].(map[string]any)["wp:term"].([]any)
	if len(links) != 2 {
		t.Fatalf("term links %v", links)
	}
	for i, tx := range []string{"category", "post_tag"} {
		l := links[i].(map[string]any)
		if l["taxonomy"] != tx || l["embeddable"] != true || !strings.HasSuffix(l["href"].(string), fmt.Sprintf("?post=%d", id)) {
			t.Errorf("term link %d: %v", i, l)
		}
	}
	emb := got["_embedded"].(map[string]any)["wp:term"].([]any)
	if len(emb) != 2 || len(emb[0].([]any)) != 0 || len(emb[1].([]any)) != 1 {
		t.Fatalf("embedded terms %v", emb)
	}
	if et := emb[1].([]any)[0].(map[string]any); et["id"] != float64(tag2) || et["count"] != nil {
		t.Errorf("embedded tag %v", et)
	}
	// Pages take no terms.
	pg := e.do("GET", fmt.Sprintf("/api/svc/v2/pages/%d", e.createPost("editor", "page", nil).ID), "").Object()
	if _, ok := pg["categories"]; ok {
		t.Errorf("page has categories")
	}
}

func TestPostCollectionTermFilters(t *testing.T) {
	e := newEnv(t)
	parent := e.mkTerm(cats, map[string]any{"name": "Parent"})
	child := e.mkTerm(cats, map[string]any{"name": "Child", "parent": parent})
	red := e.mkTerm(tagsPath, map[string]any{"name": "red"})
	blue := e.mkTerm(tagsPath, map[string]any{"name": "blue"})
	p1 := e.createPost("editor", "post", map[string]any{"categories": []int64{parent}, "tags": []int64{red}})
	p2 := e.createPost("editor", "post", map[string]any{"categories": []int64{child}, "tags": []int64{red, blue}})
	p3 := e.createPost("editor", "post", map[string]any{"tags": []int64{blue}})
	list := func(q string) []int64 {
		t.Helper()
		r := e.do("GET", posts+q+"&orderby=id&order=asc", "")
		r.WantStatus(200)
		got := ids(r.Array())
		if r.Header.Get("X-API-Total") != fmt.Sprint(len(got)) {
			t.Errorf("%s: total %s for %d items", q, r.Header.Get("X-API-Total"), len(got))
		}
		return got
	}
	cases := map[string][]int64{
		fmt.Sprintf("?categories=%d", parent):              {p1.ID},
		fmt.Sprintf("?categories=%d,%d", parent, child):    {p1.ID, p2.ID},
		fmt.Sprintf("?tags=%d", blue):                      {p2.ID, p3.ID},
		fmt.Sprintf("?tags=%d&categories=%d", blue, child): {p2.ID},
		fmt.Sprintf("?tags=%d&categories=%d", red, 1):      {},
		"?categories=1":                                {p3.ID},
		"?filter[category_name]=parent":                {p1.ID, p2.ID},
		"?filter[category_name]=parent/child":          {p2.ID},
		"?filter[category_name]=nope":                  {},
		"?filter[tag]=blue":                            {p2.ID, p3.ID},
		"?filter[tag]=red,blue":                        {p1.ID, p2.ID, p3.ID},
		"?filter[tag]=red%2Bblue":                      {p2.ID},
		"?filter[tag]=red+blue":                        {p2.ID},
		"?filter[tag]=red&filter[category_name]=child": {p2.ID},
	}
	for q, want := range cases {
		if got := list(q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", q, got, want)
		}
	}
}

// termCounts returns the count field of every term of a taxonomy route.
func (e *env) termCounts(path string) map[int64]int64 {
	out := map[int64]int64{}
	for _, it := range e.do("GET", path+"?per_page=100", "").Array() {
		m := it.(map[string]any)
		out[int64(m["id"].(float64))] = int64(m["count"].(float64))
	}
	return out
}

func TestTermCountsFollowPostLifecycle(t *testing.T) {
	e := newEnv(t)
	tag := e.mkTerm(tagsPath, map[string]any{"name": "counted"})
	count := func() int64 { return e.termCounts(tagsPath)[tag] }
	p := e.createPost("editor", "post", map[string]any{"tags": []int64{tag}, "status": "draft"})
	item := fmt.Sprintf("%s/%d", posts, p.ID)
	steps := []struct {
		name string
		do   func()
		want int64
	}{
		{"draft", func() {}, 0},
		{"publish", func() { e.do("POST", item, "editor", map[string]any{"status": "publish"}).WantStatus(200) }, 1},
		{"private", func() { e.do("POST", item, "editor", map[string]any{"status": "private"}).WantStatus(200) }, 0},
		{"republish", func() { e.do("POST", item, "editor", map[string]any{"status": "publish"}).WantStatus(200) }, 1},
		{"trash", func() { e.do("DELETE", item, "editor").WantStatus(200) }, 0},
		{"untrash", func() { e.do("POST", item, "editor", map[string]any{"status": "publish"}).WantStatus(200) }, 1},
		{"tag removed", func() { e.do("POST", item, "editor", map[string]any{"tags": []int64{}}).WantStatus(200) }, 0},
		{"tag added", func() { e.do("POST", item, "editor", map[string]any{"tags": []int64{tag}}).WantStatus(200) }, 1},
		{"delete", func() { e.do("DELETE", item+"?force=true", "editor").WantStatus(200) }, 0},
	}
	for _, s := range steps {
		s.do()
		if got := count(); got != s.want {
			t.Fatalf("after %s: count %d, want %d", s.name, got, s.want)
		}
	}
	if n := e.termCounts(cats)[1]; n != 0 {
		t.Errorf("default category count %d", n)
	}
}

func TestTermCountsUnderConcurrentWrites(t *testing.T) {
	e := newEnv(t)
	tagA := e.mkTerm(tagsPath, map[string]any{"name": "a"})
	tagB := e.mkTerm(tagsPath, map[string]any{"name": "b"})
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				r := e.do("POST", posts, "editor", map[string]any{"title": fmt.Sprintf("w%d-%d", w, i), "status": "publish", "tags": []int64{tagA, tagB}})
				if r.Status != 201 {
					errs <- string(r.Body)
					return
				}
				item := fmt.Sprintf("%s/%v", posts, r.Object()["id"])
				switch i % 4 {
				case 0:
					e.do("DELETE", item, "editor")
				case 1:
					e.do("DELETE", item+"?force=true", "editor")
				case 2:
					e.do("DELETE", item, "editor")
					e.do("POST", item, "editor", map[string]any{"status": "publish"})
				case 3:
					e.do("POST", item, "editor", map[string]any{"tags": []int64{tagB}})
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Fatal(s)
	}
	got := e.termCounts(tagsPath)
	for _, tag := range []int64{tagA, tagB} {
		r := e.do("GET", fmt.Sprintf("%s?tags=%d&per_page=1", posts, tag), "")
		if want := r.Header.Get("X-API-Total"); fmt.Sprint(got[tag]) != want {
			t.Errorf("tag %d: count %d, published posts %s", tag, got[tag], want)
		}
	}
	if err := e.db.RecountTerms(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if again := e.termCounts(tagsPath); !reflect.DeepEqual(again, got) {
		t.Errorf("recount changed counts: %v → %v", got, again)
	}
}

func TestTaxonomiesEndpoint(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		c.PostTypes = append(c.PostTypes, config.PostType{Name: "book", RestBase: "books", Supports: []string{"title", "editor"}})
		c.Taxonomies = append(c.Taxonomies, config.Taxonomy{Name: "genre", RestBase: "genres", Hierarchical: true, ObjectTypes: []string{"book"}, Label: "Genres", SingularLabel: "Genre"})
	})
	r := e.do("GET", "/api/svc/v2/taxonomies", "")
	r.WantStatus(200)
	m := r.Object()
	if r.Header.Get("X-API-Total") != "" {
		t.Errorf("taxonomies are paged")
	}
	cat := m["category"].(map[string]any)
	if cat["name"] != "Categories" || cat["hierarchical"] != true || !reflect.DeepEqual(cat["types"], []any{"post"}) || cat["capabilities"] != nil {
		t.Errorf("category %v", cat)
	}
	if tag := m["post_tag"].(map[string]any); tag["name"] != "Tags" || tag["hierarchical"] != false || tag["slug"] != "post_tag" {
		t.Errorf("post_tag %v", tag)
	}
	if m["genre"] == nil {
		t.Errorf("custom taxonomy missing: %v", keys(m))
	}
	if l := cat["_links"].(map[string]any); l["wp:items"] == nil || l["collection"] == nil || l["self"] != nil {
		t.Errorf("links %v", l)
	}
	byType := e.do("GET", "/api/svc/v2/taxonomies?type=book", "").Object()
	if !reflect.DeepEqual(keys(byType), []string{"genre"}) {
		t.Errorf("type=book: %v", keys(byType))
	}
	if body := string(e.do("GET", "/api/svc/v2/taxonomies?type=nope", "").Body); body != "[]" {
		t.Errorf("unknown type: %s", body)
	}
	edit := e.do("GET", "/api/svc/v2/taxonomies/category?context=edit", "editor").Object()
	caps := edit["capabilities"].(map[string]any)
	if caps["manage_terms"] != "manage_categories" || caps["assign_terms"] != "edit_posts" || edit["show_cloud"] != true {
		t.Errorf("edit record %v", edit)
	}
	labels := edit["labels"].(map[string]any)
	if labels["parent_item"] != "Parent Category" || labels["popular_items"] != nil || labels["singular_name"] != "Category" {
		t.Errorf("labels %v", labels)
	}
	tagLabels := e.do("GET", "/api/svc/v2/taxonomies/post_tag?context=edit", "administrator").Object()["labels"].(map[string]any)
	if tagLabels["separate_items_with_commas"] != "Separate tags with commas" || tagLabels["parent_item"] != nil {
		t.Errorf("tag labels %v", tagLabels)
	}
	for _, login := range allRoles {
		canManage := login == "administrator" || login == "editor"
		r := e.do("GET", "/api/svc/v2/taxonomies?context=edit", login)
		if canManage {
			r.WantStatus(200)
		} else {
			r.WantError(termStatus(login), "rest_cannot_view")
		}
		r = e.do("GET", "/api/svc/v2/taxonomies/post_tag?context=edit", login)
		if canManage {
			r.WantStatus(200)
		} else {
			r.WantError(termStatus(login), "rest_forbidden_context")
		}
		e.do("GET", "/api/svc/v2/taxonomies/post_tag", login).WantStatus(200)
	}
	e.do("GET", "/api/svc/v2/taxonomies/nope", "").WantError(404, "rest_taxonomy_invalid")
	o := e.do("OPTIONS", "/api/svc/v2/taxonomies", "").Object()["schema"].(map[string]any)
	props := o["properties"].(map[string]any)
	if o["title"] != "taxonomy" || len(props) != 8 {
		t.Errorf("schema %v", o)
	}
	for name, p := range props {
		if p.(map[string]any)["readonly"] != true {
			t.Errorf("%s is not read-only", name)
		}
	}
	// Route order: taxonomies after statuses, then categories, tags and
	// the custom taxonomies.
	routes := e.do("GET", "/api/svc/v2", "").Object()["routes"].(map[string]any)
	_ = routes
	body := string(e.do("GET", "/api/svc/v2", "").Body)
	order := []string{`"/svc/v2/statuses/`, `"/svc/v2/taxonomies"`, `"/svc/v2/taxonomies/`, `"/svc/v2/categories"`, `"/svc/v2/categories/`, `"/svc/v2/tags"`, `"/svc/v2/tags/`, `"/svc/v2/genres"`}
	last := -1
	for _, s := range order {
		i := strings.Index(body, s)
		if i < 0 || i < last {
			t.Errorf("route %s out of order (at %d, previous at %d)", s, i, last)
		}
		last = i
	}
}

func TestCustomTaxonomiesFromConfig(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		c.PostTypes = append(c.PostTypes, config.PostType{Name: "book", RestBase: "books", Supports: []string{"title", "editor", "author"}})
		c.Taxonomies = append(c.Taxonomies,
			config.Taxonomy{Name: "genre", RestBase: "genres", Hierarchical: true, ObjectTypes: []string{"book"}},
			config.Taxonomy{Name: "mood", ObjectTypes: []string{"post", "book"}},
		)
	})
	fiction := e.mkTerm("/api/svc/v2/genres", map[string]any{"name": "Fiction"})
	scifi := e.mkTerm("/api/svc/v2/genres", map[string]any{"name": "Sci-Fi", "parent": fiction})
	happy := e.mkTerm("/api/svc/v2/mood", map[string]any{"name": "Happy"})
	e.do("POST", "/api/svc/v2/mood", "editor", map[string]any{"name": "Sad", "parent": happy}).WantError(400, "rest_taxonomy_not_hierarchical")
	g := e.do("GET", fmt.Sprintf("/api/svc/v2/genres/%d", scifi), "").Object()
	if g["taxonomy"] != "genre" || g["parent"] != float64(fiction) || !strings.HasSuffix(g["link"].(string), "/genre/fiction/sci-fi/") {
		t.Errorf("genre term %v", g)
	}
	if mo := e.do("GET", fmt.Sprintf("/api/svc/v2/mood/%d", happy), "").Object(); mo["parent"] != nil || mo["taxonomy"] != "mood" {
		t.Errorf("mood term %v", mo)
	}
	titles := map[string]string{"/api/svc/v2/genres": "genre", "/api/svc/v2/mood": "mood"}
	for path, title := range titles {
		if got := e.do("OPTIONS", path, "").Object()["schema"].(map[string]any)["title"]; got != title {
			t.Errorf("%s schema title %v", path, got)
		}
	}
	book := e.createPost("author", "book", map[string]any{"genres": []int64{scifi}, "mood": []int64{happy}})
	m := e.do("GET", fmt.Sprintf("/api/svc/v2/books/%d", book.ID), "").Object()
	if !reflect.DeepEqual(idList(m["genres"]), []int64{scifi}) || !reflect.DeepEqual(idList(m["mood"]), []int64{happy}) {
		t.Errorf("book terms %v %v", m["genres"], m["mood"])
	}
	if _, ok := m["categories"]; ok {
		t.Errorf("book has categories")
	}
	// A book gets no default category.
	if got := e.do("GET", fmt.Sprintf("/api/svc/v2/categories?post=%d", book.ID), "").Array(); len(got) != 0 {
		t.Errorf("book categories %v", got)
	}
	post := e.do("GET", fmt.Sprintf("%s/%d", posts, e.createPost("author", "post", map[string]any{"mood": []int64{happy}}).ID), "").Object()
	if !reflect.DeepEqual(idList(post["mood"]), []int64{happy}) {
		t.Errorf("post mood %v", post["mood"])
	}
	if got := ids(e.do("GET", fmt.Sprintf("/api/svc/v2/books?genres=%d", scifi), "").Array()); !reflect.DeepEqual(got, []int64{book.ID}) {
		t.Errorf("books?genres %v", got)
	}
	if got := ids(e.do("GET", fmt.Sprintf("/api/svc/v2/books?genres=%d", fiction), "").Array()); len(got) != 0 {
		t.Errorf("children included: %v", got)
	}
	if n := e.termCounts("/api/svc/v2/mood")[happy]; n != 2 {
		t.Errorf("mood count %d", n)
	}
	// A mood id in genres is skipped: it is not a genre.
	mixed := e.do("POST", "/api/svc/v2/books", "author", map[string]any{"title": "Mixed", "genres": []int64{happy, scifi}})
	mixed.WantStatus(201)
	if got := idList(mixed.Object()["genres"]); !reflect.DeepEqual(got, []int64{scifi}) {
		t.Errorf("genres %v, want only the genre", got)
	}
	// The up link of a child genre embeds its parent.
	emb := e.do("GET", fmt.Sprintf("/api/svc/v2/genres/%d?_embed", scifi), "").Object()["_embedded"].(map[string]any)
	if up := emb["up"].([]any)[0].(map[string]any); up["id"] != float64(fiction) {
		t.Errorf("embedded up %v", up)
	}
}

func TestAssignTermsCapability(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		c.Taxonomies = append(c.Taxonomies, config.Taxonomy{Name: "section", ObjectTypes: []string{"page"}})
	})
	// A page editor without edit_posts (the assign_terms capability).
	ctx := context.Background()
	u := &store.User{Login: "pager", Email: "pager@example.com", Nicename: "pager", Registered: time.Now().UTC(),
		Roles: []string{"subscriber"}, Caps: map[string]bool{"edit_pages": true, "publish_pages": true, "edit_published_pages": true}}
	if err := e.db.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, hash, err := auth.GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-pager", UserID: u.ID, Name: "t", Hash: hash, Created: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	e.Users["pager"] = &testkit.User{ID: u.ID, Login: "pager", Role: "subscriber", AppPassword: plain}
	sec := e.mkTerm("/api/svc/v2/section", map[string]any{"name": "S"})
	e.do("POST", "/api/svc/v2/pages", "pager", map[string]any{"title": "P", "section": []int64{sec}}).WantError(403, "rest_cannot_assign_term")
	r := e.do("POST", "/api/svc/v2/pages", "pager", map[string]any{"title": "P"})
	r.WantStatus(201)
	item := fmt.Sprintf("/api/svc/v2/pages/%v", r.Object()["id"])
	e.do("POST", item, "pager", map[string]any{"section": []int64{sec}}).WantError(403, "rest_cannot_assign_term")
	if got := idList(e.do("POST", item, "editor", map[string]any{"section": []int64{sec}}).Object()["section"]); !reflect.DeepEqual(got, []int64{sec}) {
		t.Errorf("editor assigned %v", got)
	}
	// Every role that can write posts can assign categories and tags.
	for _, login := range []string{"administrator", "editor", "author", "contributor"} {
		m := e.do("POST", posts, login, map[string]any{"title": "T", "tags": []int64{}, "categories": []int64{1}}).Object()
		if !reflect.DeepEqual(idList(m["categories"]), []int64{1}) {
			t.Errorf("%s: categories %v", login, m["categories"])
		}
	}
	e.do("POST", posts, "subscriber", map[string]any{"title": "T", "categories": []int64{1}}).WantError(403, "rest_cannot_create")
}

func TestTermHookPoints(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var events []string
	note := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	h := e.site.Hooks()
	h.PreInsertTerm.BindFunc(func(ev *hookev.PreInsertTermEvent) error {
		note("rest_pre_insert_" + ev.Taxonomy)
		ev.Term.Description = "filtered"
		return ev.Next()
	})
	h.InsertTerm.BindFunc(func(ev *hookev.InsertTermEvent) error {
		note(fmt.Sprintf("rest_insert_%s:%v", ev.Taxonomy, ev.Creating))
		return ev.Next()
	})
	h.DeleteTerm.BindFunc(func(ev *hookev.DeleteTermEvent) error {
		note("rest_delete_" + ev.Taxonomy)
		return ev.Next()
	})
	h.PrepareTerm.BindFunc(func(ev *hookev.PrepareTermEvent) error {
		ev.Response.Set("name", strings.ToUpper(ev.Term.Name))
		return ev.Next()
	})
	m := e.do("POST", tagsPath, "editor", map[string]any{"name": "hooked"}).Object()
	if m["description"] != "filtered" || m["name"] != "HOOKED" {
		t.Errorf("hooks did not apply: %v", m)
	}
	item := fmt.Sprintf("%s/%v", tagsPath, m["id"])
	e.do("POST", item, "editor", map[string]any{"name": "again"}).WantStatus(200)
	e.do("DELETE", item+"?force=true", "editor").WantStatus(200)
	e.do("POST", cats, "editor", map[string]any{"name": "c"}).WantStatus(201)
	want := []string{"rest_pre_insert_post_tag", "rest_insert_post_tag:true", "rest_pre_insert_post_tag", "rest_insert_post_tag:false", "rest_delete_post_tag", "rest_pre_insert_category", "rest_insert_category:true"}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
}

// TestTermTotalsFollowWhatEachRoleMayList: the total of a category's posts
// (kept per term, type and status, plus a signed-in author's own posts)
// is what each role may list of it, and nothing it may not: drafts,
// private posts and other authors' drafts stay out of a reader's total
// as they stay out of its list.
func TestTermTotalsFollowWhatEachRoleMayList(t *testing.T) {
	e := newEnv(t)
	news := e.mkTerm(cats, map[string]any{"name": "News"})
	in := map[string]any{"categories": []int64{news}}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{"categories": []int64{news}}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	pub := e.createPost("editor", "post", in).ID
	protected := e.createPost("author", "post", with(map[string]any{"password": "sesame"})).ID
	ownDraft := e.createPost("author", "post", with(map[string]any{"status": "draft"})).ID
	othersDraft := e.createPost("editor", "post", with(map[string]any{"status": "draft"})).ID
	private := e.createPost("editor", "post", with(map[string]any{"status": "private"})).ID
	e.createPost("editor", "post", nil) // in the default category only
	for _, tt := range []struct {
		role, query string
		want        []int64
	}{
		{"", "", []int64{pub, protected}},
		{"subscriber", "", []int64{pub, protected}},
		{"author", "", []int64{pub, protected}},
		{"author", "&status=draft", []int64{ownDraft}},
		{"editor", "&status=draft", []int64{ownDraft, othersDraft}},
		{"editor", "&status=private", []int64{private}},
		{"", "&status=draft", nil},
	} {
		r := e.do("GET", fmt.Sprintf("%s?categories=%d&orderby=id&order=asc&per_page=100%s", posts, news, tt.query), tt.role)
		if r.Status != 200 {
			// A status the role may not ask for is refused, as the
			// collection without the category refuses it.
			if tt.want != nil {
				t.Errorf("%q%s: %d %s", tt.role, tt.query, r.Status, r.Body)
			}
			continue
		}
		got := ids(r.Array())
		if !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && tt.want == nil) {
			t.Errorf("%q%s: listed %v, want %v", tt.role, tt.query, got, tt.want)
		}
		// A page of one post: the total is counted, not the page's.
		one := e.do("GET", fmt.Sprintf("%s?categories=%d&per_page=1%s", posts, news, tt.query), tt.role)
		if total := one.Header.Get("X-API-Total"); total != fmt.Sprint(len(got)) {
			t.Errorf("%q%s: X-API-Total %s for %d posts listed", tt.role, tt.query, total, len(got))
		}
	}
	// filter[tag] names one term by slug: the same kept total.
	red := e.mkTerm(tagsPath, map[string]any{"name": "red"})
	tagged := e.createPost("editor", "post", map[string]any{"tags": []int64{red}}).ID
	e.createPost("editor", "post", map[string]any{"tags": []int64{red}, "status": "draft"})
	other := e.createPost("author", "post", map[string]any{"tags": []int64{red}, "password": "sesame"}).ID
	r := e.do("GET", posts+"?filter[tag]=red&orderby=id&order=asc", "")
	if got := ids(r.Array()); !reflect.DeepEqual(got, []int64{tagged, other}) {
		t.Errorf("filter[tag]=red: listed %v", got)
	}
	if total := e.do("GET", posts+"?filter[tag]=red&per_page=1", "").Header.Get("X-API-Total"); total != "2" {
		t.Errorf("filter[tag]=red: X-API-Total %s, want 2", total)
	}
}

// TestAuthorTotalsFollowWhatEachRoleMayList: the total of an author's
// archive (?author=, kept per author, type and status, plus a signed-in
// author's own posts in their own archive) is what each role may list of
// it, through an author change and a deletion: another author's drafts
// and private posts stay out of a reader's total as they stay out of its
// list.
func TestAuthorTotalsFollowWhatEachRoleMayList(t *testing.T) {
	e := newEnv(t)
	author, contributor := e.ID("author"), e.ID("contributor")
	pub := e.createPost("author", "post", nil).ID
	protected := e.createPost("author", "post", map[string]any{"password": "sesame"}).ID
	ownDraft := e.createPost("author", "post", map[string]any{"status": "draft"}).ID
	private := e.createPost("editor", "post", map[string]any{"status": "private", "author": author}).ID
	moved := e.createPost("editor", "post", nil).ID
	e.createPost("editor", "post", nil) // another author's
	othersDraft := e.createPost("contributor", "post", map[string]any{"status": "draft"}).ID
	check := func(step string, cases []struct {
		role, query string
		want        []int64
	}) {
		t.Helper()
		for _, tt := range cases {
			r := e.do("GET", fmt.Sprintf("%s?orderby=id&order=asc&per_page=100%s", posts, tt.query), tt.role)
			if r.Status != 200 {
				if tt.want != nil {
					t.Errorf("%s: %q%s: %d %s", step, tt.role, tt.query, r.Status, r.Body)
				}
				continue
			}
			got := ids(r.Array())
			if !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && tt.want == nil) {
				t.Errorf("%s: %q%s: listed %v, want %v", step, tt.role, tt.query, got, tt.want)
			}
			// A page of one post: the total is counted, not the page's.
			one := e.do("GET", fmt.Sprintf("%s?per_page=1%s", posts, tt.query), tt.role)
			if total := one.Header.Get("X-API-Total"); total != fmt.Sprint(len(got)) {
				t.Errorf("%s: %q%s: X-API-Total %s for %d posts listed", step, tt.role, tt.query, total, len(got))
			}
		}
	}
	byAuthor := fmt.Sprintf("&author=%d", author)
	check("created", []struct {
		role, query string
		want        []int64
	}{
		{"", byAuthor, []int64{pub, protected}},
		{"subscriber", byAuthor, []int64{pub, protected}},
		{"author", byAuthor, []int64{pub, protected}},
		{"author", byAuthor + "&status=draft", []int64{ownDraft}},
		{"contributor", byAuthor + "&status=draft", nil}, // another author's drafts: refused or empty
		{"editor", byAuthor + "&status=draft", []int64{ownDraft}},
		{"editor", byAuthor + "&status=private", []int64{private}},
		{"", byAuthor + "&status=private", nil},
		{"contributor", fmt.Sprintf("&author=%d&status=draft", contributor), []int64{othersDraft}},
		{"author", fmt.Sprintf("&author=%d&status=draft", contributor), nil},
	})
	e.do("POST", fmt.Sprintf("%s/%d", posts, moved), "editor", map[string]any{"author": author}).WantStatus(200)
	e.do("DELETE", fmt.Sprintf("%s/%d?force=true", posts, pub), "editor").WantStatus(200)
	check("an author changed, a post deleted", []struct {
		role, query string
		want        []int64
	}{
		{"", byAuthor, []int64{protected, moved}},
		{"author", byAuthor, []int64{protected, moved}},
		{"author", byAuthor + "&status=draft", []int64{ownDraft}},
		{"editor", byAuthor + "&status=draft", []int64{ownDraft}},
		{"editor", byAuthor + "&status=private", []int64{private}},
	})
}
