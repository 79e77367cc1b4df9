// Package wxrexport writes a whole site as WXR 1.2 (WordPress eXtended RSS),
// the file WordPress's Tools → Export produces and its importer reads: the
// channel with the site's users, categories, tags and terms of the custom
// taxonomies, then one item per post, page, attachment and post of a
// custom type with its terms, meta and comments.
//
// The export streams: posts, terms, users, meta and comments are read in id
// order a bounded batch at a time (store.Exporter) and written as they
// come, so memory does not grow with the site. When the store can
// (store.Snapshotter), the whole export reads one consistent snapshot, so
// it can run while a server keeps writing to the same database.
//
// What is written follows WordPress's export_wp(): auto-drafts and
// revisions are left out, trashed posts are exported with the status
// trash (and the _wp_trash_meta_* post meta WordPress keeps), spam
// comments are left out and every other comment is exported with its
// stored status (1, 0, trash, post-trashed).
package wxrexport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// Version is the WXR version written.
const Version = "1.2"

// The namespaces of WXR 1.2, exactly as WordPress declares them.
const (
	NSExcerpt = "http://wordpress.org/export/1.2/excerpt/"
	NSContent = "http://purl.org/rss/1.0/modules/content/"
	NSWfw     = "http://wellformedweb.org/CommentAPI/"
	NSDC      = "http://purl.org/dc/elements/1.1/"
	NSWP      = "http://wordpress.org/export/1.2/"
)

// Options tune an export. The zero value is usable.
type Options struct {
	// SiteURL is the site's public URL without a trailing slash, used for
	// the channel link, wp:base_site_url and item links. Empty means the
	// configured site.url, or http:// and the configured listen address.
	SiteURL string
	// UploadsURL is the URL of the uploads root, for wp:attachment_url.
	// Empty means the configured media.public_url, or SiteURL/uploads.
	UploadsURL string
	// Generator names the program in the generator comment and element,
	// e.g. "Folio/1.4.0"; empty means "Folio".
	Generator string
	// Language is the channel's language; empty means "en-US".
	Language string
	// Now is the clock for the channel's pubDate; nil means time.Now.
	Now func() time.Time
	// BatchSize is how many posts (and terms, users) are read per query;
	// 0 means 100. Meta rows and comments are read up to 5 times as many
	// per query.
	BatchSize int
}

// Export writes the WXR of site to w. It reads the site through a
// store.Snapshotter snapshot when site.Storage() has one, and needs the store
// to implement store.Exporter. Output is buffered and flushed after every
// batch of items; on error, what was written so far is an incomplete
// document.
func Export(ctx context.Context, site *content.Site, w io.Writer, opts Options) error {
	cfg := site.Config()
	if opts.SiteURL == "" {
		opts.SiteURL = cfg.Site.URL
	}
	if opts.SiteURL == "" {
		addr := cfg.Addr
		if addr == "" {
			addr = "127.0.0.1:8080"
		}
		opts.SiteURL = "http://" + addr
	}
	opts.SiteURL = strings.TrimRight(opts.SiteURL, "/")
	if opts.UploadsURL == "" {
		opts.UploadsURL = cfg.Media.PublicURL
	}
	if opts.UploadsURL == "" {
		opts.UploadsURL = opts.SiteURL + "/uploads"
	}
	opts.UploadsURL = strings.TrimRight(opts.UploadsURL, "/")
	if opts.Generator == "" {
		opts.Generator = "Folio"
	}
	if opts.Language == "" {
		opts.Language = "en-US"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 100
	}
	// The effective settings (the configuration's, or those stored
	// through the settings route) name the site and give its time zone.
	set, err := site.Settings(ctx)
	if err != nil {
		return fmt.Errorf("wxrexport: %w", err)
	}
	run := func(st store.Store) error {
		ex, ok := st.(store.Exporter)
		if !ok {
			return fmt.Errorf("wxrexport: store %T cannot walk the site (no store.Exporter)", st)
		}
		e := &exporter{site: site, set: set, st: st, ex: ex, opts: opts, bw: bufio.NewWriterSize(w, 64<<10)}
		if err := e.run(ctx); err != nil {
			return err
		}
		if err := e.bw.Flush(); err != nil {
			return fmt.Errorf("wxrexport: write: %w", err)
		}
		return nil
	}
	if sn, ok := site.Storage().(store.Snapshotter); ok {
		return sn.ReadSnapshot(ctx, run)
	}
	return run(site.Storage())
}

