package sqlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
)

var _ store.Copier = (*DB)(nil)

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// CopyTables lists the site's tables, referenced tables first.
func (db *DB) CopyTables(ctx context.Context) ([]string, error) {
	q := db.ops.reader()
	rows, err := q.query(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'store_version')`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlite: list tables: %w", err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list tables: %w", err)
	}
	refs := map[string][]string{}
	for _, t := range tables {
		rows, err := q.query(ctx, `SELECT "table" FROM pragma_foreign_key_list(?)`, t)
		if err != nil {
			return nil, fmt.Errorf("sqlite: foreign keys of %s: %w", t, err)
		}
		for rows.Next() {
			var to string
			if err := rows.Scan(&to); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: foreign keys of %s: %w", t, err)
			}
			refs[t] = append(refs[t], to)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlite: foreign keys of %s: %w", t, err)
		}
	}
	return store.SortTables(tables, refs)
}

// ExportRows streams every row of table with SQLite's native values.
func (db *DB) ExportRows(ctx context.Context, table string, fn func(cols []string, row []any) error) error {
	rows, err := db.ops.reader().query(ctx, `SELECT * FROM `+quoteIdent(table))
	if err != nil {
		return fmt.Errorf("sqlite: export %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("sqlite: export %s: %w", table, err)
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("sqlite: export %s: %w", table, err)
		}
		if err := fn(cols, vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlite: export %s: %w", table, err)
	}
	return nil
}

// LastIDs returns the AUTOINCREMENT counters (sqlite_sequence).
func (db *DB) LastIDs(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	rows, err := db.ops.reader().query(ctx, `SELECT name, seq FROM sqlite_sequence`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read id counters: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var seq int64
		if err := rows.Scan(&name, &seq); err != nil {
			return nil, fmt.Errorf("sqlite: read id counters: %w", err)
		}
		out[name] = seq
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: read id counters: %w", err)
	}
	return out, nil
}

// Import empties the site's tables and runs fn in one write transaction
// that bumps the version once.
func (db *DB) Import(ctx context.Context, fn func(store.Importer) error) error {
	tables, err := db.CopyTables(ctx)
	if err != nil {
		return err
	}
	return db.Tx(ctx, func(s store.Store) error {
		t := s.(*txStore)
		t.tx.dirty = true
		q := querier{db: db, tx: t.tx.tx}
		for i := len(tables) - 1; i >= 0; i-- {
			if _, err := q.exec(ctx, `DELETE FROM `+quoteIdent(tables[i])); err != nil {
				return fmt.Errorf("sqlite: empty %s: %w", tables[i], err)
			}
		}
		return fn(importer{q: q})
	})
}

// importer inserts rows inside Import's transaction.
type importer struct {
	q querier
}

// InsertRows converts rows to SQLite's storage (dates as text, flags as
// integers) and inserts them with one prepared statement.
func (im importer) InsertRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	quoted := make([]string, len(cols))
	marks := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quoteIdent(c)
		marks[i] = "?"
	}
	st, err := im.q.tx.PrepareContext(ctx, `INSERT INTO `+quoteIdent(table)+` (`+strings.Join(quoted, ", ")+
		`) VALUES (`+strings.Join(marks, ", ")+`)`)
	if err != nil {
		return fmt.Errorf("sqlite: import %s: %w", table, err)
	}
	defer st.Close()
	vals := make([]any, len(cols))
	for _, row := range rows {
		for i, v := range row {
			switch x := v.(type) {
			case time.Time:
				vals[i] = fmtTime(x)
			case bool:
				if x {
					vals[i] = int64(1)
				} else {
					vals[i] = int64(0)
				}
			default:
				vals[i] = v
			}
		}
		im.q.db.stmts.Add(1)
		if _, err := st.ExecContext(ctx, vals...); err != nil {
			return conflict(err, "import "+table)
		}
	}
	return nil
}

// SetLastID sets table's AUTOINCREMENT counter to last, or to its largest
// id when that is higher.
func (im importer) SetLastID(ctx context.Context, table string, last int64) error {
	res, err := im.q.exec(ctx, `UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?`, last, table)
	if err != nil {
		return fmt.Errorf("sqlite: id counter of %s: %w", table, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: id counter of %s: %w", table, err)
	} else if n == 0 {
		if _, err := im.q.exec(ctx, `INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`, table, last); err != nil {
			return fmt.Errorf("sqlite: id counter of %s: %w", table, err)
		}
	}
	return nil
}
