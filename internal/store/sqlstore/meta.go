package sqlstore

import (
	"context"
	"fmt"
)

// PostMeta loads the meta of many posts in one query.
func (o ops) PostMeta(ctx context.Context, postIDs []int64, keys []string) (map[int64]map[string][]string, error) {
	out := map[int64]map[string][]string{}
	if len(postIDs) == 0 {
		return out, nil
	}
	a := &Args{}
	query := `SELECT post_id, key, value FROM post_meta WHERE ` + inExpr(o.db.d, a, "post_id", postIDs, false)
	if len(keys) > 0 {
		query += ` AND ` + inExpr(o.db.d, a, "key", keys, false)
	}
	err := o.reader().query(ctx, func(rows Rows) error {
		var id int64
		var k, v string
		if err := rows.Scan(&id, &k, &v); err != nil {
			return err
		}
		m := out[id]
		if m == nil {
			m = map[string][]string{}
			out[id] = m
		}
		m[k] = append(m[k], v)
		return nil
	}, query+` ORDER BY post_id, id`, a.vals...)
	if err != nil {
		return nil, o.db.fail("post meta", err)
	}
	return out, nil
}

// SetPostMeta replaces the values of one key of a post.
func (o ops) SetPostMeta(ctx context.Context, postID int64, key string, values []string) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `DELETE FROM post_meta WHERE post_id = $1 AND key = $2`, postID, key); err != nil {
			return false, o.db.fail(fmt.Sprintf("set post meta %d %q", postID, key), err)
		}
		for _, v := range values {
			if _, err := q.insert(ctx, "post_meta", `post_id, key, value`, postID, key, v); err != nil {
				return false, o.db.fail(fmt.Sprintf("set post meta %d %q", postID, key), err)
			}
		}
		return true, nil
	})
}

// PostIDsWithMeta returns the posts having key (with value when given).
func (o ops) PostIDsWithMeta(ctx context.Context, key string, value *string) ([]int64, error) {
	a := &Args{}
	query := `SELECT DISTINCT post_id FROM post_meta WHERE key = ` + a.Add(key)
	if value != nil {
		query += ` AND value = ` + a.Add(*value)
	}
	var out []int64
	if err := collect(ctx, o.reader(), &out, scanInt64, query+` ORDER BY post_id`, a.vals...); err != nil {
		return nil, o.db.fail(fmt.Sprintf("posts with meta %q", key), err)
	}
	return out, nil
}
