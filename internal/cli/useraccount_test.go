package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/spf13/cobra"
)

// cliSite is a site for command tests on the store FOLIO_TEST_DATABASE_URL
// names (SQLite in a temporary directory without it).
type cliSite struct {
	t    *testing.T
	flag []string // --data DIR or --database URL
	cfg  *config.Config
}

func newCLISite(t *testing.T) *cliSite {
	t.Helper()
	s := &cliSite{t: t, cfg: config.Default()}
	if storetest.Backend() == "postgres" {
		u := storetest.PostgresURL(t)
		s.flag = []string{"--database", u}
		s.cfg.DatabaseURL = u
	} else {
		dir := filepath.Join(t.TempDir(), "data")
		s.flag = []string{"--data", dir}
		s.cfg.DataDir = dir
	}
	return s
}

// run runs the command line args against the site with stdin as standard
// input and returns standard output and the error.
func (s *cliSite) run(stdin string, args ...string) (string, error) {
	s.t.Helper()
	cmd := NewRootCmd("test")
	var out, errb bytes.Buffer
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(append(args, s.flag...))
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func (s *cliSite) mustRun(stdin string, args ...string) string {
	s.t.Helper()
	out, err := s.run(stdin, args...)
	if err != nil {
		s.t.Fatalf("folio %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// user reads a user back from the store.
func (s *cliSite) user(login string) *store.User {
	s.t.Helper()
	st, err := server.OpenStore(context.Background(), s.cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	defer st.Close()
	u, err := st.GetUserByLogin(context.Background(), login)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return u
}

// fakeTerminal answers the password prompts with answers in turn.
func fakeTerminal(t *testing.T, answers ...string) *[]string {
	prompts := &[]string{}
	old := terminalPrompt
	terminalPrompt = func(_ *cobra.Command, prompt string) (string, bool, error) {
		*prompts = append(*prompts, prompt)
		if len(answers) == 0 {
			t.Fatalf("unexpected prompt %q", prompt)
		}
		a := answers[0]
		answers = answers[1:]
		return a, true, nil
	}
	t.Cleanup(func() { terminalPrompt = old })
	return prompts
}

func TestUserCreateKeepsThePasswordFlagAndPrintsTheID(t *testing.T) {
	s := newCLISite(t)
	out := s.mustRun("", "user", "create", "--login", "hook", "--email", "hook@example.com", "--password", "Hook-pass-1234", "--role", "administrator")
	if strings.TrimSpace(out) != "1" || strings.Count(out, "\n") != 1 {
		t.Errorf("user create printed %q, want the id", out)
	}
	if u := s.user("hook"); u == nil || !auth.CheckPassword(u.PassHash, "Hook-pass-1234") {
		t.Error("password not stored")
	}
}

func TestUserCreateRefusesPasswordsShorterThanTwelveCharacters(t *testing.T) {
	s := newCLISite(t)
	_, err := s.run("", "user", "create", "--login", "x", "--email", "x@example.com", "--password", "short-pw", "--role", "author")
	if err == nil || !strings.Contains(err.Error(), "at least 12 characters") {
		t.Errorf("err = %v", err)
	}
	if s.user("x") != nil {
		t.Error("user created with a short password")
	}
}

func TestUserCreateReadsThePasswordFromStandardInput(t *testing.T) {
	s := newCLISite(t)
	out := s.mustRun("piped password 1\nignored\n", "user", "create", "--login", "ann", "--email", "ann@example.com", "--role", "editor", "--password-stdin")
	if strings.TrimSpace(out) == "" {
		t.Error("no id printed")
	}
	if u := s.user("ann"); u == nil || !auth.CheckPassword(u.PassHash, "piped password 1") {
		t.Error("password from stdin not stored")
	}
	if _, err := s.run("", "user", "create", "--login", "bo", "--email", "bo@example.com", "--role", "editor", "--password-stdin"); err == nil {
		t.Error("empty stdin accepted")
	}
	if _, err := s.run("x\n", "user", "create", "--login", "bo", "--email", "bo@example.com", "--role", "editor", "--password", "Hook-pass-1234", "--password-stdin"); err == nil {
		t.Error("--password with --password-stdin accepted")
	}
}

func TestUserCreateAsksForThePasswordTwiceWithoutTheFlag(t *testing.T) {
	s := newCLISite(t)
	prompts := fakeTerminal(t, "typed password 1", "typed password 1")
	s.mustRun("", "user", "create", "--login", "kim", "--email", "kim@example.com", "--role", "author")
	if len(*prompts) != 2 {
		t.Errorf("prompts = %q, want two", *prompts)
	}
	if u := s.user("kim"); u == nil || !auth.CheckPassword(u.PassHash, "typed password 1") {
		t.Error("prompted password not stored")
	}
	fakeTerminal(t, "typed password 1", "typed password 2")
	if _, err := s.run("", "user", "create", "--login", "lee", "--email", "lee@example.com", "--role", "author"); err == nil || !strings.Contains(err.Error(), "do not match") {
		t.Errorf("mismatch: err = %v", err)
	}
}

func TestUserCreateWithoutTerminalOrFlagSaysHowToGiveThePassword(t *testing.T) {
	s := newCLISite(t)
	// strings.Reader standard input is not a terminal.
	_, err := s.run("", "user", "create", "--login", "kim", "--email", "kim@example.com", "--role", "author")
	if err == nil || !strings.Contains(err.Error(), "--password-stdin") {
		t.Errorf("err = %v", err)
	}
}

func TestUserSetPasswordReplacesThePasswordAndEndsSessions(t *testing.T) {
	s := newCLISite(t)
	s.mustRun("", "user", "create", "--login", "ed", "--email", "ed@example.com", "--password", "old password 12", "--role", "editor")
	st, err := server.OpenStore(context.Background(), s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	u := s.user("ed")
	if err := st.CreateSession(context.Background(), &store.Session{TokenHash: "h1", UserID: u.ID, Created: now, Expires: now.Add(time.Hour), LastSeen: now}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	out := s.mustRun("new password 123\n", "user", "set-password", "--login", "ed", "--password-stdin")
	if !strings.Contains(out, "password of ed set") {
		t.Errorf("stdout = %q", out)
	}
	u = s.user("ed")
	if !auth.CheckPassword(u.PassHash, "new password 123") || auth.CheckPassword(u.PassHash, "old password 12") {
		t.Error("password not replaced")
	}
	st, err = server.OpenStore(context.Background(), s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.GetSession(context.Background(), "h1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("session kept after the password changed: %v", err)
	}

	fakeTerminal(t, "prompted pass 12", "prompted pass 12")
	s.mustRun("", "user", "set-password", "--login", "ed")
	if !auth.CheckPassword(s.user("ed").PassHash, "prompted pass 12") {
		t.Error("prompted password not stored")
	}
	for _, tt := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"short\n", []string{"--login", "ed", "--password-stdin"}, "at least 12 characters"},
		{"long enough pw\n", []string{"--login", "ghost", "--password-stdin"}, `no user with login "ghost"`},
	} {
		if _, err := s.run(tt.stdin, append([]string{"user", "set-password"}, tt.args...)...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("set-password %v: err = %v, want %q", tt.args, err, tt.want)
		}
	}
}

func TestUserDeleteNeedsReassignForAuthorsAndKeepsTheLastAdministrator(t *testing.T) {
	s := newCLISite(t)
	s.mustRun("", "user", "create", "--login", "admin", "--email", "admin@example.com", "--password", "Hook-pass-1234", "--role", "administrator")
	s.mustRun("", "user", "create", "--login", "writer", "--email", "writer@example.com", "--password", "Hook-pass-1234", "--role", "author")
	s.mustRun("", "user", "create", "--login", "idle", "--email", "idle@example.com", "--password", "Hook-pass-1234", "--role", "subscriber")
	writer := s.user("writer")
	st, err := server.OpenStore(context.Background(), s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	for i, status := range []string{"publish", "draft"} {
		p := &store.Post{Type: "post", Status: status, Title: "P", Slug: "p" + status, Author: writer.ID, Date: now, DateGMT: now,
			Modified: now, ModifiedGMT: now, CommentStatus: "open", PingStatus: "open"}
		if err := st.InsertPost(context.Background(), p); err != nil {
			t.Fatalf("post %d: %v", i, err)
		}
	}
	st.Close()

	if _, err := s.run("", "user", "delete", "--login", "writer"); err == nil || !strings.Contains(err.Error(), "wrote 2 posts") || !strings.Contains(err.Error(), "--reassign") {
		t.Errorf("delete without --reassign: %v", err)
	}
	if _, err := s.run("", "user", "delete", "--login", "writer", "--reassign", "writer"); err == nil {
		t.Error("reassign to the deleted user accepted")
	}
	if _, err := s.run("", "user", "delete", "--login", "writer", "--reassign", "nobody"); err == nil || !strings.Contains(err.Error(), `"nobody"`) {
		t.Errorf("reassign to a missing user: %v", err)
	}
	out := s.mustRun("", "user", "delete", "--login", "writer", "--reassign", "admin")
	if !strings.Contains(out, "2 posts now belong to admin") || s.user("writer") != nil {
		t.Errorf("delete --reassign: %q", out)
	}
	st, err = server.OpenStore(context.Background(), s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.CountPosts(context.Background(), store.PostQuery{Authors: []int64{s.user("admin").ID}})
	st.Close()
	if err != nil || n != 2 {
		t.Errorf("admin has %d posts after the reassignment (%v), want 2", n, err)
	}
	if out := s.mustRun("", "user", "delete", "--login", "idle"); !strings.Contains(out, "deleted idle") {
		t.Errorf("delete of a user without posts: %q", out)
	}
	if _, err := s.run("", "user", "delete", "--login", "admin"); err == nil || !strings.Contains(err.Error(), "only administrator") {
		t.Errorf("deleting the only administrator: %v", err)
	}
}

func TestUserRoleChangesTheRoleButKeepsTheLastAdministrator(t *testing.T) {
	s := newCLISite(t)
	s.mustRun("", "user", "create", "--login", "admin", "--email", "admin@example.com", "--password", "Hook-pass-1234", "--role", "administrator")
	s.mustRun("", "user", "create", "--login", "sam", "--email", "sam@example.com", "--password", "Hook-pass-1234", "--role", "subscriber")
	if out := s.mustRun("", "user", "role", "--login", "sam", "--role", "editor"); !strings.Contains(out, "sam is now editor") {
		t.Errorf("stdout = %q", out)
	}
	if r := s.user("sam").Roles; len(r) != 1 || r[0] != "editor" {
		t.Errorf("roles = %v", r)
	}
	if _, err := s.run("", "user", "role", "--login", "sam", "--role", "king"); err == nil || !strings.Contains(err.Error(), `unknown role "king"`) {
		t.Errorf("unknown role: %v", err)
	}
	if _, err := s.run("", "user", "role", "--login", "admin", "--role", "editor"); err == nil || !strings.Contains(err.Error(), "only administrator") {
		t.Errorf("demoting the only administrator: %v", err)
	}
	s.mustRun("", "user", "role", "--login", "sam", "--role", "administrator")
	s.mustRun("", "user", "role", "--login", "admin", "--role", "author")
	if r := s.user("admin").Roles; len(r) != 1 || r[0] != "author" {
		t.Errorf("roles = %v", r)
	}
}
