package endpoints_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// sessionEnv is the endpoints env with the nonces of its server's
// browser sessions (the server loads their secret from the store), so that
// a test signs requests in with sessions it stores itself.
type sessionEnv struct {
	*env
	nonces *auth.Nonces
	n      int
}

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	e := newEnv(t)
	nonces, err := auth.LoadNonces(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	return &sessionEnv{env: e, nonces: nonces}
}

// session stores a session of login started age ago (expiring after life
// from now) and returns its token and public id.
func (se *sessionEnv) session(login string, age, life time.Duration) (string, string) {
	se.T.Helper()
	se.n++
	token := fmt.Sprintf("token-%s-%d-%d", login, se.n, time.Now().UnixNano())
	now := time.Now().UTC().Truncate(time.Second)
	s := &store.Session{
		TokenHash: auth.HashSessionToken(token), UserID: se.ID(login),
		Created: now.Add(-age), LastSeen: now.Add(-age / 2), Expires: now.Add(life),
		IP: "203.0.113.7", UserAgent: "Browser/" + login,
	}
	if err := se.db.CreateSession(context.Background(), s); err != nil {
		se.T.Fatal(err)
	}
	if len(s.ID) != 32 || strings.Contains(s.TokenHash, s.ID) {
		se.T.Fatalf("session id %q", s.ID)
	}
	return token, s.ID
}

// cookie sends a request signed in by the session token of login (cookie +
// nonce header).
func (se *sessionEnv) cookie(method, path, login, token string, body any) *testkit.Response {
	se.T.Helper()
	nonce := se.nonces.Create(se.ID(login), token, auth.RESTNonceAction)
	return se.do(method, path, "", body, "Cookie", auth.DefaultSessionCookie+"="+token, se.Server.Names().NonceHeader(), nonce)
}

// sessionIDs returns the ids of the listed sessions and the id of the one
// marked current ("" when none).
func sessionIDs(t *testing.T, r *testkit.Response) ([]string, string) {
	t.Helper()
	r.WantStatus(200)
	var ids []string
	cur := ""
	for _, it := range r.Array() {
		m := it.(map[string]any)
		ids = append(ids, m["id"].(string))
		if m["current"] == true {
			if cur != "" {
				t.Fatalf("two current sessions: %s", r.Body)
			}
			cur = m["id"].(string)
		}
	}
	return ids, cur
}

