package sqlite

import (
	"context"
	"fmt"

	"github.com/folio-server/folio/internal/store"
)

var _ store.ImportMapStore = ops{}

// ImportedIDs returns the import map entries of one source and kind.
func (o ops) ImportedIDs(ctx context.Context, source, kind string) (map[string]int64, error) {
	rows, err := o.reader().query(ctx, `SELECT old_id, new_id FROM import_map WHERE source = ? AND kind = ?`, source, kind)
	if err != nil {
		return nil, fmt.Errorf("sqlite: import map %s: %w", kind, err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var old string
		var id int64
		if err := rows.Scan(&old, &id); err != nil {
			return nil, fmt.Errorf("sqlite: import map %s: %w", kind, err)
		}
		out[old] = id
	}
	return out, rows.Err()
}

// RecordImported inserts or replaces one import map entry.
func (o ops) RecordImported(ctx context.Context, source, kind, oldID string, newID int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO import_map (source, kind, old_id, new_id) VALUES (?, ?, ?, ?)
			ON CONFLICT (source, kind, old_id) DO UPDATE SET new_id = excluded.new_id`,
			source, kind, oldID, newID); err != nil {
			return false, fmt.Errorf("sqlite: record import %s %s: %w", kind, oldID, err)
		}
		return true, nil
	})
}
