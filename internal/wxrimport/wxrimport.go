// Package wxrimport imports WordPress export files (WXR, read by
// internal/wxr) into a Folio site through internal/content: authors,
// categories, tags and terms of configured taxonomies, posts, pages,
// attachments, entries of configured custom post types, comments and post
// meta.
//
// An import is idempotent and resumable: every record it stores is entered
// in the store's import map (source site, kind, id there → id here) in the
// same transaction as the record, so importing the same file again creates
// nothing new and an interrupted import picks up where it stopped. Users
// are matched by login and terms by taxonomy and slug, so the fresh site's
// "Uncategorized" absorbs the file's.
//
// References that may point forward (page parents, featured images,
// attachment parents, comment parents, term parents) are set in a last
// pass once everything exists; a rerun redoes that pass, so an import
// interrupted before it still ends complete.
//
// Imports fire no REST hooks and enqueue no webhooks: a bulk import must
// not flood subscribers; the store's version still moves on, so response
// caches are retired.
package wxrimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/wxr"
)

// Options tune an import.
type Options struct {
	// AuthorMap maps logins of the export to logins of existing users here
	// (--author-map old=new): the export's author becomes that user.
	AuthorMap map[string]string
	// AuthorRole is the role of the users an import creates; "" means
	// author.
	AuthorRole string
	// MediaDir is a copy of the exported site's uploads folder: an
	// attachment's file is read from the path under it that its URL has
	// under wp-content/uploads. When empty, or when the file is not there,
	// the attachment keeps its original URL as source ("remote").
	MediaDir string
	// DryRun reads everything and counts what would be done, writing
	// nothing.
	DryRun bool
	// Progress, when set, is called after every record of a file.
	Progress func(Progress)
}

// Progress tells how far the import of one file is.
type Progress struct {
	File string
	// Read and Size are bytes of the file read so far and in all (Size is
	// 0 when unknown).
	Read, Size int64
	// Records is the number of records (authors, terms, items) read.
	Records int
}

// Importer imports one or more files into a site; call Import for each
// file, then Finish.
type Importer struct {
	site *content.Site
	st   store.Store
	opts Options
	sum  *Summary

	// maps caches the import map per source and kind: old key → new id.
	maps map[string]map[string]map[string]int64
	// users maps source → login in the export → user id here; authorIDs
	// source → author id there → user id here.
	users     map[string]map[string]int64
	authorIDs map[string]map[int64]int64
	// terms maps taxonomy → slug → term id here (slugs as read and as
	// stored).
	terms map[string]map[string]int64

	pendingTermParents []termParent
	pendingLinks       []postLinks
	pendingComments    []orphanComments
	pendingReplies     []commentParent

	fakeID int64 // dry run ids, negative
	// dryUsers holds the users a dry run would create, by login here.
	dryUsers map[string]int64
}

type termParent struct {
	taxonomy   string
	id         int64
	parentSlug string
}

type postLinks struct {
	source           string
	id               int64
	parent, featured int64 // ids in the export
}

type orphanComments struct {
	source string
	file   string
	item   *wxr.Item
}

type commentParent struct {
	source string
	id     int64
	parent int64 // id in the export
}

// NoteCreatorAuthors is the note counting users created for an item's
// dc:creator that the file does not declare as a wp:author.
const NoteCreatorAuthors = "authors created from dc:creator (not declared in the file)"

// NoteUndeclared is the note counting terms of kind (categories, tags,
// ...) created because items use them without the file declaring them.
func NoteUndeclared(kind string) string {
	return kind + " created from item assignments (not declared in the file)"
}

// Kinds of import map entries.
const (
	mapPost    = "post"
	mapComment = "comment"
	mapTerm    = "term"
	mapUser    = "user"
)

// internalTypes are WordPress's own post types, which hold its menus,
// block theme data, revisions and private bookkeeping: they have no place
// in Folio.
var internalTypes = map[string]bool{
	"nav_menu_item": true, "wp_navigation": true, "wp_template": true, "wp_template_part": true,
	"wp_global_styles": true, "wp_block": true, "wp_font_family": true, "wp_font_face": true,
	"revision": true, "customize_changeset": true, "custom_css": true, "oembed_cache": true,
	"user_request": true, "wp_changeset": true, "scheduled-action": true,
}

// internalTaxonomies are WordPress's own taxonomies (menus, block theme
// data); post_format is read into the post's format.
var internalTaxonomies = map[string]bool{
	"nav_menu": true, "link_category": true, "wp_theme": true, "wp_template_part_area": true,
	"wp_pattern_category": true,
}

