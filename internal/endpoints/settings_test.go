package endpoints_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// namingModes are the spec's names and the WordPress names, with the
// namespace URL of each.
var namingModes = []struct{ name, compat, base string }{
	{"spec names", "", "/api/svc/v2"},
	{"wordpress names", config.CompatWordPress, "/wp-json/wp/v2"},
}

// storedSettings reads the stored settings option ("" when unset).
func storedSettings(t *testing.T, db store.OptionStore) string {
	t.Helper()
	v, err := db.GetOption(context.Background(), content.SettingsOption)
	if errors.Is(err, store.ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSettingsOnlyAdministratorsReadAndChangeThem(t *testing.T) {
	t.Parallel()
	for _, mode := range namingModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *config.Config) { c.Compat = mode.compat })
			for _, login := range allRoles {
				for _, method := range []string{"GET", "POST", "PUT", "PATCH"} {
					var body any
					if method != "GET" {
						body = map[string]any{"title": "Changed by " + login}
					}
					r := e.do(method, mode.base+"/settings", login, body)
					if login == "administrator" {
						r.WantStatus(200)
						continue
					}
					// Subscribers, contributors, authors and editors lack
					// manage_options: 403; visitors 401 (decisions #1).
					m := r.WantError(authStatus(login), "rest_forbidden")
					if strings.Contains(string(r.Body), "Test site") || strings.Contains(string(r.Body), "UTC") {
						t.Errorf("%s %s as %q shows settings: %v", method, "settings", login, m)
					}
				}
			}
			if got := e.do("GET", mode.base+"/settings", "administrator").Object()["title"]; got != "Changed by administrator" {
				t.Errorf("title after the refused writes = %v", got)
			}
		})
	}
}

func TestSettingsReadShowsTheConfigurationFileValues(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) {
		c.Site.Timezone = "Europe/Paris"
		c.Site.CommentMaxLinks = 5
		c.Site.DefaultCommentStatus = "closed"
		c.Site.ShowAvatars = false
	})
	r := e.do("GET", "/api/svc/v2/settings", "administrator")
	r.WantStatus(200)
	var got map[string]any
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"title": "Test site", "description": "Just testing", "url": e.URL, "timezone": "Europe/Paris",
		"default_category": float64(1), "default_ping_status": "open", "default_comment_status": "closed",
		"show_avatars": false, "allow_anonymous_comments": true, "comment_moderation": false,
		"comment_previously_approved": true, "comment_max_links": float64(5),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings = %v\nwant %v", got, want)
	}
	// The keys come in the schema's order, WordPress's ones first.
	if !strings.HasPrefix(string(r.Body), `{"title":"Test site","description":"Just testing","url":`) {
		t.Errorf("order: %s", r.Body)
	}
	if storedSettings(t, e.db) != "" {
		t.Error("reading stored something")
	}
}

func TestSettingsChangeIsStoredAndWinsOverTheFile(t *testing.T) {
	t.Parallel()
	for _, mode := range namingModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *config.Config) { c.Compat = mode.compat })
			r := e.do("PATCH", mode.base+"/settings", "administrator", map[string]any{
				"title": "  New <b>title</b>  ", "timezone": "Asia/Tokyo", "comment_moderation": true,
			})
			r.WantStatus(200)
			m := r.Object()
			if m["title"] != "New title" || m["timezone"] != "Asia/Tokyo" || m["comment_moderation"] != true || m["description"] != "Just testing" {
				t.Errorf("answer: %v", m)
			}
			// Form bodies work as JSON does.
			e.do("POST", mode.base+"/settings", "administrator", "description=A+tagline&comment_max_links=7").WantStatus(200)
			m = e.do("GET", mode.base+"/settings", "administrator").Object()
			if m["title"] != "New title" || m["description"] != "A tagline" || m["comment_max_links"] != float64(7) {
				t.Errorf("read back: %v", m)
			}
			// Only what was changed is stored; the file gives the rest.
			var stored map[string]any
			if err := json.Unmarshal([]byte(storedSettings(t, e.db)), &stored); err != nil {
				t.Fatal(err)
			}
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range stored {
					if !yield(k) {
						return
					}
				}
			})
			if want := []string{"comment_max_links", "comment_moderation", "description", "timezone", "title"}; !slices.Equal(keys, want) {
				t.Errorf("stored keys = %v, want %v", keys, want)
			}
			// The index names the site with the new title, for anonymous
			// callers too (the cached index moved on with the write).
			root := "/" + strings.Split(mode.base, "/")[1] + "/"
			got := e.do("GET", root, "").Object()
			if got["name"] != "New title" || got["description"] != "A tagline" {
				t.Errorf("index: name %v, description %v", got["name"], got["description"])
			}
			// And gives the time zone, as WordPress's index does, so that
			// clients can write local dates.
			if got["timezone_string"] != "Asia/Tokyo" || got["gmt_offset"] != float64(9) {
				t.Errorf("index: timezone_string %v, gmt_offset %v", got["timezone_string"], got["gmt_offset"])
			}
		})
	}
}

func TestSettingsNullPutsTheFileValueBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"title": "Other", "timezone": "America/New_York"}).WantStatus(200)
	m := e.do("POST", "/api/svc/v2/settings", "administrator", []byte(`{"title": null}`)).Object()
	if m["title"] != "Test site" || m["timezone"] != "America/New_York" {
		t.Errorf("after title null: %v", m)
	}
	if s := storedSettings(t, e.db); strings.Contains(s, "title") || !strings.Contains(s, "America/New_York") {
		t.Errorf("stored: %s", s)
	}
	// null for a setting that was not stored changes nothing.
	e.do("POST", "/api/svc/v2/settings", "administrator", []byte(`{"description": null}`)).WantStatus(200)
}

func TestSettingsURLIsReadOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"url": "https://elsewhere.example", "title": "T"})
	r.WantStatus(200)
	if r.Object()["url"] != e.URL {
		t.Errorf("url = %v, want the request's %s", r.Object()["url"], e.URL)
	}
	e2 := newEnv(t, func(c *config.Config) { c.Site.URL = "https://configured.example" })
	if got := e2.do("GET", "/api/svc/v2/settings", "administrator").Object()["url"]; got != "https://configured.example" {
		t.Errorf("url = %v, want the configured one", got)
	}
}

func TestSettingsInvalidValuesAreRefusedWithTheirReasons(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tag := e.do("POST", "/api/svc/v2/tags", "administrator", map[string]any{"name": "A tag"}).Object()["id"].(float64)
	tests := []struct {
		name  string
		body  any
		param string
		why   string
	}{
		{"unknown time zone", map[string]any{"timezone": "Mars/Olympus"}, "timezone", "not a known time zone"},
		{"time zone that is no name", map[string]any{"timezone": "../../etc/passwd"}, "timezone", "not a time zone name"},
		{"Local is no zone name", map[string]any{"timezone": "Local"}, "timezone", "not a time zone name"},
		{"empty time zone", map[string]any{"timezone": ""}, "timezone", "not a time zone name"},
		{"time zone not a string", map[string]any{"timezone": []any{"UTC"}}, "timezone", "not of type string"},
		{"comment status not open or closed", map[string]any{"default_comment_status": "sometimes"}, "default_comment_status", "not one of open, closed"},
		{"ping status not open or closed", map[string]any{"default_ping_status": "ajar"}, "default_ping_status", "not one of open, closed"},
		{"negative link limit", map[string]any{"comment_max_links": -1}, "comment_max_links", "must be greater than 0 (inclusive)"},
		{"link limit not an integer", map[string]any{"comment_max_links": "many"}, "comment_max_links", "not of type integer"},
		{"boolean that is not one", map[string]any{"comment_moderation": "perhaps"}, "comment_moderation", "not of type boolean"},
		{"default category zero", map[string]any{"default_category": 0}, "default_category", "must be greater than 1 (inclusive)"},
		{"default category that does not exist", map[string]any{"default_category": 987654}, "default_category", "not the id of a category"},
		{"default category that is a tag", map[string]any{"default_category": tag}, "default_category", "not the id of a category"},
		{"title too long", map[string]any{"title": strings.Repeat("x", content.MaxSettingTextLength+1)}, "title", "at most 1000 characters"},
		{"title not a string", map[string]any{"title": map[string]any{"raw": "x"}}, "title", "not of type string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A valid change in the same request is not applied either.
			body := map[string]any{"description": "Must not be stored"}
			for k, v := range tt.body.(map[string]any) {
				body[k] = v
			}
			r := e.do("POST", "/api/svc/v2/settings", "administrator", body)
			m := r.WantError(400, "rest_invalid_param")
			params, _ := m["data"].(map[string]any)["params"].(map[string]any)
			why, _ := params[tt.param].(string)
			if !strings.Contains(why, tt.why) {
				t.Errorf("params = %v, want %s: …%s…", params, tt.param, tt.why)
			}
			if !strings.Contains(m["message"].(string), tt.param) {
				t.Errorf("message %q does not name %s", m["message"], tt.param)
			}
		})
	}
	if got := e.do("GET", "/api/svc/v2/settings", "administrator").Object()["description"]; got != "Just testing" {
		t.Errorf("description = %v after refused changes", got)
	}
	// Validation comes before the permission check, as for every route.
	e.do("POST", "/api/svc/v2/settings", "editor", map[string]any{"timezone": "Nowhere/Land"}).WantError(400, "rest_invalid_param")
}

