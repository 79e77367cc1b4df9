// Package hooks is Folio's typed hook system: a Hook holds handlers for one
// kind of event, ordered by priority, each with an id, chained through
// Event.Next. WordPress filters map onto it as events that carry the value
// being filtered (a handler changes it, then calls Next); actions are events
// a handler only looks at.
//
// A hook can be dynamic: its name has a "{}" placeholder (rest_insert_{})
// filled by the key of the event that fires it (the post type, the
// taxonomy), and a handler may be bound for some keys only.
package hooks

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Resolver is what every event type implements by embedding Event.
type Resolver interface {
	// Next runs the rest of the handler chain.
	Next() error
	setNext(fn func() error)
	nextFunc() func() error
}

// Event is embedded by every event type; it carries the handler chain.
type Event struct {
	next func() error
}

// Next runs the next handler of the chain (and, through it, the rest); a
// handler that does not call Next stops the chain.
func (e *Event) Next() error {
	if e.next != nil {
		return e.next()
	}
	return nil
}

func (e *Event) setNext(fn func() error) { e.next = fn }
func (e *Event) nextFunc() func() error  { return e.next }

// Keyer is implemented by events of dynamic hooks: HookKey is the part of
// the hook name that varies (the post type of rest_insert_<post_type>).
type Keyer interface {
	HookKey() string
}

// Arguer is implemented by events that list their arguments, in the order
// the spec's Events table gives them; a Recorder keeps them.
type Arguer interface {
	HookArgs() []any
}

// Handler is one bound handler.
type Handler[T Resolver] struct {
	// ID identifies the handler for Unbind; Bind generates one when empty.
	ID string
	// Priority orders the handlers: lower runs first; equal priorities
	// run in binding order.
	Priority int
	// Keys limits a handler of a dynamic hook to events with one of these
	// keys; empty means every key.
	Keys []string
	// Func handles the event; it calls e.Next() to continue the chain.
	Func func(e T) error
}

// Hook is a list of handlers for events of type T.
type Hook[T Resolver] struct {
	name     string
	mu       sync.RWMutex
	handlers []*Handler[T]
	rec      atomic.Pointer[Recorder]
}

// New returns an empty hook called name; a "{}" in name is replaced by the
// event's key (see Keyer).
func New[T Resolver](name string) *Hook[T] {
	return &Hook[T]{name: name}
}

// Pattern returns the hook's name as given to New.
func (h *Hook[T]) Pattern() string { return h.name }

// Name returns the hook's name for an event key.
func (h *Hook[T]) Name(key string) string {
	return strings.Replace(h.name, "{}", key, 1)
}

// Bind adds handler (or replaces the one with the same ID) and returns its
// id.
func (h *Hook[T]) Bind(handler *Handler[T]) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if handler.ID == "" {
		handler.ID = newID()
	}
	hs := slices.DeleteFunc(slices.Clone(h.handlers), func(x *Handler[T]) bool { return x.ID == handler.ID })
	hs = append(hs, handler)
	// cmp.Compare, not a subtraction, which overflows at the extremes.
	slices.SortStableFunc(hs, func(a, b *Handler[T]) int { return cmp.Compare(a.Priority, b.Priority) })
	h.handlers = hs
	return handler.ID
}

// BindFunc adds fn with priority 0 for every key and returns its id.
func (h *Hook[T]) BindFunc(fn func(e T) error) string {
	return h.Bind(&Handler[T]{Func: fn})
}

// BindFor adds fn with priority 0 for the given keys only (e.g. the "page"
// post type of rest_insert_{}) and returns its id.
func (h *Hook[T]) BindFor(keys []string, fn func(e T) error) string {
	return h.Bind(&Handler[T]{Keys: keys, Func: fn})
}

// Unbind removes the handlers with the given ids.
func (h *Hook[T]) Unbind(ids ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.handlers = slices.DeleteFunc(slices.Clone(h.handlers), func(x *Handler[T]) bool { return slices.Contains(ids, x.ID) })
}

// Length returns the number of bound handlers.
func (h *Hook[T]) Length() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.handlers)
}

// Bound reports whether a bound handler applies to events with key,
// leaving out the handlers whose ids are besides.
func (h *Hook[T]) Bound(key string, besides ...string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, hd := range h.handlers {
		if (len(hd.Keys) == 0 || slices.Contains(hd.Keys, key)) && !slices.Contains(besides, hd.ID) {
			return true
		}
	}
	return false
}

// Record makes the hook report every Trigger to rec (nil stops it).
func (h *Hook[T]) Record(rec *Recorder) { h.rec.Store(rec) }

// Trigger runs the handlers that apply to e in priority order, then the
// final funcs, each handler reaching the next through e.Next(). It returns
// the first error a handler returns.
func (h *Hook[T]) Trigger(e T, final ...func(e T) error) error {
	key := ""
	if k, ok := any(e).(Keyer); ok {
		key = k.HookKey()
	}
	if rec := h.rec.Load(); rec != nil {
		var args []any
		if a, ok := any(e).(Arguer); ok {
			args = a.HookArgs()
		}
		rec.add(h.Name(key), args)
	}
	h.mu.RLock()
	all := h.handlers
	h.mu.RUnlock()
	fns := make([]func(T) error, 0, len(all)+len(final))
	for _, hd := range all {
		if len(hd.Keys) == 0 || slices.Contains(hd.Keys, key) {
			fns = append(fns, hd.Func)
		}
	}
	fns = append(fns, final...)
	if len(fns) == 0 {
		return nil
	}
	prev := e.nextFunc()
	defer e.setNext(prev)
	i := 0
	next := func() error {
		if i >= len(fns) {
			if prev != nil {
				return prev()
			}
			return nil
		}
		fn := fns[i]
		i++
		return fn(e)
	}
	e.setNext(next)
	return next()
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Call is one recorded Trigger: the resolved hook name and the event's
// arguments.
type Call struct {
	Name string
	Args []any
}

// Recorder collects the hooks that fired, in order; tests use it to assert
// which hooks fired, how often and with what arguments. It is safe for
// concurrent use.
type Recorder struct {
	mu    sync.Mutex
	calls []Call
}

func (r *Recorder) add(name string, args []any) {
	r.mu.Lock()
	r.calls = append(r.calls, Call{Name: name, Args: args})
	r.mu.Unlock()
}

// Calls returns the recorded calls in firing order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Names returns the names of the recorded calls in firing order.
func (r *Recorder) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, c := range r.calls {
		out[i] = c.Name
	}
	return out
}

// Count returns how often the hook called name fired.
func (r *Recorder) Count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		if c.Name == name {
			n++
		}
	}
	return n
}

// Reset forgets every recorded call.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
}
