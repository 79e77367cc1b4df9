// Package content is Folio's domain layer: post types, statuses, posts and
// their rules (visibility, slugs, dates, trash, rendering). Controllers in
// internal/endpoints call it; it calls the store interfaces and never speaks
// HTTP.
package content

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/events"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/store"
)

// Site holds everything the domain needs: the store, the registries of post
// types and statuses, roles and the capability resolver. It is the only
// door to the store for request handlers: its methods apply the rules, and
// its batch reads (batch.go) serve the controllers' prefetching.
type Site struct {
	st       store.Store
	cfg      *config.Config
	types    *Types
	statuses *Statuses
	roles    *auth.Roles
	authz    *auth.Authorizer
	loc      *time.Location
	clock    func() time.Time
	renders  renderCache
	counts   countCache
	// settings caches the effective settings for a store version,
	// settingsBySite for a site generation, settingsByText the last ones
	// made and the option's text they were made of; fileSettings are the
	// configuration file's (settings.go).
	settings       store.KeptAt[*Settings]
	settingsBySite store.KeptAt[*Settings]
	settingsByText settingsCache
	fileSettings   *Settings

	// hooks are the typed hooks the domain fires (package events);
	// extensions bind their handlers to them (SetHooks, Hooks).
	hooks      *events.Hooks
	media      mediaState
	taxonomies *Taxonomies
}

// NewSite builds a Site over st from the configuration.
func NewSite(st store.Store, cfg *config.Config) (*Site, error) {
	loc := time.UTC
	if cfg.Site.Timezone != "" {
		l, err := time.LoadLocation(cfg.Site.Timezone)
		if err != nil {
			return nil, fmt.Errorf("site timezone %q: %w", cfg.Site.Timezone, err)
		}
		loc = l
	}
	s := &Site{
		st:       st,
		cfg:      cfg,
		types:    newTypes(cfg.PostTypes),
		statuses: newStatuses(),
		roles:    auth.DefaultRoles(),
		loc:      loc,
		clock:    time.Now,
		hooks:    events.NewHooks(),
	}
	s.taxonomies = newTaxonomies(cfg.Taxonomies)
	s.fileSettings = defaultSettings(cfg.Site)
	s.fileSettings.Timezone, s.fileSettings.loc = loc.String(), loc
	s.authz = &auth.Authorizer{
		TypeCaps: func(name string) (auth.TypeCaps, bool) {
			pt, ok := s.types.Get(name)
			if !ok {
				return auth.TypeCaps{}, false
			}
			return pt.Caps, true
		},
		GetPost: knownPosts(st.GetPost),
	}
	return s, nil
}

// Config returns the site's configuration.
func (s *Site) Config() *config.Config { return s.cfg }

// Roles returns the role registry.
func (s *Site) Roles() *auth.Roles { return s.roles }

// Types returns the post type registry.
func (s *Site) Types() *Types { return s.types }

// Statuses returns the post status registry.
func (s *Site) Statuses() *Statuses { return s.statuses }

// Location returns the site's time zone: the effective timezone setting
// (see Settings).
func (s *Site) Location(ctx context.Context) (*time.Location, error) {
	st, err := s.Settings(ctx)
	if err != nil {
		return nil, err
	}
	return st.Location(), nil
}

// SetClock replaces the clock (tests).
func (s *Site) SetClock(now func() time.Time) { s.clock = now }

// Now returns the current time in UTC.
func (s *Site) Now() time.Time { return s.clock().UTC() }

// Can reports whether u holds cap (primitive or meta) for the given objects.
func (s *Site) Can(ctx context.Context, u *auth.User, cap string, args ...any) bool {
	return s.authz.Can(ctx, u, cap, args...)
}

// CanAnyType reports whether u holds the edit_posts capability of at least
// one post type exposed to the interface.
func (s *Site) CanAnyType(u *auth.User) bool {
	for _, pt := range s.types.All() {
		if pt.ShowInRest && u.HasCap(pt.Caps.EditPosts) {
			return true
		}
	}
	return false
}