// New returns an importer into site.
func New(ctx context.Context, site *content.Site, opts Options) (*Importer, error) {
	if opts.AuthorRole == "" {
		opts.AuthorRole = "author"
	}
	if _, ok := site.Roles().Get(opts.AuthorRole); !ok {
		return nil, fmt.Errorf("unknown role %q", opts.AuthorRole)
	}
	for old, login := range opts.AuthorMap {
		if _, err := site.Store.GetUserByLogin(ctx, login); errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("--author-map %s=%s: there is no user %q here", old, login, login)
		} else if err != nil {
			return nil, err
		}
	}
	if opts.MediaDir != "" {
		st, err := os.Stat(opts.MediaDir)
		if err != nil {
			return nil, fmt.Errorf("--media-dir: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("--media-dir %s is not a directory", opts.MediaDir)
		}
	}
	return &Importer{
		site: site, st: site.Store, opts: opts, sum: newSummary(opts.DryRun),
		maps:      map[string]map[string]map[string]int64{},
		users:     map[string]map[string]int64{},
		authorIDs: map[string]map[int64]int64{},
		terms:     map[string]map[string]int64{},
		dryUsers:  map[string]int64{},
	}, nil
}

// Summary returns the counts so far.
func (im *Importer) Summary() *Summary { return im.sum }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Import reads the WXR document r (name is for messages; size its length
// in bytes, or 0) and imports its records. It stops at the first error,
// and when ctx is done, between records; what was stored stays, and a
// rerun resumes.
func (im *Importer) Import(ctx context.Context, name string, r io.Reader, size int64) error {
	cr := &countingReader{r: r}
	rd := wxr.NewReader(cr)
	records := 0
	source := ""
	warned := 0
	defer func() {
		for _, w := range rd.Warnings()[warned:] {
			im.sum.warn(name, w)
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if source == "" {
			source = sourceOf(rd.Channel(), name)
		}
		switch v := rec.(type) {
		case *wxr.Author:
			err = im.author(ctx, source, v)
		case *wxr.Term:
			err = im.term(ctx, source, v)
		case *wxr.Item:
			err = im.item(ctx, source, name, v)
		}
		if err != nil {
			return fmt.Errorf("%s: line %d: %w", name, lineOf(rec), err)
		}
		records++
		if im.opts.Progress != nil {
			im.opts.Progress(Progress{File: name, Read: cr.n, Size: size, Records: records})
		}
	}
	return nil
}

func lineOf(rec any) int {
	switch v := rec.(type) {
	case *wxr.Author:
		return v.Line
	case *wxr.Term:
		return v.Line
	case *wxr.Item:
		return v.Line
	}
	return 0
}

// sourceOf names the exported site for the import map: its URL, else its
// title, else the file's name.
func sourceOf(c *wxr.Channel, file string) string {
	if s := c.Source(); s != "" {
		return s
	}
	if c.Title != "" {
		return "title:" + c.Title
	}
	return "file:" + filepath.Base(file)
}

// importMap returns the import map of source and kind, loading it on first
// use. Entries whose record no longer exists are dropped, so that a record
// deleted since is imported again.
func (im *Importer) importMap(ctx context.Context, source, kind string) (map[string]int64, error) {
	bySource := im.maps[source]
	if bySource == nil {
		bySource = map[string]map[string]int64{}
		im.maps[source] = bySource
	}
	if m, ok := bySource[kind]; ok {
		return m, nil
	}
	m, err := im.st.ImportedIDs(ctx, source, kind)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(m))
	for _, id := range m {
		ids = append(ids, id)
	}
	exists := map[int64]bool{}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		switch kind {
		case mapPost:
			got, err := im.st.GetPosts(ctx, chunk)
			if err != nil {
				return nil, err
			}
			for id := range got {
				exists[id] = true
			}
		case mapComment:
			got, err := im.st.GetComments(ctx, chunk)
			if err != nil {
				return nil, err
			}
			for id := range got {
				exists[id] = true
			}
		case mapTerm:
			got, err := im.st.GetTerms(ctx, chunk)
			if err != nil {
				return nil, err
			}
			for id := range got {
				exists[id] = true
			}
		case mapUser:
			got, err := im.st.GetUsers(ctx, chunk)
			if err != nil {
				return nil, err
			}
			for id := range got {
				exists[id] = true
			}
		}
	}
	for k, id := range m {
		if !exists[id] {
			delete(m, k)
		}
	}
	bySource[kind] = m
	return m, nil
}

// write runs fn in one transaction and, when it commits, enters the
// records it made in the cached import maps. In a dry run fn does not run
// and the records get made-up ids.
func (im *Importer) write(ctx context.Context, source string, fn func(tx store.Store, rec *recorder) error) error {
	rec := &recorder{source: source}
	if im.opts.DryRun {
		rec.dry = im
		return fn(nil, rec)
	}
	err := im.st.Tx(ctx, func(tx store.Store) error {
		rec.entries = rec.entries[:0]
		rec.tx = tx
		return fn(tx, rec)
	})
	if err != nil {
		return err
	}
	for _, e := range rec.entries {
		if m := im.maps[source][e.kind]; m != nil {
			m[e.old] = e.id
		}
	}
	return nil
}

