package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// userSelect loads users with their roles (in order) and capabilities in
// one statement.
const userSelect = `SELECT u.id, u.login, u.email, u.pass_hash, u.display_name, u.nicename,
	u.first_name, u.last_name, u.nickname, u.url, u.description, u.registered,
	(SELECT json_group_array(r.role ORDER BY r.position, r.role) FROM user_roles r WHERE r.user_id = u.id),
	(SELECT json_group_object(c.cap, json(CASE WHEN c.granted THEN 'true' ELSE 'false' END))
		FROM user_caps c WHERE c.user_id = u.id)
	FROM users u`

func scanUser(s scanner) (*store.User, error) {
	var u store.User
	var reg, roles string
	var caps sql.NullString
	if err := s.Scan(&u.ID, &u.Login, &u.Email, &u.PassHash, &u.DisplayName, &u.Nicename,
		&u.FirstName, &u.LastName, &u.Nickname, &u.URL, &u.Description, &reg, &roles, &caps); err != nil {
		return nil, err
	}
	var err error
	if u.Registered, err = parseTime(reg); err != nil {
		return nil, err
	}
	u.Roles = []string{}
	if err := json.Unmarshal([]byte(roles), &u.Roles); err != nil {
		return nil, fmt.Errorf("sqlite: user %d roles: %w", u.ID, err)
	}
	u.Caps = map[string]bool{}
	if caps.Valid && caps.String != "" {
		if err := json.Unmarshal([]byte(caps.String), &u.Caps); err != nil {
			return nil, fmt.Errorf("sqlite: user %d caps: %w", u.ID, err)
		}
	}
	return &u, nil
}

func (o ops) getUserWhere(ctx context.Context, what, where string, arg any) (*store.User, error) {
	u, err := scanUser(o.reader().queryRow(ctx, userSelect+` WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: user %s: %w", what, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get user %s: %w", what, err)
	}
	return u, nil
}

// GetUser loads one user; store.ErrNotFound when there is none.
func (o ops) GetUser(ctx context.Context, id int64) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.FormatInt(id, 10), `u.id = ?`, id)
}

// GetUserByLogin loads a user by login, case-insensitively.
func (o ops) GetUserByLogin(ctx context.Context, login string) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.Quote(login), `u.login = ?`, login)
}

// GetUserByEmail loads a user by email, case-insensitively; an empty email
// matches nobody.
func (o ops) GetUserByEmail(ctx context.Context, email string) (*store.User, error) {
	if email == "" {
		return nil, fmt.Errorf("sqlite: user with empty email: %w", store.ErrNotFound)
	}
	return o.getUserWhere(ctx, strconv.Quote(email), `u.email = ?`, email)
}

// GetUserBySlug loads a user by nicename, case-insensitively.
func (o ops) GetUserBySlug(ctx context.Context, slug string) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.Quote(slug), `u.nicename = ?`, slug)
}

// GetUsers loads the users with the given ids in one query.
func (o ops) GetUsers(ctx context.Context, ids []int64) (map[int64]*store.User, error) {
	out := make(map[int64]*store.User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := o.reader().query(ctx, userSelect+` WHERE u.id IN (SELECT value FROM json_each(?))`, jsonList(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlite: get users: %w", err)
	}
	users, err := collectUsers(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get users: %w", err)
	}
	for _, u := range users {
		out[u.ID] = u
	}
	return out, nil
}

func collectUsers(rows *sql.Rows) ([]*store.User, error) {
	defer rows.Close()
	var out []*store.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// userWhere turns q's filters into a WHERE clause.
func userWhere(q *store.UserQuery) *cond {
	c := &cond{}
	if s := strings.TrimSpace(q.Search); s != "" {
		var args []any
		cols := []string{"u.url", "u.nicename", "u.display_name"}
		if q.SearchAccounts {
			cols = append(cols, "u.login", "u.email")
		}
		sq := likeAny(s, cols, &args)
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			sq = "(" + sq + " OR u.id = ?)"
			args = append(args, id)
		}
		c.add(sq, args...)
	}
	if len(q.Include) > 0 {
		inList(c, "u.id", q.Include, false)
	}
	if len(q.Exclude) > 0 {
		inList(c, "u.id", q.Exclude, true)
	}
	if len(q.Slugs) > 0 {
		inList(c, "u.nicename", q.Slugs, false)
	}
	if len(q.Roles) > 0 {
		c.add(`EXISTS (SELECT 1 FROM user_roles r WHERE r.user_id = u.id
			AND r.role IN (SELECT value FROM json_each(?)))`, jsonList(q.Roles))
	}
	if len(q.HasPublishedOfTypes) > 0 {
		c.add(`EXISTS (SELECT 1 FROM posts p WHERE p.author = u.id AND p.status = 'publish'
			AND p.type IN (SELECT value FROM json_each(?)))`, jsonList(q.HasPublishedOfTypes))
	}
	return c
}

// userOrder returns the ORDER BY clause for q (default: name ascending);
// ties break on id in the same direction.
func userOrder(q *store.UserQuery, args *[]any) string {
	dir := orderDir(q.Order, "ASC")
	switch q.OrderBy {
	case "id":
		return " ORDER BY u.id " + dir
	case "include":
		if len(q.Include) > 0 {
			*args = append(*args, jsonList(q.Include))
			return ` ORDER BY (SELECT MIN(key) FROM json_each(?) WHERE value = u.id), u.id ASC`
		}
	case "registered_date":
		return " ORDER BY u.registered " + dir + ", u.id " + dir
	case "slug":
		return " ORDER BY u.nicename " + dir + ", u.id " + dir
	case "email":
		return " ORDER BY u.email " + dir + ", u.id " + dir
	}
	return " ORDER BY u.display_name COLLATE NOCASE " + dir + ", u.id " + dir
}

// ListUsers returns the users q selects, in q's order, in one query.
func (o ops) ListUsers(ctx context.Context, q store.UserQuery) ([]*store.User, error) {
	c := userWhere(&q)
	args := c.args
	query := userSelect + c.where() + userOrder(&q, &args) + limitClause(q.Limit, q.Offset, &args)
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list users: %w", err)
	}
	users, err := collectUsers(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list users: %w", err)
	}
	return users, nil
}

// CountUsers counts the users q selects.
func (o ops) CountUsers(ctx context.Context, q store.UserQuery) (int64, error) {
	c := userWhere(&q)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM users u`+c.where(), c.args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count users: %w", err)
	}
	return n, nil
}

// CountUsersWithRole counts users holding role.
func (o ops) CountUsersWithRole(ctx context.Context, role string) (int64, error) {
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM user_roles WHERE role = ?`, role).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count users with role: %w", err)
	}
	return n, nil
}

func userArgs(u *store.User) []any {
	return []any{u.Login, u.Email, u.PassHash, u.DisplayName, u.Nicename, u.FirstName,
		u.LastName, u.Nickname, u.URL, u.Description, fmtTime(u.Registered)}
}

// InsertUser stores u with its roles and capabilities and sets u.ID;
// store.ErrConflict when the login, email or nicename is taken.
func (o ops) InsertUser(ctx context.Context, u *store.User) error {
	if u.ID != 0 {
		return fmt.Errorf("sqlite: insert user: id is %d, want 0", u.ID)
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `INSERT INTO users (login, email, pass_hash, display_name,
			nicename, first_name, last_name, nickname, url, description, registered)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, userArgs(u)...)
		if err != nil {
			return false, conflict(err, "insert user")
		}
		id, err := res.LastInsertId()
		if err != nil {
			return false, fmt.Errorf("sqlite: insert user: %w", err)
		}
		if err := writeUserGrants(ctx, q, id, u, false); err != nil {
			return false, err
		}
		u.ID = id
		return true, nil
	})
}

