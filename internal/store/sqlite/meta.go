package sqlite

import (
	"context"
	"fmt"

	"github.com/folio-server/folio/internal/store"
)

var _ store.PostMetaStore = ops{}

// PostMeta loads the meta of many posts in one query.
func (o ops) PostMeta(ctx context.Context, postIDs []int64, keys []string) (map[int64]map[string][]string, error) {
	out := map[int64]map[string][]string{}
	if len(postIDs) == 0 {
		return out, nil
	}
	query := `SELECT post_id, key, value FROM post_meta WHERE post_id IN (SELECT value FROM json_each(?))`
	args := []any{jsonList(postIDs)}
	if len(keys) > 0 {
		query += ` AND key IN (SELECT value FROM json_each(?))`
		args = append(args, jsonList(keys))
	}
	rows, err := o.reader().query(ctx, query+` ORDER BY post_id, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: post meta: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var k, v string
		if err := rows.Scan(&id, &k, &v); err != nil {
			return nil, fmt.Errorf("sqlite: post meta: %w", err)
		}
		m := out[id]
		if m == nil {
			m = map[string][]string{}
			out[id] = m
		}
		m[k] = append(m[k], v)
	}
	return out, rows.Err()
}

// SetPostMeta replaces the values of one key of a post.
func (o ops) SetPostMeta(ctx context.Context, postID int64, key string, values []string) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `DELETE FROM post_meta WHERE post_id = ? AND key = ?`, postID, key); err != nil {
			return false, fmt.Errorf("sqlite: set post meta %d %q: %w", postID, key, err)
		}
		for _, v := range values {
			if _, err := q.exec(ctx, `INSERT INTO post_meta (post_id, key, value) VALUES (?, ?, ?)`, postID, key, v); err != nil {
				return false, fmt.Errorf("sqlite: set post meta %d %q: %w", postID, key, err)
			}
		}
		return true, nil
	})
}

// PostIDsWithMeta returns the posts having key (with value when given).
func (o ops) PostIDsWithMeta(ctx context.Context, key string, value *string) ([]int64, error) {
	query := `SELECT DISTINCT post_id FROM post_meta WHERE key = ?`
	args := []any{key}
	if value != nil {
		query += ` AND value = ?`
		args = append(args, *value)
	}
	rows, err := o.reader().query(ctx, query+` ORDER BY post_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: posts with meta %q: %w", key, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: posts with meta %q: %w", key, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