// recorder enters import map records inside one write.
type recorder struct {
	source  string
	tx      store.Store
	dry     *Importer
	entries []entry
}

type entry struct {
	kind, old string
	id        int64
}

// record enters old → id of kind in the import map, in the transaction.
func (r *recorder) record(ctx context.Context, kind, old string, id int64) error {
	r.entries = append(r.entries, entry{kind, old, id})
	if r.dry != nil {
		if m := r.dry.maps[r.source][kind]; m != nil {
			m[old] = id
		}
		return nil
	}
	return r.tx.RecordImported(ctx, r.source, kind, old, id)
}

// newID hands out a made-up id in a dry run.
func (im *Importer) newID() int64 {
	im.fakeID--
	return im.fakeID
}

// ---- authors

func (im *Importer) author(ctx context.Context, source string, a *wxr.Author) error {
	id, err := im.user(ctx, source, a.Login, store.User{Login: a.Login, Email: a.Email, DisplayName: a.DisplayName,
		FirstName: a.FirstName, LastName: a.LastName, Description: a.Description}, true)
	if err != nil {
		return err
	}
	if a.ID != 0 && id != 0 {
		if im.authorIDs[source] == nil {
			im.authorIDs[source] = map[int64]int64{}
		}
		im.authorIDs[source][a.ID] = id
	}
	return nil
}

// user resolves the export's login to a user here: mapped by --author-map,
// matched by login, or created. declared tells a wp:author definition
// (always counted) from an item's dc:creator (counted when it creates a
// user). It returns 0 for an empty or unusable login.
func (im *Importer) user(ctx context.Context, source, login string, in store.User, declared bool) (int64, error) {
	const kind = "authors"
	login = strings.TrimSpace(login)
	if login == "" {
		return 0, nil
	}
	if im.users[source] == nil {
		im.users[source] = map[string]int64{}
	}
	if id, ok := im.users[source][login]; ok {
		return id, nil
	}
	if _, err := im.importMap(ctx, source, mapUser); err != nil {
		return 0, err
	}
	target := login
	if to, ok := im.opts.AuthorMap[login]; ok {
		target = to
	}
	sanitized := content.SanitizeUserLogin(target)
	if sanitized == "" {
		im.sum.skip(kind, "login has no usable characters")
		im.users[source][login] = 0
		return 0, nil
	}
	if id, ok := im.dryUsers[strings.ToLower(sanitized)]; ok {
		if declared {
			im.sum.existing(kind)
		}
		im.users[source][login] = id
		return id, nil
	}
	u, err := im.st.GetUserByLogin(ctx, sanitized)
	switch {
	case err == nil:
		if declared {
			im.sum.existing(kind)
		}
		im.users[source][login] = u.ID
		if im.opts.DryRun || im.maps[source][mapUser][login] == u.ID {
			return u.ID, nil
		}
		return u.ID, im.write(ctx, source, func(tx store.Store, rec *recorder) error {
			return rec.record(ctx, mapUser, login, u.ID)
		})
	case !errors.Is(err, store.ErrNotFound):
		return 0, err
	}
	in.Login = target
	var id int64
	err = im.write(ctx, source, func(tx store.Store, rec *recorder) error {
		if tx == nil {
			id = im.newID()
			im.dryUsers[strings.ToLower(sanitized)] = id
			return rec.record(ctx, mapUser, login, id)
		}
		u, _, err := im.site.ImportUser(ctx, tx, in, im.opts.AuthorRole)
		if err != nil {
			return err
		}
		id = u.ID
		return rec.record(ctx, mapUser, login, u.ID)
	})
	if err != nil {
		var ce *content.Error
		if errors.As(err, &ce) {
			im.sum.skip(kind, ce.Message)
			im.users[source][login] = 0
			return 0, nil
		}
		return 0, fmt.Errorf("author %q: %w", login, err)
	}
	im.sum.created(kind)
	if !declared {
		im.sum.note(NoteCreatorAuthors, 1)
	}
	im.users[source][login] = id
	return id, nil
}

// ---- terms

// termKind is the summary kind of a taxonomy.
func termKind(taxonomy string) string {
	switch taxonomy {
	case "category":
		return "categories"
	case "post_tag":
		return "tags"
	}
	return "terms: " + taxonomy
}

// cachedTerm returns the id here of a term of taxonomy by slug.
func (im *Importer) cachedTerm(taxonomy, slug string) (int64, bool) {
	id, ok := im.terms[taxonomy][slug]
	return id, ok
}

func (im *Importer) cacheTerm(taxonomy string, id int64, slugs ...string) {
	if im.terms[taxonomy] == nil {
		im.terms[taxonomy] = map[string]int64{}
	}
	for _, s := range slugs {
		if s != "" {
			im.terms[taxonomy][s] = id
		}
	}
}