func TestSessionsListOwnWithCurrent(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	tokA, idA := se.session("editor", 2*time.Hour, time.Hour)
	tokB, idB := se.session("editor", time.Hour, time.Hour)
	se.session("editor", 3*time.Hour, -time.Minute) // expired: never listed
	se.session("author", time.Hour, time.Hour)

	r := se.cookie("GET", "/api/svc/v2/users/me/sessions", "editor", tokA, nil)
	ids, cur := sessionIDs(t, r)
	if strings.Join(ids, ",") != idA+","+idB || cur != idA {
		t.Fatalf("ids %v current %q, want [%s %s] current %s", ids, cur, idA, idB, idA)
	}
	// Neither the tokens nor their hashes are output.
	for _, secret := range []string{tokA, tokB, auth.HashSessionToken(tokA), auth.HashSessionToken(tokB)} {
		if strings.Contains(string(r.Body), secret) {
			t.Fatalf("response carries a token or its hash: %s", r.Body)
		}
	}
	m := r.Array()[0].(map[string]any)
	for _, f := range []string{"id", "created", "last_seen", "expires", "ip", "user_agent", "current", "_links"} {
		if _, ok := m[f]; !ok {
			t.Errorf("session lacks %s: %v", f, m)
		}
	}
	// The session in use records the address it was last used from.
	if m["ip"] != "127.0.0.1" || m["user_agent"] != "Browser/editor" {
		t.Errorf("ip/user_agent = %v / %v", m["ip"], m["user_agent"])
	}
	if created, _ := time.Parse("2006-01-02T15:04:05", m["created"].(string)); time.Since(created) < time.Hour {
		t.Errorf("created = %v", m["created"])
	}
	self := m["_links"].(map[string]any)["self"].([]any)[0].(map[string]any)["href"].(string)
	if !strings.HasSuffix(self, fmt.Sprintf("/svc/v2/users/%d/sessions/%s", se.ID("editor"), idA)) {
		t.Errorf("self link %s", self)
	}

	// The same list through the numeric id, and with an application
	// password: then no session is the caller's.
	_, cur = sessionIDs(t, se.cookie("GET", fmt.Sprintf("/api/svc/v2/users/%d/sessions", se.ID("editor")), "editor", tokB, nil))
	if cur != idB {
		t.Errorf("current through the id = %q, want %s", cur, idB)
	}
	ids, cur = sessionIDs(t, se.do("GET", "/api/svc/v2/users/me/sessions", "editor"))
	if len(ids) != 2 || cur != "" {
		t.Errorf("basic auth: ids %v current %q", ids, cur)
	}
	// An Authorization header wins over the cookie: nothing is current.
	r = se.do("GET", "/api/svc/v2/users/me/sessions", "editor", nil, "Cookie", auth.DefaultSessionCookie+"="+tokA)
	if _, cur = sessionIDs(t, r); cur != "" {
		t.Errorf("basic auth with a cookie: current %q", cur)
	}
	// Single read.
	r = se.cookie("GET", "/api/svc/v2/users/me/sessions/"+idA, "editor", tokA, nil)
	r.WantStatus(200)
	if o := r.Object(); o["id"] != idA || o["current"] != true {
		t.Errorf("single session = %v", o)
	}
	se.do("GET", "/api/svc/v2/users/me/sessions/"+idB, "author").WantError(404, "rest_session_not_found")
	// A cookie without a nonce is anonymous.
	se.do("GET", "/api/svc/v2/users/me/sessions", "", nil, "Cookie", auth.DefaultSessionCookie+"="+tokA).WantError(401, "rest_not_logged_in")
}

func TestSessionsPermissionsEveryRole(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	_, id := se.session("editor", time.Hour, time.Hour)
	coll := fmt.Sprintf("/api/svc/v2/users/%d/sessions", se.ID("editor"))
	item := coll + "/" + id
	for _, login := range allRoles {
		t.Run("role="+login, func(t *testing.T) {
			switch login {
			case "administrator", "editor":
				se.do("GET", coll, login).WantStatus(200)
				se.do("GET", item, login).WantStatus(200)
			case "":
				se.do("GET", coll, login).WantError(401, "rest_cannot_list_sessions")
				se.do("GET", item, login).WantError(401, "rest_cannot_read_session")
				se.do("DELETE", item, login).WantError(401, "rest_cannot_delete_session")
				se.do("DELETE", coll, login).WantError(401, "rest_cannot_delete_sessions")
				se.do("GET", "/api/svc/v2/users/me/sessions", login).WantError(401, "rest_not_logged_in")
			default:
				se.do("GET", coll, login).WantError(403, "rest_cannot_list_sessions")
				se.do("GET", item, login).WantError(403, "rest_cannot_read_session")
				se.do("DELETE", item, login).WantError(403, "rest_cannot_delete_session")
				se.do("DELETE", coll, login).WantError(403, "rest_cannot_delete_sessions")
				// Everybody may read their own.
				se.do("GET", "/api/svc/v2/users/me/sessions", login).WantStatus(200)
				se.do("GET", fmt.Sprintf("/api/svc/v2/users/%d/sessions", se.ID(login)), login).WantStatus(200)
			}
		})
	}
	se.do("GET", "/api/svc/v2/users/999/sessions", "administrator").WantError(404, "rest_user_invalid_id")
	se.do("DELETE", "/api/svc/v2/users/999/sessions", "administrator").WantError(404, "rest_user_invalid_id")
	se.do("DELETE", coll+"/0123abcd", "administrator").WantError(404, "rest_session_not_found")
	// The session is still there after every refused delete.
	if ids, _ := sessionIDs(t, se.do("GET", coll, "editor")); len(ids) != 1 {
		t.Fatalf("sessions after refused deletes: %v", ids)
	}
}