func TestSettingsCommentRulesDecideNewComments(t *testing.T) {
	t.Parallel()
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	set := func(body map[string]any) {
		t.Helper()
		e.do("PATCH", "/api/svc/v2/settings", "administrator", body).WantStatus(200)
	}
	guest := func(content string) *store.Comment {
		t.Helper()
		return e.comment(e.mkComment("", map[string]any{"post": p.ID, "content": content, "author_name": "Guest", "author_email": "guest@example.org"}))
	}
	// The file's rules: a guest without an approved comment is held.
	if c := guest("first"); c.Approved != store.CommentHeld {
		t.Errorf("default rules: %q", c.Approved)
	}
	set(map[string]any{"comment_previously_approved": false})
	if c := guest("second"); c.Approved != store.CommentApproved {
		t.Errorf("without previously approved: %q", c.Approved)
	}
	set(map[string]any{"comment_max_links": 1})
	if c := guest(`see <a href="http://a.example">a</a>`); c.Approved != store.CommentHeld {
		t.Errorf("one link with comment_max_links 1: %q", c.Approved)
	}
	set(map[string]any{"comment_moderation": true})
	if c := guest("third"); c.Approved != store.CommentHeld {
		t.Errorf("comment_moderation: %q", c.Approved)
	}
	set(map[string]any{"allow_anonymous_comments": false})
	e.tick()
	e.do("POST", comments, "", map[string]any{"post": p.ID, "content": "no", "author_name": "Guest", "author_email": "guest@example.org"}).
		WantError(401, "rest_comment_login_required")
	set(map[string]any{"allow_anonymous_comments": true, "comment_moderation": false, "comment_max_links": 0})
	if c := guest(`<a href="http://a.example">a</a> <a href="http://b.example">b</a> <a href="http://c.example">c</a>`); c.Approved != store.CommentApproved {
		t.Errorf("comment_max_links 0 (no limit): %q", c.Approved)
	}
}