// term imports a channel-level term definition.
func (im *Importer) term(ctx context.Context, source string, t *wxr.Term) error {
	kind := termKind(t.Taxonomy)
	if t.Taxonomy == "post_format" {
		return nil // formats are the posts' format field
	}
	if len(t.Meta) > 0 {
		im.sum.note("term meta values not kept (Folio has no term meta)", len(t.Meta))
	}
	if internalTaxonomies[t.Taxonomy] {
		im.sum.skip(kind, "WordPress-internal taxonomy")
		return nil
	}
	tax, ok := im.site.Taxonomies().Get(t.Taxonomy)
	if !ok {
		im.sum.skip(kind, "taxonomy not configured (add it to [[taxonomies]] in folio.toml)")
		return nil
	}
	if _, seen := im.cachedTerm(t.Taxonomy, t.Slug); seen && t.Slug != "" {
		return nil // defined twice (wp:category and wp:term), counted once
	}
	id, created, err := im.findOrCreateTerm(ctx, source, tax, t.Name, t.Slug, t.Description, t.Parent, t.ID)
	if err != nil {
		return fmt.Errorf("%s %q: %w", t.Taxonomy, t.Slug, err)
	}
	if id == 0 {
		im.sum.skip(kind, "no usable name or slug")
		return nil
	}
	if created {
		im.sum.created(kind)
	} else {
		im.sum.existing(kind)
	}
	return nil
}

