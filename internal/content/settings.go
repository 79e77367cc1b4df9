package content

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// The names of the site settings: the keys of the settings resource
// (GET/POST /settings) and of the stored option. The first ones are
// WordPress's names; the comment rules and show_avatars are Folio's own,
// the names of the [site] options of the configuration file.
const (
	SettingTitle                     = "title"
	SettingDescription               = "description"
	SettingURL                       = "url"
	SettingTimezone                  = "timezone"
	SettingDefaultCategory           = "default_category"
	SettingDefaultCommentStatus      = "default_comment_status"
	SettingDefaultPingStatus         = "default_ping_status"
	SettingShowAvatars               = "show_avatars"
	SettingAllowAnonymousComments    = "allow_anonymous_comments"
	SettingCommentModeration         = "comment_moderation"
	SettingCommentPreviouslyApproved = "comment_previously_approved"
	SettingCommentMaxLinks           = "comment_max_links"
)

// SettingsOption is the option (store.OptionStore) that keeps the settings
// changed through the interface: a JSON object holding only the settings
// that were changed. A setting absent from it takes the configuration
// file's value.
const SettingsOption = "site_settings"

// MaxSettingTextLength bounds the title and the description, in
// characters.
const MaxSettingTextLength = 1000

// Settings are the effective site options: the configuration file's [site]
// values, overridden by the values an administrator stored through the
// settings route. Every node reads them through Site.Settings, which
// reloads them when the store's write version moved on, so a change made on
// one node applies to the next request on every node. A Settings value is
// shared and must not be modified.
type Settings struct {
	// Title and Description name the site (the index's name and
	// description, the pages' titles).
	Title       string
	Description string
	// Timezone is the IANA name of the zone post and comment dates are
	// written in (the `date` fields); the `_gmt` fields do not depend on
	// it.
	Timezone string
	// DefaultCategory is the category a new post without categories gets;
	// it cannot be deleted.
	DefaultCategory int64
	// DefaultCommentStatus and DefaultPingStatus ("open" or "closed") are
	// the statuses of new posts of types that support comments (pages
	// excepted).
	DefaultCommentStatus string
	DefaultPingStatus    string
	// ShowAvatars adds avatar_urls to users and comments.
	ShowAvatars bool
	// The comment rules (see Site.approval and CreateComment).
	AllowAnonymousComments    bool
	CommentModeration         bool
	CommentPreviouslyApproved bool
	CommentMaxLinks           int64

	// Stored lists the settings that have a stored value, in name order;
	// the others come from the configuration file.
	Stored []string

	loc *time.Location
}

// Location returns the time zone of st.Timezone.
func (st *Settings) Location() *time.Location {
	if st.loc == nil {
		return time.UTC
	}
	return st.loc
}

// newCommentStatus returns the comment and ping status of a new post of
// type pt: the default statuses for types that support comments, closed
// for the others and for pages (as the original's
// get_default_comment_status).
func (st *Settings) newCommentStatus(pt *PostType) (comment, ping string) {
	if !pt.Supports(SupportComments) || pt.Name == "page" {
		return "closed", "closed"
	}
	return st.DefaultCommentStatus, st.DefaultPingStatus
}

// SettingsPatch is a change of settings: a nil field is left alone. It is
// also the stored form of the settings (SettingsOption), where a nil field
// means "the configuration file's value".
type SettingsPatch struct {
	Title                     *string `json:"title,omitempty"`
	Description               *string `json:"description,omitempty"`
	Timezone                  *string `json:"timezone,omitempty"`
	DefaultCategory           *int64  `json:"default_category,omitempty"`
	DefaultCommentStatus      *string `json:"default_comment_status,omitempty"`
	DefaultPingStatus         *string `json:"default_ping_status,omitempty"`
	ShowAvatars               *bool   `json:"show_avatars,omitempty"`
	AllowAnonymousComments    *bool   `json:"allow_anonymous_comments,omitempty"`
	CommentModeration         *bool   `json:"comment_moderation,omitempty"`
	CommentPreviouslyApproved *bool   `json:"comment_previously_approved,omitempty"`
	CommentMaxLinks           *int64  `json:"comment_max_links,omitempty"`

	// Reset names settings that go back to the configuration file's value
	// (a JSON null in a request); it is never stored.
	Reset []string `json:"-"`
}

// SettingNames are the names of the writable settings, in the order of the
// settings resource.
var SettingNames = []string{
	SettingTitle, SettingDescription, SettingTimezone,
	SettingDefaultCategory, SettingDefaultPingStatus, SettingDefaultCommentStatus,
	SettingShowAvatars, SettingAllowAnonymousComments, SettingCommentModeration,
	SettingCommentPreviouslyApproved, SettingCommentMaxLinks,
}

