package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// userSelect returns the query that loads users with their roles (in
// order) and capabilities in one statement.
func (db *DB) userSelect() string {
	return db.userColumns() + ` FROM users u`
}

// userColumns returns the select list userSelect reads, which scanUser
// scans.
func (db *DB) userColumns() string {
	return `SELECT u.id, u.login, u.email, u.pass_hash, u.display_name, u.nicename,
	u.first_name, u.last_name, u.nickname, u.url, u.description, u.registered,
	(SELECT ` + db.d.JSONArray("r.role", "r.position, r.role") + ` FROM user_roles r WHERE r.user_id = u.id),
	(SELECT ` + db.d.JSONObject("c.cap", "c.granted") + ` FROM user_caps c WHERE c.user_id = u.id)`
}

func scanUser(s scanner) (*store.User, error) {
	var u store.User
	var roles, caps sql.NullString
	if err := s.Scan(&u.ID, &u.Login, &u.Email, &u.PassHash, &u.DisplayName, &u.Nicename,
		&u.FirstName, &u.LastName, &u.Nickname, &u.URL, &u.Description, at(&u.Registered), &roles, &caps); err != nil {
		return nil, err
	}
	u.Roles = []string{}
	if roles.String != "" {
		if err := json.Unmarshal([]byte(roles.String), &u.Roles); err != nil {
			return nil, fmt.Errorf("user %d roles: %w", u.ID, err)
		}
	}
	u.Caps = map[string]bool{}
	if caps.String != "" {
		if err := json.Unmarshal([]byte(caps.String), &u.Caps); err != nil {
			return nil, fmt.Errorf("user %d caps: %w", u.ID, err)
		}
	}
	return &u, nil
}

