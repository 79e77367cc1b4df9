package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/folio-server/folio/internal/store"
)

// GetOption returns an option's value; store.ErrNotFound when unset.
func (o ops) GetOption(ctx context.Context, name string) (string, error) {
	var v string
	err := o.reader().queryRow(ctx, `SELECT value FROM options WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("sqlite: option %q: %w", name, store.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("sqlite: get option %q: %w", name, err)
	}
	return v, nil
}

// SetOption sets an option, replacing its value.
func (o ops) SetOption(ctx context.Context, name, value string) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO options (name, value) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, value); err != nil {
			return false, fmt.Errorf("sqlite: set option %q: %w", name, err)
		}
		return true, nil
	})
}

// AddOption sets an option only when it is unset and returns the value
// stored afterwards. It counts as a write only when it inserted.
func (o ops) AddOption(ctx context.Context, name, value string) (string, error) {
	var stored string
	err := o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `INSERT OR IGNORE INTO options (name, value) VALUES (?, ?)`, name, value)
		if err != nil {
			return false, fmt.Errorf("sqlite: add option %q: %w", name, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: add option %q: %w", name, err)
		}
		if n > 0 {
			stored = value
			return true, nil
		}
		if err := q.queryRow(ctx, `SELECT value FROM options WHERE name = ?`, name).Scan(&stored); err != nil {
			return false, fmt.Errorf("sqlite: add option %q: %w", name, err)
		}
		return false, nil
	})
	return stored, err
}