// fields returns, per setting name, whether p sets it and a function that
// clears it; it is the one place the names meet the fields.
func (p *SettingsPatch) fields() map[string]struct {
	set   bool
	clear func()
} {
	type f = struct {
		set   bool
		clear func()
	}
	return map[string]f{
		SettingTitle:                     {p.Title != nil, func() { p.Title = nil }},
		SettingDescription:               {p.Description != nil, func() { p.Description = nil }},
		SettingTimezone:                  {p.Timezone != nil, func() { p.Timezone = nil }},
		SettingDefaultCategory:           {p.DefaultCategory != nil, func() { p.DefaultCategory = nil }},
		SettingDefaultCommentStatus:      {p.DefaultCommentStatus != nil, func() { p.DefaultCommentStatus = nil }},
		SettingDefaultPingStatus:         {p.DefaultPingStatus != nil, func() { p.DefaultPingStatus = nil }},
		SettingShowAvatars:               {p.ShowAvatars != nil, func() { p.ShowAvatars = nil }},
		SettingAllowAnonymousComments:    {p.AllowAnonymousComments != nil, func() { p.AllowAnonymousComments = nil }},
		SettingCommentModeration:         {p.CommentModeration != nil, func() { p.CommentModeration = nil }},
		SettingCommentPreviouslyApproved: {p.CommentPreviouslyApproved != nil, func() { p.CommentPreviouslyApproved = nil }},
		SettingCommentMaxLinks:           {p.CommentMaxLinks != nil, func() { p.CommentMaxLinks = nil }},
	}
}

// merge copies the fields in sets onto p and clears those in in.Reset.
func (p *SettingsPatch) merge(in SettingsPatch) {
	if in.Title != nil {
		p.Title = in.Title
	}
	if in.Description != nil {
		p.Description = in.Description
	}
	if in.Timezone != nil {
		p.Timezone = in.Timezone
	}
	if in.DefaultCategory != nil {
		p.DefaultCategory = in.DefaultCategory
	}
	if in.DefaultCommentStatus != nil {
		p.DefaultCommentStatus = in.DefaultCommentStatus
	}
	if in.DefaultPingStatus != nil {
		p.DefaultPingStatus = in.DefaultPingStatus
	}
	if in.ShowAvatars != nil {
		p.ShowAvatars = in.ShowAvatars
	}
	if in.AllowAnonymousComments != nil {
		p.AllowAnonymousComments = in.AllowAnonymousComments
	}
	if in.CommentModeration != nil {
		p.CommentModeration = in.CommentModeration
	}
	if in.CommentPreviouslyApproved != nil {
		p.CommentPreviouslyApproved = in.CommentPreviouslyApproved
	}
	if in.CommentMaxLinks != nil {
		p.CommentMaxLinks = in.CommentMaxLinks
	}
	fields := p.fields()
	for _, name := range in.Reset {
		if f, ok := fields[name]; ok {
			f.clear()
		}
	}
}

// apply overlays the stored values of p on st.
func (p *SettingsPatch) apply(st *Settings) {
	if p.Title != nil {
		st.Title = *p.Title
	}
	if p.Description != nil {
		st.Description = *p.Description
	}
	if p.Timezone != nil {
		st.Timezone = *p.Timezone
	}
	if p.DefaultCategory != nil {
		st.DefaultCategory = *p.DefaultCategory
	}
	if p.DefaultCommentStatus != nil {
		st.DefaultCommentStatus = *p.DefaultCommentStatus
	}
	if p.DefaultPingStatus != nil {
		st.DefaultPingStatus = *p.DefaultPingStatus
	}
	if p.ShowAvatars != nil {
		st.ShowAvatars = *p.ShowAvatars
	}
	if p.AllowAnonymousComments != nil {
		st.AllowAnonymousComments = *p.AllowAnonymousComments
	}
	if p.CommentModeration != nil {
		st.CommentModeration = *p.CommentModeration
	}
	if p.CommentPreviouslyApproved != nil {
		st.CommentPreviouslyApproved = *p.CommentPreviouslyApproved
	}
	if p.CommentMaxLinks != nil {
		st.CommentMaxLinks = *p.CommentMaxLinks
	}
	for name, f := range p.fields() {
		if f.set {
			st.Stored = append(st.Stored, name)
		}
	}
	sort.Strings(st.Stored)
}

