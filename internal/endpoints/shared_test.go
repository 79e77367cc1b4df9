package endpoints_test

import (
	"strconv"
	"testing"
)

// TestExplicitZeroOffsetWinsOverPage checks the paging rule shared by the
// posts and comments collections: a given offset, 0 included, replaces
// the page's offset.
func TestExplicitZeroOffsetWinsOverPage(t *testing.T) {
	e := newCommentEnv(t)
	var post int64
	for i := range 3 {
		post = e.createPost("editor", "post", map[string]any{"title": "p" + strconv.Itoa(i)}).ID
	}
	for i := range 3 {
		e.mkComment("administrator", map[string]any{"post": post, "content": "c" + strconv.Itoa(i)})
	}
	for _, base := range []string{posts + "?per_page=1", comments + "?post=" + strconv.FormatInt(post, 10) + "&per_page=1"} {
		first := ids(e.do("GET", base, "administrator").Array())
		second := ids(e.do("GET", base+"&page=2", "administrator").Array())
		zero := ids(e.do("GET", base+"&page=2&offset=0", "administrator").Array())
		if len(first) != 1 || len(second) != 1 || first[0] == second[0] {
			t.Fatalf("%s: page 1 %v, page 2 %v", base, first, second)
		}
		if len(zero) != 1 || zero[0] != first[0] {
			t.Errorf("%s&page=2&offset=0 = %v, want %v", base, zero, first)
		}
	}
}

// TestCommentDateFields checks the date rule shared by the posts and
// comments inputs: `date` wins over `date_gmt`, and a bad date_gmt is
// rest_invalid_param.
func TestCommentDateFields(t *testing.T) {
	e := newCommentEnv(t)
	post := e.createPost("editor", "post", nil).ID
	r := e.do("POST", comments, "administrator", map[string]any{
		"post": post, "content": "dated", "date": "2019-01-01T00:00:00", "date_gmt": "2021-03-04T05:06:07",
	})
	r.WantStatus(201)
	if m := r.Object(); m["date_gmt"] != "2019-01-01T00:00:00" {
		t.Errorf("date_gmt = %v, want the instant of date", m["date_gmt"])
	}
	d := e.do("POST", comments, "administrator", map[string]any{"post": post, "content": "x", "date_gmt": "2020-02-30T10:00:00"}).WantError(400, "rest_invalid_param")
	if params, _ := d["data"].(map[string]any)["params"].(map[string]any); params["date_gmt"] == nil {
		t.Errorf("params lack date_gmt: %v", d["data"])
	}
}