func (o ops) getUserWhere(ctx context.Context, what, where string, arg any) (*store.User, error) {
	u, err := scanUser(o.reader().queryRow(ctx, o.db.userSelect()+` WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, o.db.notFound("user " + what)
	}
	if err != nil {
		return nil, o.db.fail("get user "+what, err)
	}
	return u, nil
}

// GetUser loads one user; store.ErrNotFound when there is none.
func (o ops) GetUser(ctx context.Context, id int64) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.FormatInt(id, 10), `u.id = $1`, id)
}

// GetUserByLogin loads a user by login, ASCII case-insensitively.
func (o ops) GetUserByLogin(ctx context.Context, login string) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.Quote(login), o.db.d.Fold("u.login")+` = $1`, foldASCII(login))
}

// GetUserByEmail loads a user by email, ASCII case-insensitively; an empty
// email matches nobody.
func (o ops) GetUserByEmail(ctx context.Context, email string) (*store.User, error) {
	if email == "" {
		return nil, o.db.notFound("user with empty email")
	}
	return o.getUserWhere(ctx, strconv.Quote(email), o.db.d.Fold("u.email")+` = $1 AND u.email <> ''`, foldASCII(email))
}

// GetUserBySlug loads a user by nicename, ASCII case-insensitively.
func (o ops) GetUserBySlug(ctx context.Context, slug string) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.Quote(slug), o.db.d.Fold("u.nicename")+` = $1`, foldASCII(slug))
}

// GetUsers loads the users with the given ids in one query.
func (o ops) GetUsers(ctx context.Context, ids []int64) (map[int64]*store.User, error) {
	out := make(map[int64]*store.User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	a := &Args{}
	var users []*store.User
	err := collect(ctx, o.reader(), &users, scanUser, o.db.userSelect()+` WHERE `+inExpr(o.db.d, a, "u.id", ids, false), a.vals...)
	if err != nil {
		return nil, o.db.fail("get users", err)
	}
	for _, u := range users {
		out[u.ID] = u
	}
	return out, nil
}

// userWhere turns q's filters into a WHERE clause; mode is how the search
// reads the table (userSearchPlan).
func (db *DB) userWhere(q *store.UserQuery, a *Args, mode substringMode) *cond {
	c := db.newCond(a)
	if s := strings.TrimSpace(q.Search); s != "" {
		sq := db.substringCond(a, userIndex, "u", q.SearchAccounts, s, mode, nil)
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			sq = "(" + sq + " OR u.id = " + a.Add(id) + ")"
		}
		c.add(sq)
	}
	if len(q.Include) > 0 {
		inList(c, "u.id", q.Include, false)
	}
	if len(q.Exclude) > 0 {
		inList(c, "u.id", q.Exclude, true)
	}
	if len(q.Slugs) > 0 {
		inList(c, db.d.Fold("u.nicename"), foldASCIIAll(q.Slugs), false)
	}
	if len(q.Roles) > 0 {
		c.add(`EXISTS (SELECT 1 FROM user_roles r WHERE r.user_id = u.id AND ` + inExpr(db.d, a, "r.role", q.Roles, false) + `)`)
	}
	if len(q.HasPublishedOfTypes) > 0 {
		c.add(`EXISTS (SELECT 1 FROM posts p WHERE p.author = u.id AND p.status = 'publish'
			AND ` + inExpr(db.d, a, "p.type", q.HasPublishedOfTypes, false) + `)`)
	}
	return c
}

// userOrder returns the ORDER BY clause for q (default: name ascending);
// ties break on id in the same direction. Display names, nicenames and
// emails order ASCII case-insensitively.
func (db *DB) userOrder(q *store.UserQuery, a *Args) string {
	dir := orderDir(q.Order, "ASC")
	switch q.OrderBy {
	case "id":
		return " ORDER BY u.id " + dir
	case "include":
		if len(q.Include) > 0 {
			return ` ORDER BY ` + db.d.Position(a, q.Include, "u.id") + `, u.id ASC`
		}
	case "registered_date":
		return " ORDER BY u.registered " + dir + ", u.id " + dir
	case "slug":
		return " ORDER BY " + db.d.FoldOrder("u.nicename") + " " + dir + ", u.id " + dir
	case "email":
		return " ORDER BY " + db.d.FoldOrder("u.email") + " " + dir + ", u.id " + dir
	}
	return " ORDER BY " + db.d.FoldOrder("u.display_name") + " " + dir + ", u.id " + dir
}

// userSearchPlan chooses how q's search reads the users
// (substringPlan): their login and email are searched with SearchAccounts
// only.
func (o ops) userSearchPlan(ctx context.Context, q *store.UserQuery) (substringMode, error) {
	return o.substringPlan(ctx, userIndex, q.SearchAccounts, strings.TrimSpace(q.Search))
}

// ListUsers returns the users q selects, in q's order, in one query (after
// one that counts a search's candidates in its index: substringPlan).
func (o ops) ListUsers(ctx context.Context, q store.UserQuery) ([]*store.User, error) {
	mode, err := o.userSearchPlan(ctx, &q)
	if err != nil {
		return nil, err
	}
	a := &Args{}
	c := o.db.userWhere(&q, a, mode)
	query := o.db.userSelect() + c.where() + o.db.userOrder(&q, a) + o.db.limitClause(q.Limit, q.Offset, a)
	var users []*store.User
	if err := collect(ctx, o.reader(), &users, scanUser, query, o.db.substringArgs(a, mode)...); err != nil {
		return nil, o.db.fail("list users", err)
	}
	return users, nil
}

// CountUsers counts the users q selects.
func (o ops) CountUsers(ctx context.Context, q store.UserQuery) (int64, error) {
	mode, err := o.userSearchPlan(ctx, &q)
	if err != nil {
		return 0, err
	}
	a := &Args{}
	c := o.db.userWhere(&q, a, mode)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM users u`+c.where(), o.db.substringArgs(a, mode)...).Scan(&n); err != nil {
		return 0, o.db.fail("count users", err)
	}
	return n, nil
}

// CountUsersWithRole counts users holding role.
func (o ops) CountUsersWithRole(ctx context.Context, role string) (int64, error) {
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM user_roles WHERE role = $1`, role).Scan(&n); err != nil {
		return 0, o.db.fail("count users with role", err)
	}
	return n, nil
}

const userInsertCols = `login, email, pass_hash, display_name, nicename, first_name, last_name,
	nickname, url, description, registered`

func (db *DB) userArgs(u *store.User) []any {
	return []any{u.Login, u.Email, u.PassHash, u.DisplayName, u.Nicename, u.FirstName,
		u.LastName, u.Nickname, u.URL, u.Description, db.d.Time(u.Registered)}
}

// InsertUser stores u with its roles and capabilities and sets u.ID;
// store.ErrConflict when the login, email or nicename is taken.
func (o ops) InsertUser(ctx context.Context, u *store.User) error {
	if u.ID != 0 {
		return o.db.errorf("insert user: id is %d, want 0", u.ID)
	}
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		id, err := q.insert(ctx, "users", userInsertCols, o.db.userArgs(u)...)
		if err != nil {
			return false, o.db.conflict(err, "insert user")
		}
		if err := o.db.writeUserGrants(ctx, q, id, u, false); err != nil {
			return false, err
		}
		u.ID = id
		return true, nil
	})
}

// UpdateUser writes every column of u and replaces its roles and
// capabilities; store.ErrNotFound when u.ID does not exist.
func (o ops) UpdateUser(ctx context.Context, u *store.User) error {
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE users SET login = $1, email = $2, pass_hash = $3,
			display_name = $4, nicename = $5, first_name = $6, last_name = $7, nickname = $8,
			url = $9, description = $10, registered = $11 WHERE id = $12`, append(o.db.userArgs(u), u.ID)...)
		if err != nil {
			return false, o.db.conflict(err, "update user")
		}
		if _, err := o.db.affected(res, fmt.Sprintf("user %d", u.ID)); err != nil {
			return false, err
		}
		return true, o.db.writeUserGrants(ctx, q, u.ID, u, true)
	})
}