func TestSettingsTimezoneChangesLocalDatesOfNewPostsNotStoredInstants(t *testing.T) {
	t.Parallel()
	for _, mode := range namingModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *config.Config) { c.Compat = mode.compat })
			create := func(body map[string]any) map[string]any {
				t.Helper()
				body["title"], body["status"] = "Dated", "publish"
				r := e.do("POST", mode.base+"/posts", "editor", body)
				r.WantStatus(201)
				return r.Object()
			}
			old := create(map[string]any{"date_gmt": "2024-03-10T12:00:00"})
			if old["date"] != "2024-03-10T12:00:00" {
				t.Fatalf("UTC site: date %v", old["date"])
			}
			oldID := int64(old["id"].(float64))
			before, err := e.db.GetPost(context.Background(), oldID)
			if err != nil {
				t.Fatal(err)
			}

			e.do("POST", mode.base+"/settings", "administrator", map[string]any{"timezone": "Asia/Tokyo"}).WantStatus(200)

			// A post written now: date is Tokyo's wall clock of date_gmt.
			p := create(map[string]any{"date_gmt": "2024-03-10T12:00:00"})
			if p["date"] != "2024-03-10T21:00:00" || p["date_gmt"] != "2024-03-10T12:00:00" {
				t.Errorf("new post: date %v, date_gmt %v", p["date"], p["date_gmt"])
			}
			p = create(map[string]any{"date": "2024-07-01T08:30:00+02:00"})
			if p["date"] != "2024-07-01T15:30:00" || p["date_gmt"] != "2024-07-01T06:30:00" {
				t.Errorf("new post with an offset: date %v, date_gmt %v", p["date"], p["date_gmt"])
			}
			now := create(map[string]any{})
			gmt, _ := time.Parse("2006-01-02T15:04:05", now["date_gmt"].(string))
			local, _ := time.Parse("2006-01-02T15:04:05", now["date"].(string))
			if local.Sub(gmt) != 9*time.Hour {
				t.Errorf("post dated now: date %v, date_gmt %v", now["date"], now["date_gmt"])
			}

			// The post written before keeps its stored dates, both of them.
			after, err := e.db.GetPost(context.Background(), oldID)
			if err != nil {
				t.Fatal(err)
			}
			if !after.DateGMT.Equal(before.DateGMT) || !after.Date.Equal(before.Date) || !after.ModifiedGMT.Equal(before.ModifiedGMT) {
				t.Errorf("stored dates moved: %v/%v → %v/%v", before.Date, before.DateGMT, after.Date, after.DateGMT)
			}
			got := e.do("GET", fmt.Sprintf("%s/posts/%d", mode.base, oldID), "").Object()
			if got["date_gmt"] != "2024-03-10T12:00:00" || got["date"] != "2024-03-10T12:00:00" {
				t.Errorf("old post reads date %v, date_gmt %v", got["date"], got["date_gmt"])
			}
			// Updating it without a date leaves its dates alone; modified
			// is written in the new zone.
			up := e.do("PATCH", fmt.Sprintf("%s/posts/%d", mode.base, oldID), "editor", map[string]any{"title": "Edited"}).Object()
			mg, _ := time.Parse("2006-01-02T15:04:05", up["modified_gmt"].(string))
			ml, _ := time.Parse("2006-01-02T15:04:05", up["modified"].(string))
			if up["date_gmt"] != "2024-03-10T12:00:00" || ml.Sub(mg) != 9*time.Hour {
				t.Errorf("edited old post: date_gmt %v, modified %v, modified_gmt %v", up["date_gmt"], up["modified"], up["modified_gmt"])
			}
			// Collection bounds (instants; UTC without an offset) are
			// compared with the local dates in the site's zone: 11:59 to
			// 12:01 UTC is 20:59 to 21:01 in Tokyo, which finds the new
			// post and not the one dated 12:00 under UTC.
			found := e.do("GET", mode.base+"/posts?after=2024-03-10T11:59:00&before=2024-03-10T12:01:00", "").Array()
			if len(found) != 1 || found[0].(map[string]any)["date"] != "2024-03-10T21:00:00" {
				t.Errorf("after/before: %d posts %v, want the one at 21:00 Tokyo time", len(found), ids(found))
			}
		})
	}
}

func TestSettingsTimezoneDatesNewComments(t *testing.T) {
	t.Parallel()
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"timezone": "America/Sao_Paulo", "comment_previously_approved": false}).WantStatus(200)
	c := e.comment(e.mkComment("editor", map[string]any{"post": p.ID, "content": "hello"}))
	if c.DateGMT.Sub(c.Date) != 3*time.Hour {
		t.Errorf("comment date %v, date_gmt %v: want São Paulo time (UTC-3)", c.Date, c.DateGMT)
	}
}

