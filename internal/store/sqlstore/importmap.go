package sqlstore

import (
	"context"
	"fmt"
)

// ImportedIDs returns the import map entries of one source and kind.
func (o ops) ImportedIDs(ctx context.Context, source, kind string) (map[string]int64, error) {
	out := map[string]int64{}
	err := o.reader().query(ctx, func(rows Rows) error {
		var old string
		var id int64
		if err := rows.Scan(&old, &id); err != nil {
			return err
		}
		out[old] = id
		return nil
	}, `SELECT old_id, new_id FROM import_map WHERE source = $1 AND kind = $2`, source, kind)
	if err != nil {
		return nil, o.db.fail("import map "+kind, err)
	}
	return out, nil
}

// RecordImported inserts or replaces one import map entry.
func (o ops) RecordImported(ctx context.Context, source, kind, oldID string, newID int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO import_map (source, kind, old_id, new_id) VALUES ($1, $2, $3, $4)
			ON CONFLICT (source, kind, old_id) DO UPDATE SET new_id = excluded.new_id`,
			source, kind, oldID, newID); err != nil {
			return false, o.db.fail(fmt.Sprintf("record import %s %s", kind, oldID), err)
		}
		return true, nil
	})
}