// check validates the values p sets that need no store and cleans the
// text ones; it returns the reason per invalid setting.
func (p *SettingsPatch) check() map[string]string {
	bad := map[string]string{}
	for _, f := range []struct {
		name string
		v    **string
	}{{SettingTitle, &p.Title}, {SettingDescription, &p.Description}} {
		if *f.v == nil {
			continue
		}
		clean := schema.SanitizeTextField(**f.v)
		if len([]rune(clean)) > MaxSettingTextLength {
			bad[f.name] = fmt.Sprintf("%s must be at most %d characters long.", f.name, MaxSettingTextLength)
			continue
		}
		*f.v = &clean
	}
	if p.Timezone != nil {
		if _, err := LoadTimezone(*p.Timezone); err != nil {
			bad[SettingTimezone] = err.Error()
		}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{SettingDefaultCommentStatus, p.DefaultCommentStatus}, {SettingDefaultPingStatus, p.DefaultPingStatus}} {
		if f.v != nil && *f.v != "open" && *f.v != "closed" {
			bad[f.name] = f.name + " is not one of open, closed."
		}
	}
	if p.DefaultCategory != nil && *p.DefaultCategory < 1 {
		bad[SettingDefaultCategory] = "default_category must be the id of a category."
	}
	if p.CommentMaxLinks != nil && *p.CommentMaxLinks < 0 {
		bad[SettingCommentMaxLinks] = "comment_max_links must be greater than 0 (inclusive)"
	}
	return bad
}

