package sqlstore

import (
	"reflect"
	"slices"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

// TestCountsOnlyKnowsEveryFilter fails when store.PostQuery gains a field:
// countsOnly must then learn whether the new field filters rows, or totals
// from post_counts would ignore it.
func TestCountsOnlyKnowsEveryFilter(t *testing.T) {
	known := []string{
		// What post_counts answers, and what does not filter.
		"Types", "Statuses", "Visibility", "SearchProtected", "SearchPassword",
		"OrderBy", "Order", "StickyFirst", "Offset", "Limit",
		// The filters countsOnly checks.
		"Search", "After", "Before", "Authors", "AuthorExclude", "Include", "Exclude",
		"Parents", "ParentsSet", "ParentExclude", "Slugs", "MenuOrder", "MimeTypes",
		"MimePrefixes", "Year", "Month", "Day", "Terms", "ParentVisibility",
	}
	typ := reflect.TypeFor[store.PostQuery]()
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !slices.Contains(known, name) {
			t.Errorf("store.PostQuery.%s is new: teach countsOnly about it", name)
		}
	}
	if !countsOnly(&store.PostQuery{Types: []string{"post"}, Include: []int64{}, Search: "  "}) {
		t.Error("empty filters should leave the query to post_counts")
	}
	for _, q := range []store.PostQuery{
		{Search: "x"}, {Include: []int64{1}}, {ParentsSet: true}, {Year: 2020},
		{Terms: []store.TermFilter{{}}}, {MimePrefixes: []string{"image/"}},
	} {
		if countsOnly(&q) {
			t.Errorf("countsOnly(%+v) = true, want false", q)
		}
	}
}
