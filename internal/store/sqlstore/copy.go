package sqlstore

import (
	"context"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// QuoteIdent quotes an SQL identifier.
func QuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// CopyTables lists the site's tables, referenced tables first.
func (db *DB) CopyTables(ctx context.Context) ([]string, error) {
	cat := db.d.Catalog()
	q := db.reader()
	var tables []string
	if err := collect(ctx, q, &tables, scanString, cat.Tables); err != nil {
		return nil, db.fail("list tables", err)
	}
	refs := map[string][]string{}
	err := q.query(ctx, func(rows Rows) error {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			return err
		}
		refs[from] = append(refs[from], to)
		return nil
	}, cat.ForeignKeys)
	if err != nil {
		return nil, db.fail("list foreign keys", err)
	}
	return store.SortTables(tables, refs)
}

// ExportRows streams every row of table with the driver's values, dates as
// wall-clock time.Time values.
func (db *DB) ExportRows(ctx context.Context, table string, fn func(cols []string, row []any) error) error {
	var cols []string
	err := db.reader().query(ctx, func(rows Rows) error {
		if cols == nil {
			cols = rows.Columns()
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			if t, ok := v.(time.Time); ok {
				vals[i] = WallClock(t)
			}
		}
		return fn(cols, vals)
	}, db.exportQuery(table))
	if err != nil {
		return db.fail("export "+table, err)
	}
	return nil
}

// exportQuery returns the query ExportRows reads table with. Where term
// counts are slotted (TermCountSlotter) a term's count is read whole, and
// a link to a term that is gone is left out (with no foreign key, a node
// of the previous release deleting a term during a rolling upgrade
// leaves its links behind; a store with the key would refuse them).
func (db *DB) exportQuery(table string) string {
	if db.termSlot != "" {
		switch table {
		case "terms":
			return `SELECT id, taxonomy, name, slug, description, parent, ` + db.termCount("terms") + ` AS count FROM terms`
		case "term_relationships":
			return `SELECT r.* FROM term_relationships r WHERE EXISTS (SELECT 1 FROM terms t WHERE t.id = r.term_id)`
		}
	}
	return `SELECT * FROM ` + QuoteIdent(table)
}

// LastIDs returns, per table with generated ids, the last id handed out.
func (db *DB) LastIDs(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := db.reader().query(ctx, func(rows Rows) error {
		var name string
		var last int64
		if err := rows.Scan(&name, &last); err != nil {
			return err
		}
		out[name] = last
		return nil
	}, db.d.Catalog().LastIDs)
	if err != nil {
		return nil, db.fail("read id counters", err)
	}
	return out, nil
}

// Import empties the site's tables and runs fn with the database package's
// importer, in one transaction (Store.Tx's) that bumps the version once.
func (db *DB) Import(ctx context.Context, fn func(store.Importer) error) error {
	tables, err := db.CopyTables(ctx)
	if err != nil {
		return err
	}
	return db.Tx(ctx, func(s store.Store) error {
		t := s.(*txStore)
		t.tx.dirty = true
		q := querier{db: db, c: t.tx.tx}
		// The slots go first (the copied counts are whole), then every
		// table before the tables it references.
		var empty []string
		if db.termSlot != "" {
			empty = append(empty, "term_counts")
		}
		for i := len(tables) - 1; i >= 0; i-- {
			empty = append(empty, tables[i])
		}
		for _, table := range empty {
			if _, err := q.exec(ctx, `DELETE FROM `+QuoteIdent(table)); err != nil {
				return db.fail("empty "+table, err)
			}
		}
		return fn(db.c.Importer(t.tx.tx, func() { db.stmts.Add(1) }))
	})
}