var timezoneName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*$`)

// LoadTimezone returns the zone of an IANA time zone name such as
// "Europe/Paris" or "UTC" (the zone database is built in). The error says
// in words why name is not one.
func LoadTimezone(name string) (*time.Location, error) {
	if name == "" || len(name) > 64 || name == "Local" || !timezoneName.MatchString(name) {
		return nil, fmt.Errorf("timezone %q is not a time zone name such as Europe/Paris or UTC", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("timezone %q is not a known time zone such as Europe/Paris or UTC", name)
	}
	return loc, nil
}

// defaultSettings returns the settings the configuration file gives.
func defaultSettings(c config.Site) *Settings {
	st := &Settings{
		Title:                     c.Title,
		Description:               c.Description,
		Timezone:                  c.Timezone,
		DefaultCategory:           c.DefaultCategory,
		DefaultCommentStatus:      c.DefaultCommentStatus,
		DefaultPingStatus:         c.DefaultPingStatus,
		ShowAvatars:               c.ShowAvatars,
		AllowAnonymousComments:    c.AllowAnonymousComments,
		CommentModeration:         c.CommentModeration,
		CommentPreviouslyApproved: c.CommentPreviouslyApproved,
		CommentMaxLinks:           int64(c.CommentMaxLinks),
	}
	if st.Timezone == "" {
		st.Timezone = config.DefaultTimezone
	}
	if st.DefaultCategory == 0 {
		st.DefaultCategory = DefaultCategoryID
	}
	if st.DefaultCommentStatus == "" {
		st.DefaultCommentStatus = "open"
	}
	if st.DefaultPingStatus == "" {
		st.DefaultPingStatus = "open"
	}
	return st
}

// buildSettings makes the effective settings from the configuration and
// the stored option's text (empty when unset). Stored values that no
// longer pass the rules (a time zone the zone database dropped, a text
// edited by hand) are ignored: the configuration's value applies.
func (s *Site) buildSettings(raw string) *Settings {
	st := defaultSettings(s.cfg.Site)
	if raw != "" {
		var p SettingsPatch
		if err := json.Unmarshal([]byte(raw), &p); err == nil {
			fields := p.fields()
			for name := range p.check() {
				fields[name].clear()
			}
			p.apply(st)
		}
	}
	loc, err := LoadTimezone(st.Timezone)
	if err != nil {
		loc = s.loc // the file's zone, checked at start
		st.Timezone = s.loc.String()
	}
	st.loc = loc
	return st
}

// settingsEntry is the settings last made and the stored option's text
// they were made of.
type settingsEntry struct {
	raw string
	val *Settings
}

// Settings returns the effective site settings, as stored when they are
// read, so a change made on any node is seen by the next request on every
// node. With the store's write version the API server read for the
// request (store.ContextVersion) they are cached for that version and cost
// nothing while nothing was written. Writes advance the version every
// time: with the site generation read with the caller's sign-in
// (store.ContextSiteGeneration), which only a change of an option or a
// webhook moves on, they are cached for that generation. Without either
// the option is read, one statement, and the settings made of the same
// text are reused.
func (s *Site) Settings(ctx context.Context) (*Settings, error) {
	if version, ok := store.ContextVersion(ctx); ok {
		return s.settingsAt(ctx, &s.settings, version)
	}
	if g, ok := store.ContextSiteGeneration(ctx); ok {
		return s.settingsAt(ctx, &s.settingsBySite, g)
	}
	raw, err := s.settingsText(ctx)
	if err != nil {
		return nil, err
	}
	return s.settingsOf(raw), nil
}

// settingsText reads the stored settings option ("" when unset).
func (s *Site) settingsText(ctx context.Context) (string, error) {
	raw, err := s.st.GetOption(ctx, SettingsOption)
	if errors.Is(err, store.ErrNotFound) {
		raw, err = "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read settings: %w", err)
	}
	return raw, nil
}

// settingsOf returns the settings made of the option's text raw, made
// again only when the text differs from the last one.
func (s *Site) settingsOf(raw string) *Settings {
	if e := s.settingsByText.Load(); e != nil && e.raw == raw {
		return e.val
	}
	val := s.buildSettings(raw)
	s.settingsByText.Store(&settingsEntry{raw: raw, val: val})
	return val
}

// settingsAt returns the settings of store version (or site generation)
// at, kept in cache, loading them unless they are there. The version was
// read before the option, so the option is at least as new as it.
func (s *Site) settingsAt(ctx context.Context, cache *store.KeptAt[*Settings], at int64) (*Settings, error) {
	if val, ok := cache.Get(at); ok {
		return val, nil
	}
	raw, err := s.settingsText(ctx)
	if err != nil {
		return nil, err
	}
	val := s.settingsOf(raw)
	cache.Keep(at, val)
	return val, nil
}

// LastSettings returns the settings as last loaded by Settings (the
// configuration file's values before the first load). It reads no store:
// what shows the settings outside a request (an API schema) or must never
// fail (a page's title when the store is down) uses it.
func (s *Site) LastSettings() *Settings {
	if e := s.settingsByText.Load(); e != nil {
		return e.val
	}
	return s.fileSettings
}

// SettingsOrLast returns Settings(ctx), or LastSettings when the store
// cannot be read: for what only displays a setting.
func (s *Site) SettingsOrLast(ctx context.Context) *Settings {
	st, err := s.Settings(ctx)
	if err != nil {
		return s.LastSettings()
	}
	return st
}

// FileSettings returns the settings the configuration file gives, without
// any stored value.
func (s *Site) FileSettings() *Settings { return s.fileSettings }

// UpdateSettings validates in and stores it over the stored settings in
// one transaction, then returns the effective settings. The caller's
// permission (manage_options) was checked by the controller. Invalid
// values fail the whole change with rest_invalid_param and the reason of
// each.
func (s *Site) UpdateSettings(ctx context.Context, in SettingsPatch) (*Settings, error) {
	bad := in.check()
	if in.DefaultCategory != nil && bad[SettingDefaultCategory] == "" {
		t, err := s.st.GetTerm(ctx, *in.DefaultCategory)
		switch {
		case errors.Is(err, store.ErrNotFound) || (err == nil && t.Taxonomy != "category"):
			bad[SettingDefaultCategory] = fmt.Sprintf("default_category %d is not the id of a category.", *in.DefaultCategory)
		case err != nil:
			return nil, fmt.Errorf("update settings: %w", err)
		}
	}
	for _, name := range in.Reset {
		if !settingNameKnown(name) {
			bad[name] = name + " is not a setting that can be reset."
		}
	}
	if len(bad) > 0 {
		names := make([]string, 0, len(bad))
		params := make(map[string]any, len(bad))
		for name, why := range bad {
			names = append(names, name)
			params[name] = why
		}
		sort.Strings(names)
		return nil, &Error{Code: "rest_invalid_param", Message: "Invalid parameter(s): " + strings.Join(names, ", "), Status: 400,
			Data: map[string]any{"params": params}}
	}
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		// Two updates of different settings must both stay.
		if err := store.LockKeys(ctx, tx, "option:"+SettingsOption); err != nil {
			return err
		}
		var stored SettingsPatch
		raw, err := tx.GetOption(ctx, SettingsOption)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return err
		default:
			// An unreadable stored value is replaced, as reads ignore it.
			_ = json.Unmarshal([]byte(raw), &stored)
		}
		stored.merge(in)
		out, err := json.Marshal(&stored)
		if err != nil {
			return err
		}
		return tx.SetOption(ctx, SettingsOption, string(out))
	})
	if err != nil {
		return nil, fmt.Errorf("update settings: %w", err)
	}
	// The version after the write, whatever the request's context holds.
	version, err := s.st.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("update settings: %w", err)
	}
	return s.settingsAt(ctx, &s.settings, version)
}

func settingNameKnown(name string) bool {
	for _, n := range SettingNames {
		if n == name {
			return true
		}
	}
	return false
}

// settingsCache holds the settings last made from the option's text.
type settingsCache = atomic.Pointer[settingsEntry]
