package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// GetOption returns an option's value; store.ErrNotFound when unset.
func (o ops) GetOption(ctx context.Context, name string) (string, error) {
	var v string
	err := o.reader().queryRow(ctx, `SELECT value FROM options WHERE name = $1`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", o.db.notFound(fmt.Sprintf("option %q", name))
	}
	if err != nil {
		return "", o.db.fail(fmt.Sprintf("get option %q", name), err)
	}
	return v, nil
}

// SetOption sets an option, replacing its value.
func (o ops) SetOption(ctx context.Context, name, value string) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO options (name, value) VALUES ($1, $2)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, value); err != nil {
			return false, o.db.fail(fmt.Sprintf("set option %q", name), err)
		}
		return true, nil
	})
}

// AddOption sets an option only when it is unset and returns the value
// stored afterwards. It counts as a write only when it inserted. A
// concurrent insert of the same name from another process waits for the
// first to commit and then reads its value.
func (o ops) AddOption(ctx context.Context, name, value string) (string, error) {
	var stored string
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		what := fmt.Sprintf("add option %q", name)
		res, err := q.exec(ctx, `INSERT INTO options (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, value)
		if err != nil {
			return false, o.db.fail(what, err)
		}
		n, err := o.db.rowsAffected(res, what)
		if err != nil {
			return false, err
		}
		if n > 0 {
			stored = value
			return true, nil
		}
		if err := q.queryRow(ctx, `SELECT value FROM options WHERE name = $1`, name).Scan(&stored); err != nil {
			return false, o.db.fail(what, err)
		}
		return false, nil
	})
	return stored, err
}