func TestScheduledPostsArePublishedOnTimeAfterTheTimezoneChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.Site.Timezone = "Pacific/Kiritimati" }) // UTC+14
	// Scheduled an hour ahead under UTC+14: its local date is 15 hours
	// after the UTC instant.
	due := time.Now().UTC().Add(time.Hour).Truncate(time.Second)
	p := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Later", "status": "future", "date_gmt": due.Format("2006-01-02T15:04:05")}).Object()
	if p["status"] != "future" {
		t.Fatalf("status %v", p["status"])
	}
	// The zone moves to UTC-11, then the post falls due.
	e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"timezone": "Pacific/Pago_Pago"}).WantStatus(200)
	e.site.SetClock(func() time.Time { return due.Add(time.Minute) })
	n, err := e.site.PublishDue(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("PublishDue = %d, %v; want 1 post published", n, err)
	}
	got, err := e.db.GetPost(context.Background(), int64(p["id"].(float64)))
	if err != nil || got.Status != "publish" || !got.DateGMT.Equal(due) {
		t.Errorf("post: %+v %v", got, err)
	}
}

func TestSettingsDefaultCategoryAndCommentStatusesOfNewPosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cat := int64(e.do("POST", "/api/svc/v2/categories", "administrator", map[string]any{"name": "News"}).Object()["id"].(float64))
	e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{
		"default_category": cat, "default_comment_status": "closed", "default_ping_status": "closed",
	}).WantStatus(200)
	p := e.do("POST", "/api/svc/v2/posts", "author", map[string]any{"title": "No categories given", "status": "publish"}).Object()
	if cats, _ := p["categories"].([]any); len(cats) != 1 || cats[0] != float64(cat) {
		t.Errorf("categories = %v, want [%d]", p["categories"], cat)
	}
	if p["comment_status"] != "closed" || p["ping_status"] != "closed" {
		t.Errorf("comment_status %v, ping_status %v", p["comment_status"], p["ping_status"])
	}
	// A post that names its status keeps it.
	q := e.do("POST", "/api/svc/v2/posts", "author", map[string]any{"title": "Open", "comment_status": "open"}).Object()
	if q["comment_status"] != "open" {
		t.Errorf("explicit comment_status: %v", q["comment_status"])
	}
	// The default category cannot be deleted; the old one now can.
	e.do("DELETE", fmt.Sprintf("/api/svc/v2/categories/%d?force=true", cat), "administrator").WantError(500, "rest_cannot_delete")
	e.do("DELETE", "/api/svc/v2/categories/1?force=true", "administrator").WantStatus(200)

	e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"default_comment_status": "open", "default_ping_status": "closed"}).WantStatus(200)
	p = e.do("POST", "/api/svc/v2/posts", "author", map[string]any{"title": "Comments open"}).Object()
	if p["comment_status"] != "open" || p["ping_status"] != "closed" {
		t.Errorf("comment_status %v, ping_status %v", p["comment_status"], p["ping_status"])
	}
	// Pages stay closed, as in WordPress.
	pg := e.do("POST", "/api/svc/v2/pages", "editor", map[string]any{"title": "A page"}).Object()
	if pg["comment_status"] != "closed" || pg["ping_status"] != "closed" {
		t.Errorf("page: comment_status %v, ping_status %v", pg["comment_status"], pg["ping_status"])
	}
}

func TestSettingsShowAvatarsTurnsAvatarURLsOffAndOn(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	user := e.userPath("author")
	if _, ok := e.do("GET", user, "").Object()["avatar_urls"]; !ok {
		t.Fatal("avatar_urls missing by default")
	}
	e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"show_avatars": false}).WantStatus(200)
	if m := e.do("GET", user, "").Object(); m["avatar_urls"] != nil {
		t.Errorf("avatar_urls with show_avatars off: %v", m["avatar_urls"])
	}
	if strings.Contains(string(e.do("OPTIONS", "/api/svc/v2/users", "").Body), "avatar_urls") {
		t.Error("the users schema still has avatar_urls")
	}
	e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"show_avatars": true}).WantStatus(200)
	if m := e.do("GET", user, "").Object(); m["avatar_urls"] == nil {
		t.Error("avatar_urls missing once show_avatars is on again")
	}
}

