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
	"os"
	"path/filepath"

	"github.com/folio-server/folio/internal/content"
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
		if _, err := site.Storage().GetUserByLogin(ctx, login); errors.Is(err, store.ErrNotFound) {
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
		site: site, st: site.Storage(), opts: opts, sum: newSummary(opts.DryRun),
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