// findOrCreateTerm returns the id here of the term of tax with slug (or
// name), storing it when there is none. parentSlug is the parent's slug in
// the export: when that term is known the parent is set at once, else in
// the last pass.
func (im *Importer) findOrCreateTerm(ctx context.Context, source string, tax *content.Taxonomy, name, slug, description, parentSlug string, oldID int64) (int64, bool, error) {
	if _, err := im.importMap(ctx, source, mapTerm); err != nil {
		return 0, false, err
	}
	var parent int64
	if parentSlug != "" && tax.Hierarchical {
		parent, _ = im.cachedTerm(tax.Name, parentSlug)
	}
	var id int64
	var stored string
	created := false
	err := im.write(ctx, source, func(tx store.Store, rec *recorder) error {
		if tx == nil {
			got, err := im.st.ListTerms(ctx, store.TermQuery{Taxonomy: tax.Name, Slugs: []string{termSlug(slug, name)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(got) > 0 {
				id, stored = got[0].ID, got[0].Slug
			} else if stored = termSlug(slug, name); stored == "" {
				return nil
			} else {
				id, created = im.newID(), true
			}
			return nil
		}
		t, isNew, err := im.site.ImportTerm(ctx, tx, tax, name, slug, description, parent)
		if err != nil {
			return err
		}
		id, stored, created = t.ID, t.Slug, isNew
		key := tax.Name + ":" + stored
		if oldID != 0 {
			key = tax.Name + ":" + strconv.FormatInt(oldID, 10)
		}
		return rec.record(ctx, mapTerm, key, t.ID)
	})
	if err != nil {
		var ce *content.Error
		if errors.As(err, &ce) {
			return 0, false, nil
		}
		return 0, false, err
	}
	im.cacheTerm(tax.Name, id, slug, stored)
	if parentSlug != "" && tax.Hierarchical {
		im.pendingTermParents = append(im.pendingTermParents, termParent{taxonomy: tax.Name, id: id, parentSlug: parentSlug})
	}
	return id, created, nil
}

// termSlug is the slug a term is looked up by: its slug, else its name's.
func termSlug(slug, name string) string {
	if s := render.Slug(slug); s != "" {
		return s
	}
	return render.Slug(name)
}

// itemTerms resolves the terms an item names to ids here, per taxonomy,
// creating undeclared ones (each in its own transaction, so that the ids
// cached are committed ones), and returns the item's post format.
func (im *Importer) itemTerms(ctx context.Context, source, postType string, it *wxr.Item) (map[string][]int64, string, error) {
	terms := map[string][]int64{}
	format := ""
	for _, t := range it.Terms {
		if t.Taxonomy == "post_format" {
			f := strings.TrimPrefix(t.Slug, "post-format-")
			if f == "" {
				f = strings.ToLower(t.Name)
			}
			format = f
			continue
		}
		kind := termKind(t.Taxonomy)
		if internalTaxonomies[t.Taxonomy] {
			im.sum.note("term assignments of WordPress-internal taxonomies skipped", 1)
			continue
		}
		tax, ok := im.site.Taxonomies().Get(t.Taxonomy)
		if !ok {
			im.sum.note(fmt.Sprintf("term assignments skipped: taxonomy %s not configured", t.Taxonomy), 1)
			continue
		}
		if !tax.AppliesTo(postType) {
			im.sum.note(fmt.Sprintf("term assignments skipped: taxonomy %s does not apply to %s", t.Taxonomy, postType), 1)
			continue
		}
		id, ok := im.cachedTerm(t.Taxonomy, t.Slug)
		if !ok || t.Slug == "" {
			var created bool
			var err error
			id, created, err = im.findOrCreateTerm(ctx, source, tax, t.Name, t.Slug, "", "", 0)
			if err != nil {
				return nil, "", fmt.Errorf("%s %q: %w", t.Taxonomy, t.Slug, err)
			}
			if id == 0 {
				continue
			}
			if created {
				im.sum.created(kind)
				im.sum.note(NoteUndeclared(kind), 1)
			}
		}
		if !containsID(terms[t.Taxonomy], id) {
			terms[t.Taxonomy] = append(terms[t.Taxonomy], id)
		}
	}
	return terms, format, nil
}

func containsID(ids []int64, id int64) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

// ---- items

// typeKind is the summary kind of a post type.
func typeKind(postType string) string {
	switch postType {
	case "post":
		return "posts"
	case "page":
		return "pages"
	case "attachment":
		return "attachments"
	case "":
		return "items without a post type"
	}
	return postType
}

// postKey is the import map key of an item: its id there, else its GUID,
// else its link, else its line in the file.
func postKey(it *wxr.Item) string {
	switch {
	case it.PostID > 0:
		return strconv.FormatInt(it.PostID, 10)
	case it.GUID != "":
		return "guid:" + it.GUID
	case it.Link != "":
		return "link:" + it.Link
	}
	return "line:" + strconv.Itoa(it.Line)
}

// commentKey is the import map key of the i-th comment of an item.
func commentKey(it *wxr.Item, i int) string {
	if id := it.Comments[i].ID; id > 0 {
		return strconv.FormatInt(id, 10)
	}
	return postKey(it) + "#" + strconv.Itoa(i)
}

// skippedMeta are post meta keys not kept as meta: editing locks, and
// values Folio keeps in fields of its own (featured image, alt text, the
// status before the trash) or recomputes (the trash bookkeeping).
var skippedMeta = map[string]bool{
	"_edit_lock": true, "_edit_last": true, "_thumbnail_id": true, "_wp_attachment_image_alt": true,
	"_wp_trash_meta_status": true, "_wp_trash_meta_time": true, "_wp_trash_meta_comments_status": true,
}

// fileMeta are the attachment meta keys Folio derives from its media record
// when it holds the file; they are kept as meta for remote attachments.
var fileMeta = map[string]bool{"_wp_attached_file": true, "_wp_attachment_metadata": true}

func (im *Importer) item(ctx context.Context, source, file string, it *wxr.Item) error {
	kind := typeKind(it.PostType)
	switch {
	case it.PostType == "":
		if it.PostID > 0 && len(it.Comments) > 0 {
			// WordPress's a11y test data has such an item: it only adds
			// comments to the post with that id, which may come later.
			im.pendingComments = append(im.pendingComments, orphanComments{source: source, file: file, item: it})
			im.sum.note("items without a post type whose comments go to the post with their id", 1)
			return nil
		}
		im.sum.skip(kind, "no wp:post_type and no comments for an existing post")
		return nil
	case internalTypes[it.PostType]:
		im.sum.skip(kind, "WordPress-internal post type")
		return nil
	}
	pt, ok := im.site.Types().Get(it.PostType)
	if !ok || !pt.ShowInRest {
		im.sum.skip(kind, "post type not configured (add it to [[post_types]] in folio.toml)")
		return nil
	}
	posts, err := im.importMap(ctx, source, mapPost)
	if err != nil {
		return err
	}
	key := postKey(it)
	id, exists := posts[key]
	if exists {
		im.sum.existing(kind)
	} else {
		id, err = im.createItem(ctx, source, pt, it, key)
		if err != nil {
			return err
		}
		if id == 0 {
			return nil
		}
		im.sum.created(kind)
	}
	thumb := int64(0)
	for _, m := range it.Meta {
		if m.Key == "_thumbnail_id" {
			thumb, _ = strconv.ParseInt(strings.TrimSpace(m.Value), 10, 64)
		}
	}
	if it.PostParent != 0 || thumb != 0 {
		im.pendingLinks = append(im.pendingLinks, postLinks{source: source, id: id, parent: it.PostParent, featured: thumb})
	}
	if exists && len(it.Comments) > 0 {
		return im.comments(ctx, source, id, it)
	}
	return nil
}

// parseWall reads an exported "YYYY-MM-DD HH:MM:SS" wall clock; the zero
// date and unreadable values give the zero time.
func parseWall(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", strings.TrimSpace(s))
	if err != nil || t.Year() < 1 {
		return time.Time{}
	}
	return t
}

// createItem stores a new item with its terms, meta and comments in one
// transaction and returns its id here (0 when it was skipped).
func (im *Importer) createItem(ctx context.Context, source string, pt *content.PostType, it *wxr.Item, key string) (int64, error) {
	terms, format, err := im.itemTerms(ctx, source, pt.Name, it)
	if err != nil {
		return 0, err
	}
	author, err := im.user(ctx, source, it.Creator, store.User{Login: it.Creator}, false)
	if err != nil {
		return 0, err
	}
	p := &store.Post{
		Type: pt.Name, Status: it.Status, Author: author, MenuOrder: it.MenuOrder,
		Title: it.Title, Content: it.Content, Excerpt: it.Excerpt, Slug: it.PostName,
		Password: it.Password, GUID: it.GUID,
		Date: parseWall(it.PostDate), DateGMT: parseWall(it.PostDateGMT),
		Modified: parseWall(it.PostModified), ModifiedGMT: parseWall(it.PostModifiedGMT),
		CommentStatus: it.CommentStatus, PingStatus: it.PingStatus, Sticky: it.Sticky, Format: format,
	}
	if p.Date.IsZero() && p.DateGMT.IsZero() && it.PubDate != "" {
		if t, err := time.Parse(time.RFC1123Z, it.PubDate); err == nil && !draftLike(it.Status) {
			p.DateGMT = t.UTC()
		}
	}
	// Parents and featured images are set here when already imported, and
	// in the last pass otherwise.
	posts := im.maps[source][mapPost]
	if it.PostParent != 0 {
		p.Parent = posts[strconv.FormatInt(it.PostParent, 10)]
	}
	meta := map[string][]string{}
	alt := ""
	nMeta := 0
	for _, m := range it.Meta {
		switch {
		case m.Key == "_thumbnail_id":
			old, _ := strconv.ParseInt(strings.TrimSpace(m.Value), 10, 64)
			p.FeaturedMedia = posts[strconv.FormatInt(old, 10)]
		case m.Key == "_wp_attachment_image_alt":
			alt = m.Value
		case m.Key == "_wp_trash_meta_status":
			p.PreTrashStatus = strings.TrimSpace(m.Value)
		case skippedMeta[m.Key]:
		default:
			meta[m.Key] = append(meta[m.Key], m.Value)
			nMeta++
		}
	}

	var file *content.ImportedFile
	if pt.Name == content.AttachmentType {
		var remote bool
		file, remote, err = im.attachmentFile(ctx, it, p)
		if err != nil {
			return 0, err
		}
		if remote {
			im.sum.note("attachments kept as remote URLs (source_url is the original file)", 1)
		} else {
			im.sum.note("attachment files copied from --media-dir", 1)
			for k := range fileMeta {
				nMeta -= len(meta[k])
				delete(meta, k)
			}
		}
	}

	var id int64
	err = im.write(ctx, source, func(tx store.Store, rec *recorder) error {
		if tx == nil {
			id = im.newID()
			return rec.record(ctx, mapPost, key, id)
		}
		if pt.Name == content.AttachmentType {
			if err := im.site.ImportAttachment(ctx, tx, p, alt, file, meta); err != nil {
				return err
			}
		} else if err := im.site.ImportPost(ctx, tx, p, terms, meta); err != nil {
			return err
		}
		id = p.ID
		if err := rec.record(ctx, mapPost, key, p.ID); err != nil {
			return err
		}
		return im.insertComments(ctx, source, tx, rec, p.ID, it)
	})
	if err != nil {
		file.Release()
		return 0, fmt.Errorf("%s %q: %w", pt.Name, it.Title, err)
	}
	k := im.sum.Kind("post meta")
	k.Created += nMeta
	im.countComments(it, len(it.Comments))
	return id, nil
}

func draftLike(status string) bool {
	return status == "draft" || status == "pending" || status == "auto-draft"
}

// countComments counts n new comments of it and the comment meta not kept.
func (im *Importer) countComments(it *wxr.Item, n int) {
	c := im.sum.Kind("comments")
	c.Created += n
	meta := 0
	for _, cm := range it.Comments {
		meta += len(cm.Meta)
	}
	if meta > 0 && n > 0 {
		im.sum.note("comment meta values not kept (Folio has no comment meta)", meta)
	}
}

// comments stores the comments of an item whose post exists here already
// and that are not imported yet, in one transaction.
func (im *Importer) comments(ctx context.Context, source string, postID int64, it *wxr.Item) error {
	cm, err := im.importMap(ctx, source, mapComment)
	if err != nil {
		return err
	}
	missing := 0
	for i, c := range it.Comments {
		id, ok := cm[commentKey(it, i)]
		if !ok {
			missing++
			continue
		}
		im.sum.existing("comments")
		if c.Parent != 0 && !im.opts.DryRun {
			// An earlier run may have stopped before its last pass.
			im.pendingReplies = append(im.pendingReplies, commentParent{source: source, id: id, parent: c.Parent})
		}
	}
	if missing == 0 {
		return nil
	}
	err = im.write(ctx, source, func(tx store.Store, rec *recorder) error {
		if tx == nil {
			return nil
		}
		return im.insertComments(ctx, source, tx, rec, postID, it)
	})
	if err != nil {
		return fmt.Errorf("comments of %q: %w", it.Title, err)
	}
	im.countComments(it, missing)
	return nil
}

// insertComments stores, inside tx, the comments of it not imported yet,
// on the post postID. Replies to comments not stored yet get their parent
// here when it is in the same item, or in the last pass.
func (im *Importer) insertComments(ctx context.Context, source string, tx store.Store, rec *recorder, postID int64, it *wxr.Item) error {
	if len(it.Comments) == 0 {
		return nil
	}
	cm, err := im.importMap(ctx, source, mapComment)
	if err != nil {
		return err
	}
	local := map[int64]int64{} // ids there → here, of this item
	var before map[int64]string
	for _, m := range it.Meta {
		if m.Key == "_wp_trash_meta_comments_status" {
			before = phpIntStringMap(m.Value)
		}
	}
	type later struct{ id, parent int64 }
	var fix []later
	for i, c := range it.Comments {
		key := commentKey(it, i)
		if id, ok := cm[key]; ok {
			if c.ID > 0 {
				local[c.ID] = id
			}
			continue
		}
		sc := &store.Comment{
			PostID: postID, AuthorName: c.Author, AuthorEmail: c.AuthorEmail, AuthorURL: c.AuthorURL,
			AuthorIP: c.AuthorIP, Date: parseWall(c.Date), DateGMT: parseWall(c.DateGMT), Content: c.Content,
			Approved: c.Approved, Type: c.Type, AuthorID: im.authorIDs[source][c.UserID],
		}
		if c.Approved == store.CommentPostTrashed {
			// The status it had before its post went to the trash, which
			// the post's _wp_trash_meta_comments_status keeps.
			sc.Approved = before[c.ID]
		}
		for _, m := range c.Meta {
			if m.Key == "_wp_trash_meta_status" {
				sc.PreTrashStatus = strings.TrimSpace(m.Value)
			}
		}
		if c.Parent != 0 {
			if id, ok := local[c.Parent]; ok {
				sc.Parent = id
			} else if id, ok := cm[strconv.FormatInt(c.Parent, 10)]; ok {
				sc.Parent = id
			}
		}
		if err := im.site.ImportComment(ctx, tx, sc); err != nil {
			return fmt.Errorf("comment %s: %w", key, err)
		}
		if c.ID > 0 {
			local[c.ID] = sc.ID
		}
		if c.Parent != 0 && sc.Parent == 0 {
			fix = append(fix, later{sc.ID, c.Parent})
		}
		if err := rec.record(ctx, mapComment, key, sc.ID); err != nil {
			return err
		}
	}
	for _, f := range fix {
		if parent, ok := local[f.parent]; ok {
			if _, err := im.site.ImportCommentParent(ctx, tx, f.id, parent); err != nil {
				return err
			}
			continue
		}
		im.pendingReplies = append(im.pendingReplies, commentParent{source: source, id: f.id, parent: f.parent})
	}
	return nil
}

// phpIntStringRE matches one `i:KEY;s:LEN:"VALUE";` pair of a serialized
// PHP array.
var phpIntStringRE = regexp.MustCompile(`i:(-?\d+);s:\d+:"([^"]*)";`)

// phpIntStringMap reads a serialized PHP array of integer keys and string
// values (as _wp_trash_meta_comments_status holds).
func phpIntStringMap(s string) map[int64]string {
	out := map[int64]string{}
	for _, m := range phpIntStringRE.FindAllStringSubmatch(s, -1) {
		k, err := strconv.ParseInt(m[1], 10, 64)
		if err == nil {
			out[k] = m[2]
		}
	}
	return out
}

// uploadsPath returns the path of an attachment's file under the exported
// site's uploads folder: its _wp_attached_file meta, else the part of its
// URL after /uploads/ (or after the host for WordPress.com's file hosts).
func uploadsPath(it *wxr.Item) string {
	for _, m := range it.Meta {
		if m.Key == "_wp_attached_file" && strings.TrimSpace(m.Value) != "" {
			return path.Clean("/" + strings.TrimSpace(m.Value))[1:]
		}
	}
	u, err := url.Parse(it.AttachmentURL)
	if err != nil || u.Path == "" {
		return ""
	}
	p := u.Path
	if i := strings.LastIndex(p, "/uploads/"); i >= 0 {
		p = p[i+len("/uploads/"):]
	}
	p = path.Clean("/" + p)[1:]
	if p == "" || p == "." {
		return ""
	}
	return p
}

// attachmentFile copies the item's file from the media directory when it
// is there, or sets up p to keep its original URL (remote true).
func (im *Importer) attachmentFile(ctx context.Context, it *wxr.Item, p *store.Post) (*content.ImportedFile, bool, error) {
	remoteURL := strings.TrimSpace(it.AttachmentURL)
	if remoteURL == "" {
		remoteURL = it.GUID
	}
	rel := uploadsPath(it)
	name := path.Base(rel)
	if rel == "" {
		name = path.Base(remoteURL)
	}
	if mt, ok := im.site.MediaTypes().MimeOf(name); ok {
		p.MimeType = mt
	} else if mt := mime.TypeByExtension(path.Ext(name)); mt != "" {
		p.MimeType, _, _ = strings.Cut(mt, ";")
	}
	p.GUID = remoteURL
	if im.opts.MediaDir == "" || rel == "" {
		return nil, true, nil
	}
	full := filepath.Join(im.opts.MediaDir, filepath.FromSlash(rel))
	data, err := os.ReadFile(full)
	if errors.Is(err, os.ErrNotExist) {
		im.sum.note("attachment files not found in --media-dir", 1)
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", full, err)
	}
	folder := path.Dir(rel)
	if folder == "." || folder == "" {
		d := parseWall(it.PostDate)
		if d.IsZero() {
			d = time.Now()
		}
		folder = fmt.Sprintf("%04d/%02d", d.Year(), int(d.Month()))
	}
	if im.opts.DryRun {
		return nil, false, nil
	}
	f, err := im.site.ImportMediaFile(ctx, data, name, folder)
	if errors.Is(err, content.ErrImportFileRejected) {
		im.sum.note("attachment files refused by the media rules (kept as remote URLs)", 1)
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return f, false, nil
}

// ---- last pass

// Finish sets the references that pointed forward (term parents, post
// parents and featured images, comments of items without a post type,
// comment parents) and returns the summary.
func (im *Importer) Finish(ctx context.Context) (*Summary, error) {
	if im.opts.DryRun {
		for _, oc := range im.pendingComments {
			im.sum.Kind("comments").Created += len(oc.item.Comments)
		}
		return im.sum, nil
	}
	for _, tp := range im.pendingTermParents {
		parent, ok := im.cachedTerm(tp.taxonomy, tp.parentSlug)
		if !ok || parent == tp.id {
			continue
		}
		err := im.st.Tx(ctx, func(tx store.Store) error {
			t, err := tx.GetTerm(ctx, tp.id)
			if err != nil {
				return err
			}
			_, err = im.site.ImportTermParent(ctx, tx, t, parent)
			return err
		})
		if err != nil {
			return im.sum, fmt.Errorf("term parents: %w", err)
		}
	}
	for _, pl := range im.pendingLinks {
		if err := ctx.Err(); err != nil {
			return im.sum, err
		}
		posts := im.maps[pl.source][mapPost]
		parent := posts[strconv.FormatInt(pl.parent, 10)]
		featured := posts[strconv.FormatInt(pl.featured, 10)]
		if parent == 0 && featured == 0 {
			if pl.parent != 0 {
				im.sum.note("parents not in the import (left top-level)", 1)
			}
			if pl.featured != 0 {
				im.sum.note("featured images not in the import (left unset)", 1)
			}
			continue
		}
		err := im.st.Tx(ctx, func(tx store.Store) error {
			_, err := im.site.ImportPostLinks(ctx, tx, pl.id, parent, featured)
			return err
		})
		if err != nil {
			return im.sum, fmt.Errorf("post links of %d: %w", pl.id, err)
		}
	}
	for _, oc := range im.pendingComments {
		posts, err := im.importMap(ctx, oc.source, mapPost)
		if err != nil {
			return im.sum, err
		}
		id, ok := posts[strconv.FormatInt(oc.item.PostID, 10)]
		if !ok {
			im.sum.Kind("comments").Skipped["their post (an item without a post type) is not in the import"] += len(oc.item.Comments)
			continue
		}
		if err := im.comments(ctx, oc.source, id, oc.item); err != nil {
			return im.sum, fmt.Errorf("%s: line %d: %w", oc.file, oc.item.Line, err)
		}
	}
	for _, cp := range im.pendingReplies {
		parent, ok := im.maps[cp.source][mapComment][strconv.FormatInt(cp.parent, 10)]
		if !ok {
			im.sum.note("replies whose parent comment is not in the import (left top-level)", 1)
			continue
		}
		err := im.st.Tx(ctx, func(tx store.Store) error {
			_, err := im.site.ImportCommentParent(ctx, tx, cp.id, parent)
			return err
		})
		if err != nil {
			return im.sum, fmt.Errorf("comment parents: %w", err)
		}
	}
	return im.sum, nil
}