// UpdateUser writes every column of u and replaces its roles and
// capabilities; store.ErrNotFound when u.ID does not exist.
func (o ops) UpdateUser(ctx context.Context, u *store.User) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE users SET login = ?, email = ?, pass_hash = ?,
			display_name = ?, nicename = ?, first_name = ?, last_name = ?, nickname = ?, url = ?,
			description = ?, registered = ? WHERE id = ?`, append(userArgs(u), u.ID)...)
		if err != nil {
			return false, conflict(err, "update user")
		}
		if _, err := affected(res, fmt.Sprintf("user %d", u.ID)); err != nil {
			return false, err
		}
		return true, writeUserGrants(ctx, q, u.ID, u, true)
	})
}

// writeUserGrants stores u's roles and capabilities for user id, first
// removing the old ones when replace is set. Each list is one statement.
func writeUserGrants(ctx context.Context, q querier, id int64, u *store.User, replace bool) error {
	if replace {
		if _, err := q.exec(ctx, `DELETE FROM user_roles WHERE user_id = ?`, id); err != nil {
			return fmt.Errorf("sqlite: user %d roles: %w", id, err)
		}
		if _, err := q.exec(ctx, `DELETE FROM user_caps WHERE user_id = ?`, id); err != nil {
			return fmt.Errorf("sqlite: user %d caps: %w", id, err)
		}
	}
	if len(u.Roles) > 0 {
		if _, err := q.exec(ctx, `INSERT OR IGNORE INTO user_roles (user_id, role, position)
			SELECT ?, value, key FROM json_each(?)`, id, jsonList(u.Roles)); err != nil {
			return fmt.Errorf("sqlite: user %d roles: %w", id, err)
		}
	}
	if len(u.Caps) > 0 {
		b, err := json.Marshal(u.Caps)
		if err != nil {
			return fmt.Errorf("sqlite: user %d caps: %w", id, err)
		}
		if _, err := q.exec(ctx, `INSERT INTO user_caps (user_id, cap, granted)
			SELECT ?, key, value FROM json_each(?)`, id, string(b)); err != nil {
			return fmt.Errorf("sqlite: user %d caps: %w", id, err)
		}
	}
	return nil
}

// DeleteUser removes a user with its roles, capabilities and application
// passwords; store.ErrNotFound when it does not exist. Posts are left to
// the caller (reassign or delete them first).
func (o ops) DeleteUser(ctx context.Context, id int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM users WHERE id = ?`, id)
		if err != nil {
			return false, fmt.Errorf("sqlite: delete user %d: %w", id, err)
		}
		return affected(res, fmt.Sprintf("user %d", id))
	})
}
