package wxrimport

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/folio-server/folio/internal/wxr"
)

// Count is what an import did with the records of one kind.
type Count struct {
	// Created is how many records were stored (or, in a dry run, would
	// be).
	Created int
	// Existing is how many were found already here: imported by an earlier
	// run, or matched (users by login, terms by taxonomy and slug).
	Existing int
	// Skipped counts the records left out, per reason.
	Skipped map[string]int
}

// SkippedTotal is the number of records skipped for any reason.
func (c *Count) SkippedTotal() int {
	n := 0
	for _, v := range c.Skipped {
		n += v
	}
	return n
}

// Summary is the outcome of an import: counts per kind of record, notes
// about data that has no place here, and the warnings of the reader.
type Summary struct {
	// DryRun is true when nothing was written.
	DryRun bool
	kinds  map[string]*Count
	order  []string
	// Notes counts other facts worth telling (attachments kept as remote
	// URLs, meta not kept, ...), per note.
	Notes map[string]int
	// Warnings are the problems worked around, per file.
	Warnings []string
}

func newSummary(dry bool) *Summary {
	return &Summary{DryRun: dry, kinds: map[string]*Count{}, Notes: map[string]int{}}
}

// kindOrder is the order of the well-known kinds in the table; other kinds
// (custom post types and taxonomies) follow in the order first seen.
var kindOrder = []string{"authors", "categories", "tags", "posts", "pages", "attachments", "comments", "post meta"}

// Kind returns the count of kind, creating it.
func (s *Summary) Kind(kind string) *Count {
	c, ok := s.kinds[kind]
	if !ok {
		c = &Count{Skipped: map[string]int{}}
		s.kinds[kind] = c
		s.order = append(s.order, kind)
	}
	return c
}

// Kinds returns the kinds counted, in table order.
func (s *Summary) Kinds() []string {
	var out []string
	for _, k := range kindOrder {
		if _, ok := s.kinds[k]; ok {
			out = append(out, k)
		}
	}
	for _, k := range s.order {
		if !slices.Contains(kindOrder, k) {
			out = append(out, k)
		}
	}
	return out
}

func (s *Summary) created(kind string)      { s.Kind(kind).Created++ }
func (s *Summary) existing(kind string)     { s.Kind(kind).Existing++ }
func (s *Summary) skip(kind, reason string) { s.Kind(kind).Skipped[reason]++ }
func (s *Summary) note(note string, n int)  { s.Notes[note] += n }
func (s *Summary) warn(file string, w wxr.Warning) {
	s.Warnings = append(s.Warnings, file+": "+w.String())
}

// Write prints the summary as a table: one row per kind with how many
// records were created, found existing and skipped, then each skip reason,
// the notes and the warnings.
func (s *Summary) Write(w io.Writer) error {
	created := "CREATED"
	if s.DryRun {
		created = "WOULD CREATE"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "KIND\t%s\tEXISTING\tSKIPPED\t\n", created)
	for _, k := range s.Kinds() {
		c := s.kinds[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", k, c.Created, c.Existing, c.SkippedTotal())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var lines []string
	for _, k := range s.Kinds() {
		c := s.kinds[k]
		for _, r := range slices.Sorted(maps.Keys(c.Skipped)) {
			lines = append(lines, fmt.Sprintf("skipped %d %s: %s", c.Skipped[r], k, r))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(s.Notes)) {
		lines = append(lines, fmt.Sprintf("%d %s", s.Notes[n], n))
	}
	if len(s.Warnings) > 0 {
		lines = append(lines, fmt.Sprintf("%d warnings:", len(s.Warnings)))
		for _, wn := range s.Warnings {
			lines = append(lines, "  "+wn)
		}
	}
	if len(lines) > 0 {
		if _, err := io.WriteString(w, "\n"+strings.Join(lines, "\n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}
