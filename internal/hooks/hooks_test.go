package hooks_test

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/folio-server/folio/internal/hooks"
)

type valueEvent struct {
	hooks.Event
	key   string
	Value []string
}

func (e *valueEvent) HookKey() string { return e.key }
func (e *valueEvent) HookArgs() []any { return []any{e.Value} }

func TestHandlersRunInPriorityOrderThroughNext(t *testing.T) {
	h := hooks.New[*valueEvent]("rest_prepare_{}")
	add := func(s string) func(e *valueEvent) error {
		return func(e *valueEvent) error { e.Value = append(e.Value, s); return e.Next() }
	}
	h.Bind(&hooks.Handler[*valueEvent]{ID: "late", Priority: 10, Func: add("late")})
	h.Bind(&hooks.Handler[*valueEvent]{ID: "early", Priority: -10, Func: add("early")})
	h.BindFunc(add("a"))
	h.BindFunc(add("b"))
	h.BindFor([]string{"page"}, add("page-only"))
	e := &valueEvent{key: "post"}
	if err := h.Trigger(e, add("final")); err != nil {
		t.Fatal(err)
	}
	if want := []string{"early", "a", "b", "late", "final"}; !reflect.DeepEqual(e.Value, want) {
		t.Fatalf("order = %v, want %v", e.Value, want)
	}
	e = &valueEvent{key: "page"}
	_ = h.Trigger(e)
	if want := []string{"early", "a", "b", "page-only", "late"}; !reflect.DeepEqual(e.Value, want) {
		t.Fatalf("keyed order = %v, want %v", e.Value, want)
	}
}

// TestExtremePrioritiesKeepTheirOrder checks that priorities at the ends
// of int order correctly (a subtraction would overflow and invert them).
func TestExtremePrioritiesKeepTheirOrder(t *testing.T) {
	h := hooks.New[*valueEvent]("rest_prepare_{}")
	add := func(s string) func(e *valueEvent) error {
		return func(e *valueEvent) error { e.Value = append(e.Value, s); return e.Next() }
	}
	h.Bind(&hooks.Handler[*valueEvent]{ID: "max", Priority: math.MaxInt, Func: add("max")})
	h.Bind(&hooks.Handler[*valueEvent]{ID: "min", Priority: math.MinInt, Func: add("min")})
	h.Bind(&hooks.Handler[*valueEvent]{ID: "zero", Func: add("zero")})
	e := &valueEvent{key: "post"}
	if err := h.Trigger(e); err != nil {
		t.Fatal(err)
	}
	if want := []string{"min", "zero", "max"}; !reflect.DeepEqual(e.Value, want) {
		t.Fatalf("order = %v, want %v", e.Value, want)
	}
}

func TestHandlerThatSkipsNextStopsTheChainAndErrorsReturn(t *testing.T) {
	h := hooks.New[*valueEvent]("x")
	h.BindFunc(func(e *valueEvent) error { e.Value = append(e.Value, "1"); return nil })
	h.BindFunc(func(e *valueEvent) error { e.Value = append(e.Value, "2"); return e.Next() })
	e := &valueEvent{}
	_ = h.Trigger(e)
	if !reflect.DeepEqual(e.Value, []string{"1"}) {
		t.Fatalf("got %v", e.Value)
	}
	boom := errors.New("boom")
	h2 := hooks.New[*valueEvent]("y")
	h2.BindFunc(func(e *valueEvent) error { return boom })
	if err := h2.Trigger(&valueEvent{}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestBindReplacesSameIDAndUnbindRemoves(t *testing.T) {
	h := hooks.New[*valueEvent]("x")
	id := h.BindFunc(func(e *valueEvent) error { return e.Next() })
	h.Bind(&hooks.Handler[*valueEvent]{ID: id, Func: func(e *valueEvent) error { return e.Next() }})
	if h.Length() != 1 {
		t.Fatalf("length = %d", h.Length())
	}
	h.Unbind(id)
	if h.Length() != 0 {
		t.Fatalf("length after unbind = %d", h.Length())
	}
}

func TestRecorderKeepsNameArgsAndOrder(t *testing.T) {
	rec := &hooks.Recorder{}
	a := hooks.New[*valueEvent]("rest_insert_{}")
	b := hooks.New[*valueEvent]("rest_avatar_sizes")
	a.Record(rec)
	b.Record(rec)
	_ = a.Trigger(&valueEvent{key: "page", Value: []string{"v"}})
	_ = b.Trigger(&valueEvent{})
	_ = a.Trigger(&valueEvent{key: "post"})
	if want := []string{"rest_insert_page", "rest_avatar_sizes", "rest_insert_post"}; !reflect.DeepEqual(rec.Names(), want) {
		t.Fatalf("names = %v", rec.Names())
	}
	if rec.Count("rest_insert_page") != 1 || !reflect.DeepEqual(rec.Calls()[0].Args, []any{[]string{"v"}}) {
		t.Fatalf("calls = %+v", rec.Calls())
	}
	rec.Reset()
	if len(rec.Calls()) != 0 {
		t.Fatal("reset kept calls")
	}
}
