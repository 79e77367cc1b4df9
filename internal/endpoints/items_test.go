package endpoints_test

import (
	"fmt"
	"testing"

	"github.com/folio-server/folio/internal/testkit"
)

// TestItemRoutesAnswerMissingItems checks the item routes of every
// resource with an id for an item that does not exist or is of another
// type: the status and code each answers to a read, an update and a
// delete by a caller allowed to do them.
func TestItemRoutesAnswerMissingItems(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	post := s.Post("editor", nil)
	cat := s.Term("editor", "categories", "Cat", nil)
	const none = 999999
	for _, tc := range []struct {
		method, route string
		status        int
		code          string
	}{
		{"GET", fmt.Sprintf("/posts/%d", none), 404, "rest_post_invalid_id"},
		{"POST", fmt.Sprintf("/posts/%d", none), 400, "rest_post_invalid_id"},
		{"DELETE", fmt.Sprintf("/posts/%d", none), 404, "rest_post_invalid_id"},
		// A post is no page and no attachment.
		{"GET", fmt.Sprintf("/pages/%d", post), 404, "rest_post_invalid_id"},
		{"POST", fmt.Sprintf("/pages/%d", post), 400, "rest_post_invalid_id"},
		{"DELETE", fmt.Sprintf("/pages/%d?force=true", post), 404, "rest_post_invalid_id"},
		{"GET", fmt.Sprintf("/media/%d", post), 404, "rest_post_invalid_id"},
		{"POST", fmt.Sprintf("/media/%d", post), 400, "rest_post_invalid_id"},
		{"DELETE", fmt.Sprintf("/media/%d?force=true", post), 404, "rest_post_invalid_id"},
		{"GET", fmt.Sprintf("/categories/%d", none), 404, "rest_term_invalid"},
		{"POST", fmt.Sprintf("/categories/%d", none), 404, "rest_term_invalid"},
		{"DELETE", fmt.Sprintf("/categories/%d?force=true", none), 404, "rest_term_invalid"},
		// A category is no tag.
		{"GET", fmt.Sprintf("/tags/%d", cat), 404, "rest_term_invalid"},
		{"POST", fmt.Sprintf("/tags/%d", cat), 404, "rest_term_invalid"},
		{"DELETE", fmt.Sprintf("/tags/%d?force=true", cat), 404, "rest_term_invalid"},
		{"GET", fmt.Sprintf("/comments/%d", none), 404, "rest_comment_invalid_id"},
		{"POST", fmt.Sprintf("/comments/%d", none), 404, "rest_comment_invalid_id"},
		{"DELETE", fmt.Sprintf("/comments/%d?force=true", none), 404, "rest_comment_invalid_id"},
		{"GET", fmt.Sprintf("/users/%d", none), 404, "rest_user_invalid_id"},
		{"POST", fmt.Sprintf("/users/%d", none), 400, "rest_user_invalid_id"},
		{"DELETE", fmt.Sprintf("/users/%d?force=true&reassign=%d", none, s.ID("administrator")), 400, "rest_user_invalid_id"},
		{"GET", fmt.Sprintf("/posts/%d/revisions/%d", post, none), 404, "rest_post_invalid_id"},
		{"DELETE", fmt.Sprintf("/posts/%d/revisions/%d?force=true", post, none), 404, "rest_post_invalid_id"},
		// A post is no revision.
		{"GET", fmt.Sprintf("/posts/%d/revisions/%d", post, post), 404, "rest_post_invalid_id"},
	} {
		t.Run(tc.method+" "+tc.route, func(t *testing.T) {
			var body any
			if tc.method == "POST" {
				body = map[string]any{"title": "x", "name": "x", "content": "x"}
			}
			s.Do(tc.method, s.API(tc.route), "administrator", body).WantError(tc.status, tc.code)
		})
	}
}

// TestItemReadsLinkTheirPage checks the alternate Link header of an item
// read: a published post and an uploaded file name their HTML page, a
// draft none.
func TestItemReadsLinkTheirPage(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	published := s.Post("editor", map[string]any{"slug": "out"})
	draft := s.Post("editor", map[string]any{"status": "draft"})
	file := s.Media("editor", "linked.png")
	for _, tc := range []struct {
		route string
		link  bool
	}{
		{fmt.Sprintf("/posts/%d", published), true},
		{fmt.Sprintf("/posts/%d", draft), false},
		{fmt.Sprintf("/media/%d", file), true},
	} {
		r := s.Do("GET", s.API(tc.route), "editor").WantStatus(200)
		link, _ := r.Object()["link"].(string)
		want := ""
		if tc.link {
			if link == "" {
				t.Fatalf("%s: no link field: %s", tc.route, r.Body)
			}
			want = "<" + link + `>; rel="alternate"; type=text/html`
		}
		if got := r.Header.Get("Link"); got != want {
			t.Errorf("%s: Link %q, want %q", tc.route, got, want)
		}
	}
}
