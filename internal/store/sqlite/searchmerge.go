package sqlite

import (
	"context"
	"fmt"
	"time"
)

// A full-text index grows in segments: each batch that writes posts adds
// one, and FTS5 merges a level's segments into one on the next level
// once there are ftsAutomerge of them. A site written one post at a time
// keeps up to three segments on each level, and every search reads each
// segment: on a 160,000-post site written that way (12 segments) a word
// in no post was answered 1,800–2,820 times a second, and 3,860–5,750
// once the index was one segment; a common word 980–1,350 against
// 1,700–2,180.
// Only bulk loads merged the index (CompactSearchIndex), and merging a
// whole index at once holds the writer for a second at that size.

// searchSegmentsMax is how many segments a full-text index may have
// before Optimize merges it.
const searchSegmentsMax = 8

// searchMergePages bounds one merge step, in pages of the index written
// (FTS5's 'merge' command): each step is a write transaction of its own
// in the writer's turn, a few milliseconds long, so that writes go on
// between the steps.
const searchMergePages = 16

// searchMergePause is the pause between two merge steps.
const searchMergePause = 2 * time.Millisecond

// ftsTablesQuery selects the names of the database's FTS5 tables.
const ftsTablesQuery = `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5%'`

// ftsTables returns the names of the database's FTS5 tables.
func (db *DB) ftsTables(ctx context.Context) ([]string, error) {
	rows, err := db.c.read.QueryContext(ctx, ftsTablesQuery+` ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// searchSegments returns how many segments the FTS5 table's index is in.
func (db *DB) searchSegments(ctx context.Context, table string) (int, error) {
	var n int
	err := db.c.read.QueryRowContext(ctx, `SELECT COUNT(DISTINCT segid) FROM `+table+`_idx`).Scan(&n)
	return n, err
}

// mergeSearchIndexes merges each full-text index in more than
// searchSegmentsMax segments into one, a step of searchMergePages at a
// time (FTS5's 'merge' with a negative count merges whatever the levels),
// until a step finds nothing left to merge or ctx ends.
func (db *DB) mergeSearchIndexes(ctx context.Context) error {
	tables, err := db.ftsTables(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: merge search index: %w", err)
	}
	for _, table := range tables {
		n, err := db.searchSegments(ctx, table)
		if err != nil {
			return fmt.Errorf("sqlite: merge search index %s: %w", table, err)
		}
		if n <= searchSegmentsMax {
			continue
		}
		for {
			merged, err := db.mergeSearchStep(ctx, table)
			if err != nil {
				return fmt.Errorf("sqlite: merge search index %s: %w", table, err)
			}
			if !merged {
				break
			}
			select {
			case <-ctx.Done():
				return nil // the rest at the next run
			case <-time.After(searchMergePause):
			}
		}
	}
	return nil
}

// mergeSearchStep runs one merge step on table in a write transaction of
// its own and reports whether it merged anything (FTS5 writes no row when
// nothing is left to merge).
func (db *DB) mergeSearchStep(ctx context.Context, table string) (merged bool, err error) {
	tx, err := db.c.Begin(ctx, true)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(ctx)
		}
	}()
	changes := func() (int64, error) {
		var n int64
		err := scanOne(ctx, tx, `SELECT total_changes()`, &n)
		return n, err
	}
	before, err := changes()
	if err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO `+table+` (`+table+`, rank) VALUES ('merge', ?)`, -searchMergePages); err != nil {
		return false, err
	}
	after, err := changes()
	if err != nil {
		return false, err
	}
	// The command itself counts as one change.
	return after-before > 1, tx.Commit(ctx)
}