func TestSessionsRevokeOne(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	tokA, idA := se.session("editor", 2*time.Hour, time.Hour)
	tokB, idB := se.session("editor", time.Hour, time.Hour)
	_, idC := se.session("author", time.Hour, time.Hour)

	// Another user's session is not found under yours.
	se.cookie("DELETE", "/api/svc/v2/users/me/sessions/"+idC, "editor", tokA, nil).WantError(404, "rest_session_not_found")
	r := se.cookie("DELETE", "/api/svc/v2/users/me/sessions/"+idB, "editor", tokA, nil)
	r.WantStatus(200)
	if o := r.Object(); o["id"] != idB || o["current"] != false {
		t.Fatalf("deleted session = %v", o)
	}
	se.cookie("DELETE", "/api/svc/v2/users/me/sessions/"+idB, "editor", tokA, nil).WantError(404, "rest_session_not_found")
	// The revoked session no longer signs in; the other one still does.
	se.cookie("GET", "/api/svc/v2/users/me", "editor", tokB, nil).WantError(403, "rest_cookie_invalid_nonce")
	se.cookie("GET", "/api/svc/v2/users/me", "editor", tokA, nil).WantStatus(200)
	// An administrator revokes another user's session.
	se.do("DELETE", fmt.Sprintf("/api/svc/v2/users/%d/sessions/%s", se.ID("author"), idC), "administrator").WantStatus(200)
	if ids, _ := sessionIDs(t, se.do("GET", "/api/svc/v2/users/me/sessions", "author")); len(ids) != 0 {
		t.Fatalf("author sessions after revoke: %v", ids)
	}
	// Revoking your own current session signs you out.
	se.cookie("DELETE", "/api/svc/v2/users/me/sessions/"+idA, "editor", tokA, nil).WantStatus(200)
	se.cookie("GET", "/api/svc/v2/users/me", "editor", tokA, nil).WantError(403, "rest_cookie_invalid_nonce")
}

func TestSessionsRevokeAllButCurrent(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	tokA, idA := se.session("editor", 3*time.Hour, time.Hour)
	se.session("editor", 2*time.Hour, time.Hour)
	se.session("editor", time.Hour, time.Hour)
	se.session("author", time.Hour, time.Hour)

	r := se.cookie("DELETE", "/api/svc/v2/users/me/sessions", "editor", tokA, nil)
	r.WantStatus(200)
	if o := r.Object(); o["deleted"] != true || o["count"] != float64(2) {
		t.Fatalf("delete others = %v", o)
	}
	ids, cur := sessionIDs(t, se.cookie("GET", "/api/svc/v2/users/me/sessions", "editor", tokA, nil))
	if len(ids) != 1 || cur != idA {
		t.Fatalf("after delete others: %v current %q", ids, cur)
	}
	// Other users' sessions are untouched.
	if ids, _ := sessionIDs(t, se.do("GET", "/api/svc/v2/users/me/sessions", "author")); len(ids) != 1 {
		t.Fatalf("author sessions: %v", ids)
	}
	// An administrator ends every session of another user, and with an
	// application password nothing of the caller's is kept either.
	r = se.do("DELETE", fmt.Sprintf("/api/svc/v2/users/%d/sessions", se.ID("editor")), "administrator")
	if r.WantStatus(200); r.Object()["count"] != float64(1) {
		t.Fatalf("admin delete = %s", r.Body)
	}
	se.cookie("GET", "/api/svc/v2/users/me", "editor", tokA, nil).WantError(403, "rest_cookie_invalid_nonce")
	r = se.do("DELETE", "/api/svc/v2/users/me/sessions", "author")
	if r.WantStatus(200); r.Object()["count"] != float64(1) {
		t.Fatalf("basic-auth delete = %s", r.Body)
	}
}

