package sqlstore

import (
	"context"
	"time"
)

// Rate-limit buckets are not content: taking a token does not bump the
// store version, so that reading never empties the response caches.

// TakeRateToken takes one token from the bucket key at now (see
// store.RateLimitStore). The check and the take are one conditional
// upsert, atomic on both databases; only a refused take reads the bucket
// again to say how long to wait. Outside a caller's transaction its commit
// does not wait for the disk where the database allows it (Dialect.NoWait).
// Times are Unix microseconds.
func (o ops) TakeRateToken(ctx context.Context, key string, now time.Time, interval time.Duration, burst int) (time.Duration, error) {
	t := now.UnixMicro()
	iv := max(interval.Microseconds(), 1)
	limit := t + int64(max(burst, 1))*iv
	var wait time.Duration
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		if nw := o.db.d.NoWait(); nw != "" && o.tx == nil {
			// A bucket lost in a crash only gives a caller a few
			// requests more.
			if _, err := q.exec(ctx, nw); err != nil {
				return false, o.db.fail("take rate token", err)
			}
		}
		taken := false
		err := q.query(ctx, func(Rows) error { taken = true; return nil },
			`INSERT INTO rate_limits (key, tat) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET tat = (CASE WHEN rate_limits.tat > $3 THEN rate_limits.tat ELSE $3 END) + $4
			WHERE (CASE WHEN rate_limits.tat > $3 THEN rate_limits.tat ELSE $3 END) + $4 <= $5
			RETURNING tat`, key, t+iv, t, iv, limit)
		if err != nil {
			return false, o.db.fail("take rate token", err)
		}
		if taken {
			return false, nil
		}
		var tat int64
		if err := q.queryRow(ctx, `SELECT tat FROM rate_limits WHERE key = $1`, key).Scan(&tat); err != nil {
			return false, o.db.fail("read rate bucket", err)
		}
		wait = time.Duration(max(tat, t)+iv-limit) * time.Microsecond
		wait = max(wait, time.Microsecond)
		return false, nil
	})
	if err != nil {
		return 0, err
	}
	return wait, nil
}

// DeleteRateBuckets removes up to limit buckets full at t.
func (o ops) DeleteRateBuckets(ctx context.Context, t time.Time, limit int) (int64, error) {
	return o.sessionWrite(ctx, "delete rate buckets", false,
		`DELETE FROM rate_limits WHERE key IN (SELECT key FROM rate_limits WHERE tat < $1 LIMIT $2)`, t.UnixMicro(), max(limit, 1))
}