func TestSettingsRouteIsInTheIndexAndOptions(t *testing.T) {
	t.Parallel()
	for _, mode := range namingModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *config.Config) { c.Compat = mode.compat })
			ns := strings.TrimPrefix(mode.base, "/"+strings.Split(mode.base, "/")[1])
			idx := e.do("GET", mode.base, "").Object()
			rt, _ := idx["routes"].(map[string]any)[ns+"/settings"].(map[string]any)
			if rt == nil {
				t.Fatalf("no %s/settings in the namespace index", ns)
			}
			if got := fmt.Sprint(rt["methods"]); got != "[GET POST PUT PATCH]" {
				t.Errorf("methods = %s", got)
			}
			eps := rt["endpoints"].([]any)
			args := eps[1].(map[string]any)["args"].(map[string]any)
			for _, name := range content.SettingNames {
				if args[name] == nil {
					t.Errorf("write argument %s missing", name)
				}
			}
			if args["url"] != nil {
				t.Error("url is read-only but is a write argument")
			}
			opt := e.do("OPTIONS", mode.base+"/settings", "").Object()
			props := opt["schema"].(map[string]any)["properties"].(map[string]any)
			if props["url"].(map[string]any)["readonly"] != true || props["timezone"].(map[string]any)["type"] != "string" {
				t.Errorf("schema properties: %v", props)
			}
			if opt["schema"].(map[string]any)["title"] != "settings" {
				t.Errorf("schema title %v", opt["schema"].(map[string]any)["title"])
			}
		})
	}
}

func TestSettingsChangeIsSeenByAnotherNodeOnItsNextRequest(t *testing.T) {
	t.Parallel()
	a := newEnv(t)
	b := a.node() // another server over the same database, as two nodes
	// Node b reads the settings (and caches them) first.
	if got := b.do("GET", "/api/svc/v2/settings", "administrator").Object()["title"]; got != "Test site" {
		t.Fatalf("node b title %v", got)
	}
	if got := b.do("GET", "/api/", "").Object()["name"]; got != "Test site" {
		t.Fatalf("node b index name %v", got)
	}
	a.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"title": "Changed on a", "timezone": "Asia/Kolkata", "comment_moderation": true}).WantStatus(200)

	if got := b.do("GET", "/api/svc/v2/settings", "administrator").Object(); got["title"] != "Changed on a" || got["timezone"] != "Asia/Kolkata" {
		t.Errorf("node b settings: %v", got)
	}
	if got := b.do("GET", "/api/", "").Object()["name"]; got != "Changed on a" {
		t.Errorf("node b index name %v", got)
	}
	p := b.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "On b", "status": "publish", "date_gmt": "2024-01-01T00:00:00"}).Object()
	if p["date"] != "2024-01-01T05:30:00" {
		t.Errorf("node b post date %v, want Kolkata time", p["date"])
	}
	r := b.do("POST", "/api/svc/v2/comments", "subscriber", map[string]any{"post": p["id"], "content": "held?"})
	r.WantStatus(201)
	if r.Object()["status"] != "hold" {
		t.Errorf("node b comment status %v, want hold", r.Object()["status"])
	}
}

