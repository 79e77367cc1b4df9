package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store"
)

var _ store.Copier = (*DB)(nil)

// bookkeeping are the tables CopyTables leaves out.
var bookkeeping = map[string]bool{"schema_migrations": true, "store_version": true, "id_counters": true}

// CopyTables lists the site's tables of the current schema, referenced
// tables first.
func (db *DB) CopyTables(ctx context.Context) ([]string, error) {
	var tables []string
	err := db.ops.reader().query(ctx, func(rows pgx.Rows) error {
		var t string
		if err := rows.Scan(&t); err != nil {
			return err
		}
		if !bookkeeping[t] {
			tables = append(tables, t)
		}
		return nil
	}, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
	if err != nil {
		return nil, fail("list tables", err)
	}
	refs := map[string][]string{}
	err = db.ops.reader().query(ctx, func(rows pgx.Rows) error {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			return err
		}
		refs[from] = append(refs[from], to)
		return nil
	}, `SELECT f.relname, t.relname FROM pg_constraint c
		JOIN pg_class f ON f.oid = c.conrelid JOIN pg_class t ON t.oid = c.confrelid
		WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, fail("list foreign keys", err)
	}
	return store.SortTables(tables, refs)
}

// ExportRows streams every row of table.
func (db *DB) ExportRows(ctx context.Context, table string, fn func(cols []string, row []any) error) error {
	var cols []string
	err := db.ops.reader().query(ctx, func(rows pgx.Rows) error {
		if cols == nil {
			for _, f := range rows.FieldDescriptions() {
				cols = append(cols, f.Name)
			}
		}
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		for i, v := range vals {
			if t, ok := v.(time.Time); ok {
				vals[i] = readTime(t)
			}
		}
		return fn(cols, vals)
	}, `SELECT * FROM `+pgx.Identifier{table}.Sanitize())
	if err != nil {
		return fail("export "+table, err)
	}
	return nil
}

// LastIDs returns the id counters.
func (db *DB) LastIDs(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := db.ops.reader().query(ctx, func(rows pgx.Rows) error {
		var name string
		var last int64
		if err := rows.Scan(&name, &last); err != nil {
			return err
		}
		out[name] = last
		return nil
	}, `SELECT name, last FROM id_counters`)
	if err != nil {
		return nil, fail("read id counters", err)
	}
	return out, nil
}

// Import empties the site's tables and runs fn, in one transaction that
// holds the write lock and bumps the version once.
func (db *DB) Import(ctx context.Context, fn func(store.Importer) error) error {
	tables, err := db.CopyTables(ctx)
	if err != nil {
		return err
	}
	return db.Tx(ctx, func(s store.Store) error {
		t := s.(*txStore)
		t.tx.dirty = true
		im := &importer{t: t, types: map[string]map[string]string{}}
		for i := len(tables) - 1; i >= 0; i-- {
			if _, err := t.tx.tx.Exec(ctx, `DELETE FROM `+pgx.Identifier{tables[i]}.Sanitize()); err != nil {
				return fail("empty "+tables[i], err)
			}
		}
		return fn(im)
	})
}

// importer writes rows with COPY inside Import's transaction.
type importer struct {
	t     *txStore
	types map[string]map[string]string // table → column → data type
}

func (im *importer) columnTypes(ctx context.Context, table string) (map[string]string, error) {
	if m, ok := im.types[table]; ok {
		return m, nil
	}
	m := map[string]string{}
	rows, err := im.t.tx.tx.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1`, table)
	if err != nil {
		return nil, fail("columns of "+table, err)
	}
	for rows.Next() {
		var c, typ string
		if err := rows.Scan(&c, &typ); err != nil {
			rows.Close()
			return nil, fail("columns of "+table, err)
		}
		m[c] = typ
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fail("columns of "+table, err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("postgres: import: no table %s", table)
	}
	im.types[table] = m
	return m, nil
}

// InsertRows converts rows to the table's column types and copies them in.
func (im *importer) InsertRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	types, err := im.columnTypes(ctx, table)
	if err != nil {
		return err
	}
	for _, c := range cols {
		if _, ok := types[c]; !ok {
			return fmt.Errorf("postgres: import %s: the destination has no column %s", table, c)
		}
	}
	conv := make([][]any, len(rows))
	for i, row := range rows {
		out := make([]any, len(row))
		for j, v := range row {
			x, err := convert(v, types[cols[j]])
			if err != nil {
				return fmt.Errorf("postgres: import %s.%s: %w", table, cols[j], err)
			}
			out[j] = x
		}
		conv[i] = out
	}
	im.t.db.stmts.Add(1)
	if _, err := im.t.tx.tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(conv)); err != nil {
		return conflict(err, "import "+table)
	}
	return nil
}

// convert turns a portable value into one for a column of type typ.
func convert(v any, typ string) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "timestamp without time zone", "timestamp with time zone":
		switch x := v.(type) {
		case time.Time:
			return pgTime(x), nil
		case string:
			return parseDate(x)
		case []byte:
			return parseDate(string(x))
		}
	case "boolean":
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		case string:
			return strconv.ParseBool(x)
		}
	case "bigint", "integer", "smallint":
		switch x := v.(type) {
		case int64:
			return x, nil
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		case float64:
			return int64(x), nil
		case string:
			return strconv.ParseInt(x, 10, 64)
		}
	case "text", "character varying":
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		}
	default:
		return v, nil
	}
	return nil, fmt.Errorf("cannot store %T %v as %s", v, v, typ)
}

// parseDate reads SQLite's date text; the zero date and the empty string
// are the zero time.
func parseDate(s string) (time.Time, error) {
	if s == "" || s == "0000-00-00 00:00:00" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation("2006-01-02 15:04:05", s, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad date %q: %w", s, err)
	}
	return t, nil
}

// SetLastID advances table's id counter to last (or to its largest id).
func (im *importer) SetLastID(ctx context.Context, table string, last int64) error {
	q := querier{db: im.t.db, r: im.t.tx.tx}
	var hasID bool
	if err := q.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id')`, table).Scan(&hasID); err != nil {
		return fail("id counter of "+table, err)
	}
	if !hasID {
		return fmt.Errorf("postgres: import: table %s has no id column", table)
	}
	_, err := q.exec(ctx, `INSERT INTO id_counters (name, last)
		VALUES ($1, GREATEST($2, (SELECT COALESCE(MAX(id), 0) FROM `+pgx.Identifier{table}.Sanitize()+`)))
		ON CONFLICT (name) DO UPDATE SET last = excluded.last`, table, last)
	if err != nil {
		return fail("id counter of "+table, err)
	}
	return nil
}
