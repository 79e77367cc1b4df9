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
// again to say how long to wait. Where the dialect lets a statement in
// its own transaction commit without waiting for the disk
// (Dialect.NoWait: PostgreSQL), and the caller has no transaction, the
// upsert is that one statement on any connection: one round trip, where
// a write transaction took three (the begin, the statement, the commit)
// for every API request. Times are Unix microseconds.
func (o ops) TakeRateToken(ctx context.Context, key string, now time.Time, interval time.Duration, burst int) (time.Duration, error) {
	t := now.UnixMicro()
	iv := max(interval.Microseconds(), 1)
	limit := t + int64(max(burst, 1))*iv
	take := func(q querier, cond string) (bool, error) {
		taken := false
		err := q.query(ctx, func(Rows) error { taken = true; return nil },
			`INSERT INTO rate_limits (key, tat) SELECT $1, $2 WHERE `+cond+`
			ON CONFLICT (key) DO UPDATE SET tat = (CASE WHEN rate_limits.tat > $3 THEN rate_limits.tat ELSE $3 END) + $4
			WHERE (CASE WHEN rate_limits.tat > $3 THEN rate_limits.tat ELSE $3 END) + $4 <= $5
			RETURNING tat`, key, t+iv, t, iv, limit)
		if err != nil {
			return false, o.db.fail("take rate token", err)
		}
		return taken, nil
	}
	refused := func(q querier) (time.Duration, error) {
		var tat int64
		if err := q.queryRow(ctx, `SELECT tat FROM rate_limits WHERE key = $1`, key).Scan(&tat); err != nil {
			return 0, o.db.fail("read rate bucket", err)
		}
		return max(time.Duration(max(tat, t)+iv-limit)*time.Microsecond, time.Microsecond), nil
	}
	if cond := o.db.d.NoWait(); cond != "" && o.tx == nil {
		// A bucket lost in a crash only gives a caller a few requests
		// more. Not retried: a lost connection may have taken the token.
		q := querier{db: o.db, c: o.db.c.Reader()}
		if taken, err := take(q, cond); err != nil || taken {
			return 0, err
		}
		return refused(q)
	}
	var wait time.Duration
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		taken, err := take(q, "true")
		if err != nil || taken {
			return false, err
		}
		wait, err = refused(q)
		return false, err
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