// renderCache memoises rendered HTML per post and field. The rendering is
// a pure function of the raw text (decisions #16), and an entry is used only
// when its raw text equals the current one, so the cache can never serve
// stale output, on any node. It is bounded by bytes and evicts arbitrary
// entries when full.
type renderCache struct {
	mu    sync.RWMutex
	m     map[renderKey]*renderEntry
	bytes int
}

type renderKey struct {
	kind byte
	id   int64
}

type renderEntry struct {
	raw, raw2, out string
}

const renderCacheBytes = 16 << 20

func (c *renderCache) get(kind byte, id int64, raw, raw2 string, fn func() string) string {
	if raw == "" && raw2 == "" {
		return fn()
	}
	key := renderKey{kind, id}
	c.mu.RLock()
	e, ok := c.m[key]
	c.mu.RUnlock()
	if ok && e.raw == raw && e.raw2 == raw2 {
		return e.out
	}
	out := fn()
	size := len(raw) + len(raw2) + len(out) + 64
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[renderKey]*renderEntry, 1024)
	}
	if old, ok := c.m[key]; ok {
		c.bytes -= len(old.raw) + len(old.raw2) + len(old.out) + 64
		delete(c.m, key)
	}
	for k, old := range c.m {
		if c.bytes+size <= renderCacheBytes {
			break
		}
		c.bytes -= len(old.raw) + len(old.raw2) + len(old.out) + 64
		delete(c.m, k)
	}
	c.m[key] = &renderEntry{raw: raw, raw2: raw2, out: out}
	c.bytes += size
	c.mu.Unlock()
	return out
}

// RenderContent returns content.rendered for p.
func (s *Site) RenderContent(p *store.Post) string {
	return s.renders.get('c', p.ID, p.Content, "", func() string { return render.Content(p.Content) })
}

// RenderTitle returns p's rendered title without prefixes.
func (s *Site) RenderTitle(p *store.Post) string {
	return s.renders.get('t', p.ID, p.Title, "", func() string { return render.Title(p.Title) })
}

// RenderExcerpt returns excerpt.rendered for p: its excerpt, or one
// generated from its content.
func (s *Site) RenderExcerpt(p *store.Post) string {
	if p.Excerpt != "" {
		return s.renders.get('e', p.ID, p.Excerpt, "", func() string { return render.Excerpt(p.Excerpt, "") })
	}
	return s.renders.get('g', p.ID, "", p.Content, func() string {
		stripped := render.StripShortcodes(p.Content)
		if stripped == p.Content {
			// Cut from content.rendered, which a response holds as well:
			// the content is rendered once.
			return render.ExcerptOfContent(s.RenderContent(p))
		}
		return render.ExcerptOfContent(render.Content(stripped))
	})
}

// countCache keeps collection totals for one store version; a write on any
// node moves the version on and empties it.
type countCache struct {
	mu      sync.Mutex
	version int64
	m       map[string]int64
}

const countCacheMax = 1024

func (c *countCache) get(version int64, key string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		return 0, false
	}
	n, ok := c.m[key]
	return n, ok
}

func (c *countCache) put(version int64, key string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version || c.m == nil || len(c.m) >= countCacheMax {
		if version < c.version {
			return // a slower reader of an older version
		}
		c.version = version
		c.m = make(map[string]int64, 64)
	}
	c.m[key] = n
}

// write runs fn in one write transaction of the store. fn's ctx carries
// the transaction (store.WithTx), so that the hooks and extensions fn
// calls join it when they write instead of opening their own: their
// writes commit or roll back with the change.
func (s *Site) write(ctx context.Context, fn func(ctx context.Context, tx store.Store) error) error {
	return s.st.Tx(ctx, func(tx store.Store) error {
		return fn(store.WithTx(ctx, tx), tx)
	})
}

// Hooks returns the typed hooks the site fires.
func (s *Site) Hooks() *events.Hooks { return s.hooks }

// SetHooks makes the site fire h (an extension host's hooks) instead of
// its own. Call it before the site serves.
func (s *Site) SetHooks(h *events.Hooks) {
	if h != nil {
		s.hooks = h
	}
}
