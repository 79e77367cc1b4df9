package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store"
)

// userSelect loads users with their roles (in order) and capabilities in
// one statement.
const userSelect = `SELECT u.id, u.login, u.email, u.pass_hash, u.display_name, u.nicename,
	u.first_name, u.last_name, u.nickname, u.url, u.description, u.registered,
	ARRAY(SELECT r.role FROM user_roles r WHERE r.user_id = u.id ORDER BY r.position, r.role),
	ARRAY(SELECT c.cap FROM user_caps c WHERE c.user_id = u.id ORDER BY c.cap),
	ARRAY(SELECT c.granted FROM user_caps c WHERE c.user_id = u.id ORDER BY c.cap)
	FROM users u`

func scanUser(s pgx.Row) (*store.User, error) {
	var u store.User
	var caps []string
	var granted []bool
	if err := s.Scan(&u.ID, &u.Login, &u.Email, &u.PassHash, &u.DisplayName, &u.Nicename,
		&u.FirstName, &u.LastName, &u.Nickname, &u.URL, &u.Description, &u.Registered,
		&u.Roles, &caps, &granted); err != nil {
		return nil, err
	}
	u.Registered = readTime(u.Registered)
	if u.Roles == nil {
		u.Roles = []string{}
	}
	u.Caps = make(map[string]bool, len(caps))
	for i, c := range caps {
		if i < len(granted) {
			u.Caps[c] = granted[i]
		}
	}
	return &u, nil
}

func (o ops) getUserWhere(ctx context.Context, what, where string, arg any) (*store.User, error) {
	u, err := scanUser(o.reader().queryRow(ctx, userSelect+` WHERE `+where, arg))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: user %s: %w", what, store.ErrNotFound)
	}
	if err != nil {
		return nil, fail("get user "+what, err)
	}
	return u, nil
}

// GetUser loads one user; store.ErrNotFound when there is none.
func (o ops) GetUser(ctx context.Context, id int64) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.FormatInt(id, 10), `u.id = $1`, id)
}

// GetUserByLogin loads a user by login, ASCII case-insensitively.
func (o ops) GetUserByLogin(ctx context.Context, login string) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.Quote(login), `folio_nocase(u.login) = $1`, asciiLower(login))
}

// GetUserByEmail loads a user by email, ASCII case-insensitively; an empty
// email matches nobody.
func (o ops) GetUserByEmail(ctx context.Context, email string) (*store.User, error) {
	if email == "" {
		return nil, fmt.Errorf("postgres: user with empty email: %w", store.ErrNotFound)
	}
	return o.getUserWhere(ctx, strconv.Quote(email), `folio_nocase(u.email) = $1 AND u.email <> ''`, asciiLower(email))
}

// GetUserBySlug loads a user by nicename, ASCII case-insensitively.
func (o ops) GetUserBySlug(ctx context.Context, slug string) (*store.User, error) {
	return o.getUserWhere(ctx, strconv.Quote(slug), `folio_nocase(u.nicename) = $1`, asciiLower(slug))
}

// GetUsers loads the users with the given ids in one query.
func (o ops) GetUsers(ctx context.Context, ids []int64) (map[int64]*store.User, error) {
	out := make(map[int64]*store.User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	users, err := o.collectUsers(ctx, userSelect+` WHERE u.id = ANY($1)`, ids)
	if err != nil {
		return nil, fail("get users", err)
	}
	for _, u := range users {
		out[u.ID] = u
	}
	return out, nil
}

func (o ops) collectUsers(ctx context.Context, query string, args ...any) ([]*store.User, error) {
	var out []*store.User
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		u, err := scanUser(rows)
		if err != nil {
			return err
		}
		out = append(out, u)
		return nil
	}, query, args...)
	return out, err
}

// userWhere turns q's filters into a WHERE clause.
func userWhere(q *store.UserQuery, a *args) *cond {
	c := newCond(a)
	if s := strings.TrimSpace(q.Search); s != "" {
		cols := []string{"u.url", "u.nicename", "u.display_name"}
		if q.SearchAccounts {
			cols = append(cols, "u.login", "u.email")
		}
		sq := likeAny(s, cols, a)
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			sq = "(" + sq + " OR u.id = " + a.add(id) + ")"
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
		inList(c, "folio_nocase(u.nicename)", asciiLowerAll(q.Slugs), false)
	}
	if len(q.Roles) > 0 {
		c.add(`EXISTS (SELECT 1 FROM user_roles r WHERE r.user_id = u.id AND r.role = ANY(` + a.add(q.Roles) + `))`)
	}
	if len(q.HasPublishedOfTypes) > 0 {
		c.add(`EXISTS (SELECT 1 FROM posts p WHERE p.author = u.id AND p.status = 'publish'
			AND p.type = ANY(` + a.add(q.HasPublishedOfTypes) + `))`)
	}
	return c
}