func TestUsersWhoAuthorsListsEveryAuthorToEditorsOfPosts(t *testing.T) {
	t.Parallel()
	for _, mode := range namingModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *config.Config) { c.Compat = mode.compat })
			e.AddUser("author2", "author") // no posts
			authors := []int64{e.ID("administrator"), e.ID("author"), e.ID("author2"), e.ID("contributor"), e.ID("editor")}
			slices.Sort(authors)
			for _, login := range allRoles {
				r := e.do("GET", mode.base+"/users?who=authors&orderby=id&per_page=100", login)
				switch login {
				case "", "subscriber":
					r.WantError(authStatus(login), "rest_forbidden_who")
					if !strings.Contains(r.Object()["message"].(string), "not allowed to query users by this parameter") {
						t.Errorf("message: %s", r.Body)
					}
					continue
				}
				r.WantStatus(200)
				items := r.Array()
				if got := ids(items); !slices.Equal(got, authors) {
					t.Errorf("as %s: ids %v, want %v (every author, published or not; no subscriber)", login, got, authors)
				}
				total := r.Header.Get("X-API-Total")
				if mode.compat != "" {
					total = r.Header.Get("X-WP-Total")
				}
				if total != fmt.Sprint(len(authors)) {
					t.Errorf("as %s: total %q", login, total)
				}
				for _, it := range items {
					m := it.(map[string]any)
					for _, hidden := range []string{"email", "username", "roles", "capabilities", "registered_date", "first_name"} {
						if _, ok := m[hidden]; ok {
							t.Errorf("as %s: %s shown in view context: %v", login, hidden, m)
						}
					}
				}
				noSecrets(t, r, "@example.com")
				// Every author listed can be read on its own too.
				for _, id := range authors {
					e.do("GET", fmt.Sprintf("%s/users/%d", mode.base, id), login).WantStatus(200)
				}
			}
			// Combined with other filters.
			if got := ids(e.do("GET", mode.base+"/users?who=authors&search=author2", "editor").Array()); !slices.Equal(got, []int64{e.ID("author2")}) {
				t.Errorf("who=authors&search: %v", got)
			}
			if got := ids(e.do("GET", mode.base+"/users?who=authors&roles=subscriber,editor", "administrator").Array()); !slices.Equal(got, []int64{e.ID("editor")}) {
				t.Errorf("who=authors&roles: %v", got)
			}
			if n := len(e.do("GET", mode.base+"/users?who=authors&roles=subscriber", "administrator").Array()); n != 0 {
				t.Errorf("who=authors&roles=subscriber: %d users", n)
			}
			// Edit context still needs list_users.
			e.do("GET", mode.base+"/users?who=authors&context=edit", "editor").WantError(403, "rest_forbidden_context")
			e.do("GET", mode.base+"/users?who=authors&context=edit", "administrator").WantStatus(200)
			// Only "authors" is a value of who.
			e.do("GET", mode.base+"/users?who=everyone", "administrator").WantError(400, "rest_invalid_param")
			// Without who, an editor still sees only published authors.
			if got := ids(e.do("GET", mode.base+"/users", "editor").Array()); len(got) != 0 {
				t.Errorf("editor without who: %v (nobody has published)", got)
			}
		})
	}
}

func TestUsersWhoAuthorsNeedsAnEditableTypeWithAuthors(t *testing.T) {
	t.Parallel()
	// A role that may edit only a type without author support cannot list
	// the authors: here a subscriber given edit_posts of nothing else.
	e := newEnv(t)
	ctx := context.Background()
	u, err := e.db.GetUser(ctx, e.ID("subscriber"))
	if err != nil {
		t.Fatal(err)
	}
	u.Caps = map[string]bool{"edit_pages": true}
	if err := e.db.UpdateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	// Pages support authors: allowed.
	e.do("GET", "/api/svc/v2/users?who=authors", "subscriber").WantStatus(200)
	u.Caps = map[string]bool{"upload_files": true}
	if err := e.db.UpdateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	e.do("GET", "/api/svc/v2/users?who=authors", "subscriber").WantError(403, "rest_forbidden_who")
}

func TestSettingsAreReadOncePerRequestWhateverThePageSize(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := 0; i < 12; i++ {
		login := fmt.Sprintf("writer%d", i)
		e.AddUser(login, "author")
		p := e.createPost(login, "post", map[string]any{"title": "By " + login})
		e.do("POST", comments, login, map[string]any{"post": p.ID, "content": "A comment by " + login}).WantStatus(201)
		e.site.SetClock(func() time.Time { return time.Now().Add(time.Duration(i+1) * time.Hour) })
	}
	count := func(path string) int64 {
		t.Helper()
		// A write first, so that each request loads the settings (and
		// counts) afresh; dated in the past, it stays off the pages.
		e.createPost("editor", "post", map[string]any{"title": "Bump", "date": "2001-01-01T00:00:00"})
		before := e.Statements()
		// Signed in: no response cache and no version read up front, so
		// every settings read would show.
		e.do("GET", path, "editor").WantStatus(200)
		return e.Statements() - before
	}
	// Pages of 2 and 6 of the 12 items (both with a count), with the
	// embedded users (authors of posts and comments) that show avatars.
	for _, base := range []string{"/api/svc/v2/posts?_embed=author&", "/api/svc/v2/comments?_embed=author&", "/api/svc/v2/users?who=authors&"} {
		small, large := count(base+"per_page=2"), count(base+"per_page=6")
		if small != large {
			t.Errorf("%s: %d statements for 2 items, %d for 6", base, small, large)
		}
	}
}
