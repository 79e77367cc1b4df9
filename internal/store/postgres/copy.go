package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

// Importer returns the importer of a copy into PostgreSQL, writing with
// COPY in tx.
func (c *conns) Importer(tx sqlstore.Tx, count func()) store.Importer {
	return &importer{tx: tx.(*writeTx), count: count, types: map[string]map[string]string{}}
}

// importer writes rows with COPY inside Import's transaction.
type importer struct {
	tx    *writeTx
	count func()
	types map[string]map[string]string // table → column → data type
}

func (im *importer) columnTypes(ctx context.Context, table string) (map[string]string, error) {
	if m, ok := im.types[table]; ok {
		return m, nil
	}
	m := map[string]string{}
	conn, err := im.tx.ready(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
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
	im.count()
	conn, err := im.tx.ready(ctx)
	if err != nil {
		return err
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(conv)); err != nil {
		return sqlstore.Conflict(dialect{}, err, "import "+table)
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
			return sqlstore.WallClock(x), nil
		case string:
			return sqlstore.ParseTime(x)
		case []byte:
			return sqlstore.ParseTime(string(x))
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

// SetLastID advances table's id sequence to last (or to its largest id),
// so that the ids the copy set explicitly are never handed out again.
func (im *importer) SetLastID(ctx context.Context, table string, last int64) error {
	var hasID bool
	conn, err := im.tx.ready(ctx)
	if err != nil {
		return err
	}
	im.count()
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id')`, table).Scan(&hasID); err != nil {
		return fail("id counter of "+table, err)
	}
	if !hasID {
		return fmt.Errorf("postgres: import: table %s has no id column", table)
	}
	im.count()
	_, err = conn.Exec(ctx, `SELECT setval(pg_get_serial_sequence($1, 'id'), GREATEST(last, 1), last > 0)
		FROM (SELECT GREATEST($2::bigint, (SELECT COALESCE(MAX(id), 0) FROM `+pgx.Identifier{table}.Sanitize()+`)) AS last) n`,
		table, last)
	if err != nil {
		return fail("id counter of "+table, err)
	}
	return nil
}
