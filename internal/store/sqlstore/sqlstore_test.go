package sqlstore

import (
	"errors"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// classDialect classifies errors by identity, for the error mapping tests.
type classDialect struct{ Dialect }

var (
	errLost   = errors.New("connection reset")
	errBusy   = errors.New("database is locked")
	errUnique = errors.New("UNIQUE constraint failed: users.login")
	errAnon   = errors.New("unique violation, column unknown")
)

func (classDialect) Name() string            { return "db" }
func (classDialect) ConnLost(err error) bool { return errors.Is(err, errLost) }
func (classDialect) Busy(err error) bool     { return errors.Is(err, errBusy) }
func (classDialect) Time(t time.Time) any    { return t }
func (classDialect) Unique(err error) (string, bool) {
	switch {
	case errors.Is(err, errUnique):
		return "users.login", true
	case errors.Is(err, errAnon):
		return "", true
	}
	return "", false
}

// TestErrorsMapToTheStoreClasses: a lost connection is store.ErrUnavailable
// (503), a busy database store.ErrBusy, a unique violation
// store.ErrConflict naming the column; every error keeps its cause and says
// what the store was doing, in the dialect's name.
func TestErrorsMapToTheStoreClasses(t *testing.T) {
	d := classDialect{}
	other := errors.New("syntax error")
	tests := []struct {
		name  string
		err   error
		want  error
		cause error
		text  string
	}{
		{"lost connection", Fail(d, "get post 1", errLost), store.ErrUnavailable, errLost, "db: get post 1: store: database unavailable: connection reset"},
		{"busy", Fail(d, "insert post", errBusy), store.ErrBusy, errBusy, "db: insert post: store: database busy: database is locked"},
		{"other", Fail(d, "list posts", other), nil, other, "db: list posts: syntax error"},
		{"unique", Conflict(d, errUnique, "insert user"), store.ErrConflict, nil, "store: conflict: users.login"},
		{"unique, column unknown", Conflict(d, errAnon, "insert user"), store.ErrConflict, nil, "db: insert user: store: conflict"},
		{"not unique", Conflict(d, errLost, "insert user"), store.ErrUnavailable, errLost, "db: insert user: store: database unavailable: connection reset"},
	}
	for _, tt := range tests {
		if tt.want != nil && !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v is not %v", tt.name, tt.err, tt.want)
		}
		if tt.cause != nil && !errors.Is(tt.err, tt.cause) {
			t.Errorf("%s: %v lost its cause", tt.name, tt.err)
		}
		if tt.err.Error() != tt.text {
			t.Errorf("%s: %q, want %q", tt.name, tt.err.Error(), tt.text)
		}
	}
}

// TestMarksNumberParameters: markers are numbered from the first
// parameter a statement has, so that fixed and built parts combine.
func TestMarksNumberParameters(t *testing.T) {
	if got := marks(1, 3); got != "$1, $2, $3" {
		t.Fatalf("marks(1, 3) = %q", got)
	}
	a := &Args{vals: []any{"x"}}
	if got := a.Add(7); got != "$2" || len(a.vals) != 2 {
		t.Fatalf("Add after one parameter = %q", got)
	}
}
