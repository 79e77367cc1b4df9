package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

// Importer returns the importer of a copy into SQLite, writing in tx.
func (c *conns) Importer(tx sqlstore.Tx, count func()) store.Importer {
	return importer{tx: tx.(*member).b.tx, count: count}
}

// importer inserts rows inside Import's transaction.
type importer struct {
	tx    *sql.Tx
	count func()
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
		quoted[i] = sqlstore.QuoteIdent(c)
		marks[i] = "?"
	}
	st, err := im.tx.PrepareContext(ctx, `INSERT INTO `+sqlstore.QuoteIdent(table)+` (`+strings.Join(quoted, ", ")+
		`) VALUES (`+strings.Join(marks, ", ")+`)`)
	if err != nil {
		return sqlstore.Fail(dialect{}, "import "+table, err)
	}
	defer st.Close()
	vals := make([]any, len(cols))
	for _, row := range rows {
		for i, v := range row {
			switch x := v.(type) {
			case time.Time:
				vals[i] = sqlstore.FormatTime(x)
			case bool:
				vals[i] = int64(0)
				if x {
					vals[i] = int64(1)
				}
			default:
				vals[i] = v
			}
		}
		im.count()
		if _, err := st.ExecContext(ctx, vals...); err != nil {
			return sqlstore.Conflict(dialect{}, err, "import "+table)
		}
	}
	return nil
}

// SetLastID sets table's AUTOINCREMENT counter to last, or to its largest
// id when that is higher.
func (im importer) SetLastID(ctx context.Context, table string, last int64) error {
	fail := func(err error) error { return sqlstore.Fail(dialect{}, "id counter of "+table, err) }
	im.count()
	res, err := im.tx.ExecContext(ctx, `UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?`, last, table)
	if err != nil {
		return fail(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fail(err)
	} else if n == 0 {
		im.count()
		if _, err := im.tx.ExecContext(ctx, `INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`, table, last); err != nil {
			return fail(err)
		}
	}
	return nil
}