// userOrder returns the ORDER BY clause for q (default: name ascending);
// ties break on id in the same direction. Login, email and nicename order
// ASCII case-insensitively, as their SQLite columns (COLLATE NOCASE) do.
func userOrder(q *store.UserQuery, a *args) string {
	dir := orderDir(q.Order, "ASC")
	switch q.OrderBy {
	case "id":
		return " ORDER BY u.id " + dir
	case "include":
		if len(q.Include) > 0 {
			return ` ORDER BY array_position(` + a.add(q.Include) + `::bigint[], u.id), u.id ASC`
		}
	case "registered_date":
		return " ORDER BY u.registered " + dir + ", u.id " + dir
	case "slug":
		return ` ORDER BY folio_nocase(u.nicename) COLLATE "C" ` + dir + ", u.id " + dir
	case "email":
		return ` ORDER BY folio_nocase(u.email) COLLATE "C" ` + dir + ", u.id " + dir
	}
	return ` ORDER BY folio_nocase(u.display_name) COLLATE "C" ` + dir + ", u.id " + dir
}

// ListUsers returns the users q selects, in q's order, in one query.
func (o ops) ListUsers(ctx context.Context, q store.UserQuery) ([]*store.User, error) {
	a := &args{}
	c := userWhere(&q, a)
	query := userSelect + c.where() + userOrder(&q, a) + limitClause(q.Limit, q.Offset, a)
	users, err := o.collectUsers(ctx, query, a.vals...)
	if err != nil {
		return nil, fail("list users", err)
	}
	return users, nil
}

// CountUsers counts the users q selects.
func (o ops) CountUsers(ctx context.Context, q store.UserQuery) (int64, error) {
	a := &args{}
	c := userWhere(&q, a)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM users u`+c.where(), a.vals...).Scan(&n); err != nil {
		return 0, fail("count users", err)
	}
	return n, nil
}

// CountUsersWithRole counts users holding role.
func (o ops) CountUsersWithRole(ctx context.Context, role string) (int64, error) {
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM user_roles WHERE role = $1`, role).Scan(&n); err != nil {
		return 0, fail("count users with role", err)
	}
	return n, nil
}

func userArgs(u *store.User) []any {
	return []any{u.Login, u.Email, u.PassHash, u.DisplayName, u.Nicename, u.FirstName,
		u.LastName, u.Nickname, u.URL, u.Description, pgTime(u.Registered)}
}

// InsertUser stores u with its roles and capabilities and sets u.ID;
// store.ErrConflict when the login, email or nicename is taken.
func (o ops) InsertUser(ctx context.Context, u *store.User) error {
	if u.ID != 0 {
		return fmt.Errorf("postgres: insert user: id is %d, want 0", u.ID)
	}
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		var id int64
		err := q.queryRow(ctx, `WITH n AS `+nextID("users")+`
			INSERT INTO users (id, login, email, pass_hash, display_name, nicename, first_name,
			last_name, nickname, url, description, registered)
			VALUES ((SELECT last FROM n), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			RETURNING id`, userArgs(u)...).Scan(&id)
		if err != nil {
			return false, conflict(err, "insert user")
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
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `UPDATE users SET login = $1, email = $2, pass_hash = $3,
			display_name = $4, nicename = $5, first_name = $6, last_name = $7, nickname = $8,
			url = $9, description = $10, registered = $11 WHERE id = $12`, append(userArgs(u), u.ID)...)
		if err != nil {
			return false, conflict(err, "update user")
		}
		if _, err := affected(tag, fmt.Sprintf("user %d", u.ID)); err != nil {
			return false, err
		}
		return true, writeUserGrants(ctx, q, u.ID, u, true)
	})
}

// writeUserGrants stores u's roles and capabilities for user id, first
// removing the old ones when replace is set. Each list is one statement.
func writeUserGrants(ctx context.Context, q querier, id int64, u *store.User, replace bool) error {
	if replace {
		if _, err := q.exec(ctx, `DELETE FROM user_roles WHERE user_id = $1`, id); err != nil {
			return fail(fmt.Sprintf("user %d roles", id), err)
		}
		if _, err := q.exec(ctx, `DELETE FROM user_caps WHERE user_id = $1`, id); err != nil {
			return fail(fmt.Sprintf("user %d caps", id), err)
		}
	}
	if len(u.Roles) > 0 {
		if _, err := q.exec(ctx, `INSERT INTO user_roles (user_id, role, position)
			SELECT $1, r.role, r.ord - 1 FROM unnest($2::text[]) WITH ORDINALITY AS r(role, ord)
			ORDER BY r.ord ON CONFLICT DO NOTHING`, id, u.Roles); err != nil {
			return fail(fmt.Sprintf("user %d roles", id), err)
		}
	}
	if len(u.Caps) > 0 {
		caps := make([]string, 0, len(u.Caps))
		for c := range u.Caps {
			caps = append(caps, c)
		}
		sort.Strings(caps)
		granted := make([]bool, len(caps))
		for i, c := range caps {
			granted[i] = u.Caps[c]
		}
		if _, err := q.exec(ctx, `INSERT INTO user_caps (user_id, cap, granted)
			SELECT $1, c.cap, c.granted FROM unnest($2::text[], $3::boolean[]) AS c(cap, granted)`,
			id, caps, granted); err != nil {
			return fail(fmt.Sprintf("user %d caps", id), err)
		}
	}
	return nil
}

// DeleteUser removes a user with its roles, capabilities and application
// passwords; store.ErrNotFound when it does not exist. Posts are left to
// the caller (reassign or delete them first).
func (o ops) DeleteUser(ctx context.Context, id int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `DELETE FROM users WHERE id = $1`, id)
		if err != nil {
			return false, fail(fmt.Sprintf("delete user %d", id), err)
		}
		return affected(tag, fmt.Sprintf("user %d", id))
	})
}