// exporter is one export run.
type exporter struct {
	site *content.Site
	set  *content.Settings
	st   store.Store
	ex   store.Exporter
	opts Options
	bw   *bufio.Writer
	err  error // the first write error
}

// ws writes s unless a write already failed.
func (e *exporter) ws(parts ...string) {
	for _, s := range parts {
		if e.err != nil {
			return
		}
		_, e.err = e.bw.WriteString(s)
	}
}

// flush hands what is buffered to the writer.
func (e *exporter) flush() error {
	if e.err == nil {
		e.err = e.bw.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("wxrexport: write: %w", e.err)
	}
	return nil
}

// cdataEl writes <name>CDATA</name> on its own line.
func (e *exporter) cdataEl(indent, name, value string) {
	e.ws(indent, "<", name, ">", cdata(value), "</", name, ">\n")
}

// textEl writes <name>escaped text</name> on its own line.
func (e *exporter) textEl(indent, name, value string) {
	e.ws(indent, "<", name, ">", escText(value), "</", name, ">\n")
}

// intEl writes <name>n</name> on its own line.
func (e *exporter) intEl(indent, name string, n int64) {
	e.ws(indent, "<", name, ">", strconv.FormatInt(n, 10), "</", name, ">\n")
}

func (e *exporter) run(ctx context.Context) error {
	now := e.opts.Now().UTC()
	e.ws(`<?xml version="1.0" encoding="UTF-8" ?>
<!-- This is a WordPress eXtended RSS file generated by Folio as an export of your site. -->
<!-- It contains information about your site's posts, pages, comments, categories, and other content. -->
<!-- You may use this file to transfer that content from one site to another. -->
<!-- This file is not intended to serve as a complete backup of your site. -->

<!-- To import this information into a WordPress site follow these steps: -->
<!-- 1. Log in to that site as an administrator. -->
<!-- 2. Go to Tools: Import in the WordPress admin panel. -->
<!-- 3. Install the "WordPress" importer from the list. -->
<!-- 4. Activate & Run Importer. -->
<!-- 5. Upload this file using the form provided on that page. -->
<!-- 6. You will first be asked to map the authors in this export file to users -->
<!--    on the site. For each author, you may choose to map to an -->
<!--    existing user on the site or to create a new user. -->
<!-- 7. WordPress will then import each of the posts, pages, comments, categories, etc. -->
<!--    contained in this file into your site. -->

`)
	e.ws(`<!-- generator="`, escAttr(strings.ReplaceAll(e.opts.Generator, "--", "-")), `" created="`, now.Format("2006-01-02 15:04"), "\" -->\n")
	e.ws(`<rss version="2.0"
	xmlns:excerpt="` + NSExcerpt + `"
	xmlns:content="` + NSContent + `"
	xmlns:wfw="` + NSWfw + `"
	xmlns:dc="` + NSDC + `"
	xmlns:wp="` + NSWP + `"
>

<channel>
`)
	e.textEl("\t", "title", e.set.Title)
	e.textEl("\t", "link", e.opts.SiteURL)
	e.textEl("\t", "description", e.set.Description)
	e.textEl("\t", "pubDate", now.Format(rssDate))
	e.textEl("\t", "language", e.opts.Language)
	e.textEl("\t", "wp:wxr_version", Version)
	e.textEl("\t", "wp:base_site_url", e.opts.SiteURL)
	e.textEl("\t", "wp:base_blog_url", e.opts.SiteURL)
	e.ws("\n")
	if err := e.authors(ctx); err != nil {
		return err
	}
	e.ws("\n")
	if err := e.terms(ctx); err != nil {
		return err
	}
	e.ws("\n")
	e.textEl("\t", "generator", e.opts.Generator)
	e.ws("\n")
	if err := e.items(ctx); err != nil {
		return err
	}
	e.ws("</channel>\n</rss>\n")
	return e.flush()
}

// rssDate is the RSS date layout WordPress writes (always in UTC).
const rssDate = "Mon, 02 Jan 2006 15:04:05 +0000"

// mysqlDate formats t as WordPress stores dates; the zero time is
// 0000-00-00 00:00:00.
func mysqlDate(t time.Time) string {
	if t.IsZero() {
		return "0000-00-00 00:00:00"
	}
	return t.Format("2006-01-02 15:04:05")
}
