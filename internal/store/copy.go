package store

import (
	"context"
	"fmt"
	"sort"
)

// Copier is implemented by stores that can export and import a whole site
// row by row, as `folio db copy` does between SQLite and PostgreSQL. It is
// kept out of Store: only tools need it.
//
// Rows travel as plain values: int64, float64, string, []byte, bool,
// time.Time or nil. The exporting store gives its native values and the
// importing store converts them to its column types (a date arrives as a
// time.Time or as 'YYYY-MM-DD HH:MM:SS' text, the zero date as the zero
// time or '0000-00-00 00:00:00'; a flag as a bool or 0/1).
type Copier interface {
	// CopyTables lists the tables that hold the site, every table after
	// the tables its foreign keys reference. Schema bookkeeping (applied
	// migrations, the version counter, id counters) is not listed.
	CopyTables(ctx context.Context) ([]string, error)
	// ExportRows calls fn with the column names and the values of every
	// row of table.
	ExportRows(ctx context.Context, table string, fn func(cols []string, row []any) error) error
	// LastIDs returns, per table with generated ids, the last id handed
	// out, which may exceed the largest id left in the table.
	LastIDs(ctx context.Context) (map[string]int64, error)
	// Import runs fn in one write transaction that first empties every
	// table CopyTables lists (the rows migrations seeded included); the
	// copy is all or nothing.
	Import(ctx context.Context, fn func(Importer) error) error
}

// Importer writes rows inside Copier.Import's transaction.
type Importer interface {
	// InsertRows stores rows of table, ids included; cols names the
	// values of each row.
	InsertRows(ctx context.Context, table string, cols []string, rows [][]any) error
	// SetLastID makes ids generated for table from now on greater than
	// last and than every id in the table.
	SetLastID(ctx context.Context, table string, last int64) error
}

// SortTables orders tables so that every table comes after the tables it
// references (refs maps a table to the tables its foreign keys name);
// otherwise tables keep name order. References to unlisted tables and to
// the table itself are ignored; a cycle is an error.
func SortTables(tables []string, refs map[string][]string) ([]string, error) {
	names := append([]string(nil), tables...)
	sort.Strings(names)
	listed := map[string]bool{}
	for _, t := range names {
		listed[t] = true
	}
	const (
		unseen = iota
		visiting
		done
	)
	state := map[string]int{}
	var out []string
	var visit func(t string) error
	visit = func(t string) error {
		switch state[t] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("store: foreign keys of table %s form a cycle", t)
		}
		state[t] = visiting
		deps := append([]string(nil), refs[t]...)
		sort.Strings(deps)
		for _, d := range deps {
			if d != t && listed[d] {
				if err := visit(d); err != nil {
					return err
				}
			}
		}
		state[t] = done
		out = append(out, t)
		return nil
	}
	for _, t := range names {
		if err := visit(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}
