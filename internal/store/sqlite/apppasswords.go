package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// InsertAppPassword stores p and sets p.ID; store.ErrConflict when its
// UUID is taken.
func (o ops) InsertAppPassword(ctx context.Context, p *store.AppPassword) error {
	if p.ID != 0 {
		return fmt.Errorf("sqlite: insert application password: id is %d, want 0", p.ID)
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `INSERT INTO app_passwords (uuid, user_id, name, hash, created,
			last_used, last_ip) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			p.UUID, p.UserID, p.Name, p.Hash, fmtTime(p.Created), fmtTime(p.LastUsed), p.LastIP)
		if err != nil {
			return false, conflict(err, "insert application password")
		}
		id, err := res.LastInsertId()
		if err != nil {
			return false, fmt.Errorf("sqlite: insert application password: %w", err)
		}
		p.ID = id
		return true, nil
	})
}

// ListAppPasswords returns a user's application passwords, oldest first.
func (o ops) ListAppPasswords(ctx context.Context, userID int64) ([]*store.AppPassword, error) {
	rows, err := o.reader().query(ctx, `SELECT id, uuid, user_id, name, hash, created, last_used,
		last_ip FROM app_passwords WHERE user_id = ? ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list application passwords: %w", err)
	}
	defer rows.Close()
	out := []*store.AppPassword{}
	for rows.Next() {
		var p store.AppPassword
		var created, used string
		if err := rows.Scan(&p.ID, &p.UUID, &p.UserID, &p.Name, &p.Hash, &created, &used, &p.LastIP); err != nil {
			return nil, fmt.Errorf("sqlite: list application passwords: %w", err)
		}
		if p.Created, err = parseTime(created); err != nil {
			return nil, err
		}
		if p.LastUsed, err = parseTime(used); err != nil {
			return nil, err
		}
		out = append(out, &p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list application passwords: %w", err)
	}
	return out, nil
}

// DeleteAppPassword removes one application password of a user;
// store.ErrNotFound when the user has none with that UUID.
func (o ops) DeleteAppPassword(ctx context.Context, userID int64, uuid string) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM app_passwords WHERE user_id = ? AND uuid = ?`, userID, uuid)
		if err != nil {
			return false, fmt.Errorf("sqlite: delete application password: %w", err)
		}
		return affected(res, "application password "+uuid)
	})
}

// TouchAppPassword records a use at at from ip; store.ErrNotFound when the
// password does not exist.
func (o ops) TouchAppPassword(ctx context.Context, id int64, at time.Time, ip string) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE app_passwords SET last_used = ?, last_ip = ? WHERE id = ?`,
			fmtTime(at), ip, id)
		if err != nil {
			return false, fmt.Errorf("sqlite: touch application password: %w", err)
		}
		return affected(res, fmt.Sprintf("application password %d", id))
	})
}