func TestSessionsRoutesInIndexAndOptions(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	routes := se.do("GET", "/api/svc/v2", "").Object()["routes"].(map[string]any)
	for _, p := range []string{
		`/svc/v2/users/(?P<user_id>(?:[\d]+|me))/sessions`,
		`/svc/v2/users/(?P<user_id>(?:[\d]+|me))/sessions/(?P<session_id>[\da-f]+)`,
	} {
		rt, ok := routes[p].(map[string]any)
		if !ok {
			t.Fatalf("index lacks %s", p)
		}
		if got := fmt.Sprint(rt["methods"]); got != "[GET DELETE]" {
			t.Errorf("%s methods %s", p, got)
		}
	}
	r := se.do("OPTIONS", "/api/svc/v2/users/me/sessions", "editor")
	r.WantStatus(200)
	sch := r.Object()["schema"].(map[string]any)
	if sch["title"] != "session" {
		t.Errorf("schema title %v", sch["title"])
	}
	props := sch["properties"].(map[string]any)
	if len(props) != 7 || props["current"] == nil || props["token_hash"] != nil {
		t.Errorf("schema properties %v", keys(props))
	}
	if got := r.Header.Get("Allow"); got != "GET, DELETE" {
		t.Errorf("Allow = %q", got)
	}
}

func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	tokA, idA := se.session("editor", 2*time.Hour, time.Hour)
	tokB, _ := se.session("editor", time.Hour, time.Hour)
	se.session("author", time.Hour, time.Hour)

	// A change without a password keeps every session.
	me := fmt.Sprintf("/api/svc/v2/users/%d", se.ID("editor"))
	se.cookie("PUT", me, "editor", tokA, map[string]any{"nickname": "Ed"}).WantStatus(200)
	if ids, _ := sessionIDs(t, se.do("GET", "/api/svc/v2/users/me/sessions", "editor")); len(ids) != 2 {
		t.Fatalf("sessions after a nickname change: %v", ids)
	}
	// Your own new password keeps the session you changed it from.
	se.cookie("PUT", me, "editor", tokA, map[string]any{"password": "new secret"}).WantStatus(200)
	ids, cur := sessionIDs(t, se.cookie("GET", "/api/svc/v2/users/me/sessions", "editor", tokA, nil))
	if len(ids) != 1 || cur != idA {
		t.Fatalf("sessions after own password change: %v current %q", ids, cur)
	}
	se.cookie("GET", "/api/svc/v2/users/me", "editor", tokB, nil).WantError(403, "rest_cookie_invalid_nonce")
	// Application passwords are left alone; other users' sessions too.
	se.do("GET", "/api/svc/v2/users/me", "editor").WantStatus(200)
	if ids, _ := sessionIDs(t, se.do("GET", "/api/svc/v2/users/me/sessions", "author")); len(ids) != 1 {
		t.Fatalf("author sessions: %v", ids)
	}
	// A password changed by an administrator (even from a session of
	// theirs) ends every session of the user.
	tokAdmin, _ := se.session("administrator", time.Hour, time.Hour)
	se.cookie("PUT", fmt.Sprintf("/api/svc/v2/users/%d", se.ID("author")), "administrator", tokAdmin, map[string]any{"password": "reset"}).WantStatus(200)
	if ids, _ := sessionIDs(t, se.do("GET", "/api/svc/v2/users/me/sessions", "author")); len(ids) != 0 {
		t.Fatalf("author sessions after reset: %v", ids)
	}
	se.do("GET", "/api/svc/v2/users/me", "author").WantStatus(200)
	if ids, _ := sessionIDs(t, se.do("GET", "/api/svc/v2/users/me/sessions", "administrator")); len(ids) != 1 {
		t.Fatalf("administrator sessions after resetting another's password: %v", ids)
	}
	// With an application password your own change ends every session.
	se.do("PUT", me, "editor", map[string]any{"password": "third"}, "Cookie", auth.DefaultSessionCookie+"="+tokA).WantStatus(200)
	if ids, _ := sessionIDs(t, se.do("GET", "/api/svc/v2/users/me/sessions", "editor")); len(ids) != 0 {
		t.Fatalf("sessions after a basic-auth password change: %v", ids)
	}
	// A refused password change ends nothing.
	tokS, _ := se.session("subscriber", time.Hour, time.Hour)
	se.cookie("PUT", me, "subscriber", tokS, map[string]any{"password": "x"}).WantError(403, "rest_cannot_edit")
	se.cookie("GET", "/api/svc/v2/users/me", "subscriber", tokS, nil).WantStatus(200)
}