// writeUserGrants stores u's roles and capabilities for user id, first
// removing the old ones when replace is set. Each list is one statement.
func (db *DB) writeUserGrants(ctx context.Context, q querier, id int64, u *store.User, replace bool) error {
	if replace {
		if _, err := q.exec(ctx, `DELETE FROM user_roles WHERE user_id = $1`, id); err != nil {
			return db.fail(fmt.Sprintf("user %d roles", id), err)
		}
		if _, err := q.exec(ctx, `DELETE FROM user_caps WHERE user_id = $1`, id); err != nil {
			return db.fail(fmt.Sprintf("user %d caps", id), err)
		}
	}
	if len(u.Roles) > 0 {
		// A role given twice keeps its first position.
		a := &Args{vals: []any{id}}
		rows := make([]string, len(u.Roles))
		for i, r := range u.Roles {
			rows[i] = `($1, ` + a.Add(r) + `, ` + a.Add(int64(i)) + `)`
		}
		if _, err := q.exec(ctx, `INSERT INTO user_roles (user_id, role, position) VALUES `+
			strings.Join(rows, ", ")+` ON CONFLICT DO NOTHING`, a.vals...); err != nil {
			return db.fail(fmt.Sprintf("user %d roles", id), err)
		}
	}
	if len(u.Caps) > 0 {
		a := &Args{vals: []any{id}}
		var rows []string
		for _, c := range slices.Sorted(maps.Keys(u.Caps)) {
			rows = append(rows, `($1, `+a.Add(c)+`, `+a.Add(u.Caps[c])+`)`)
		}
		if _, err := q.exec(ctx, `INSERT INTO user_caps (user_id, cap, granted) VALUES `+
			strings.Join(rows, ", "), a.vals...); err != nil {
			return db.fail(fmt.Sprintf("user %d caps", id), err)
		}
	}
	return nil
}

// DeleteUser removes a user with its roles, capabilities and application
// passwords; store.ErrNotFound when it does not exist. Posts are left to
// the caller (reassign or delete them first).
func (o ops) DeleteUser(ctx context.Context, id int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM users WHERE id = $1`, id)
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("delete user %d", id), err)
		}
		return o.db.affected(res, fmt.Sprintf("user %d", id))
	})
}
