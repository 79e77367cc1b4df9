package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store"
)

// InsertAppPassword stores p and sets p.ID; store.ErrConflict when its
// UUID is taken.
func (o ops) InsertAppPassword(ctx context.Context, p *store.AppPassword) error {
	if p.ID != 0 {
		return fmt.Errorf("postgres: insert application password: id is %d, want 0", p.ID)
	}
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		var id int64
		err := q.queryRow(ctx, `WITH n AS `+nextID("app_passwords")+`
			INSERT INTO app_passwords (id, uuid, user_id, name, hash, created, last_used, last_ip)
			VALUES ((SELECT last FROM n), $1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			p.UUID, p.UserID, p.Name, p.Hash, pgTime(p.Created), pgTime(p.LastUsed), p.LastIP).Scan(&id)
		if err != nil {
			return false, conflict(err, "insert application password")
		}
		p.ID = id
		return true, nil
	})
}

// ListAppPasswords returns a user's application passwords, oldest first.
func (o ops) ListAppPasswords(ctx context.Context, userID int64) ([]*store.AppPassword, error) {
	out := []*store.AppPassword{}
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		var p store.AppPassword
		if err := rows.Scan(&p.ID, &p.UUID, &p.UserID, &p.Name, &p.Hash, &p.Created, &p.LastUsed, &p.LastIP); err != nil {
			return err
		}
		p.Created = readTime(p.Created)
		p.LastUsed = readTime(p.LastUsed)
		out = append(out, &p)
		return nil
	}, `SELECT id, uuid, user_id, name, hash, created, last_used, last_ip FROM app_passwords
		WHERE user_id = $1 ORDER BY id`, userID)
	if err != nil {
		return nil, fail("list application passwords", err)
	}
	return out, nil
}

// DeleteAppPassword removes one application password of a user;
// store.ErrNotFound when the user has none with that UUID.
func (o ops) DeleteAppPassword(ctx context.Context, userID int64, uuid string) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `DELETE FROM app_passwords WHERE user_id = $1 AND uuid = $2`, userID, uuid)
		if err != nil {
			return false, fail("delete application password", err)
		}
		return affected(tag, "application password "+uuid)
	})
}

// TouchAppPassword records a use at at from ip; store.ErrNotFound when the
// password does not exist.
func (o ops) TouchAppPassword(ctx context.Context, id int64, at time.Time, ip string) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `UPDATE app_passwords SET last_used = $1, last_ip = $2 WHERE id = $3`,
			pgTime(at), ip, id)
		if err != nil {
			return false, fail("touch application password", err)
		}
		return affected(tag, fmt.Sprintf("application password %d", id))
	})
}
