package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// commentCols lists the comments columns in scanComment's order.
const commentCols = `id, post_id, parent, author_id, author_name, author_email, author_url,
	author_ip, author_user_agent, date, date_gmt, content, karma, approved, type, pre_trash_status`

func scanComment(s scanner) (*store.Comment, error) {
	var c store.Comment
	var date, dateGMT string
	if err := s.Scan(&c.ID, &c.PostID, &c.Parent, &c.AuthorID, &c.AuthorName, &c.AuthorEmail,
		&c.AuthorURL, &c.AuthorIP, &c.AuthorUserAgent, &date, &dateGMT, &c.Content, &c.Karma,
		&c.Approved, &c.Type, &c.PreTrashStatus); err != nil {
		return nil, err
	}
	var err error
	if c.Date, err = parseTime(date); err != nil {
		return nil, err
	}
	if c.DateGMT, err = parseTime(dateGMT); err != nil {
		return nil, err
	}
	return &c, nil
}

// commentArgs returns c's columns after id, in commentCols order.
func commentArgs(c *store.Comment) []any {
	return []any{c.PostID, c.Parent, c.AuthorID, c.AuthorName, c.AuthorEmail, c.AuthorURL,
		c.AuthorIP, c.AuthorUserAgent, fmtTime(c.Date), fmtTime(c.DateGMT), c.Content, c.Karma,
		c.Approved, c.Type, c.PreTrashStatus}
}

// GetComment loads one comment; store.ErrNotFound when there is none.
func (o ops) GetComment(ctx context.Context, id int64) (*store.Comment, error) {
	row := o.reader().queryRow(ctx, `SELECT `+commentCols+` FROM comments WHERE id = ?`, id)
	c, err := scanComment(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: comment %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get comment %d: %w", id, err)
	}
	return c, nil
}

// GetComments loads the comments with the given ids in one query.
func (o ops) GetComments(ctx context.Context, ids []int64) (map[int64]*store.Comment, error) {
	out := make(map[int64]*store.Comment, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := o.queryComments(ctx, `SELECT `+commentCols+` FROM comments WHERE id IN (SELECT value FROM json_each(?))`, jsonList(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlite: get comments: %w", err)
	}
	for _, c := range list {
		out[c.ID] = c
	}
	return out, nil
}

func (o ops) queryComments(ctx context.Context, query string, args ...any) ([]*store.Comment, error) {
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*store.Comment
	for rows.Next() {
		c, err := scanComment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// visibilityExpr turns v into a condition on the posts table whose columns
// are prefixed with table ("p." or ""), appending its arguments.
func visibilityExpr(v *store.Visibility, table string, args *[]any) string {
	var alts []string
	if len(v.Public) > 0 {
		expr, arg := inExpr(table+"status", v.Public, false)
		alts = append(alts, expr)
		*args = append(*args, arg)
	}
	if v.Owner != 0 && len(v.OwnStatuses) > 0 {
		expr, arg := inExpr(table+"status", v.OwnStatuses, false)
		alts = append(alts, `(`+table+`author = ? AND `+expr+`)`)
		*args = append(*args, v.Owner, arg)
	}
	if len(v.OthersStatuses) > 0 {
		expr, arg := inExpr(table+"status", v.OthersStatuses, false)
		alts = append(alts, expr)
		*args = append(*args, arg)
	}
	if len(alts) == 0 {
		return `0`
	}
	return "(" + strings.Join(alts, " OR ") + ")"
}

// accessCond adds the conditions of a CommentAccess to c.
func accessCond(c *cond, a *store.CommentAccess) {
	var readAlts, editAlts []string
	var readArgs, editArgs []any
	for i := range a.Types {
		t := &a.Types[i]
		var ra []any
		ra = append(ra, t.Type)
		read := visibilityExpr(&t.Read, "p.", &ra)
		edit := visibilityExpr(&t.Edit, "p.", &ra)
		protected := `p.password = '' OR ` + edit
		if len(a.UnlockedPosts) > 0 {
			protected += ` OR p.id IN (SELECT value FROM json_each(?))`
			ra = append(ra, jsonList(a.UnlockedPosts))
		}
		readAlts = append(readAlts, `(p.type = ? AND `+read+` AND (`+protected+`))`)
		readArgs = append(readArgs, ra...)

		editArgs = append(editArgs, t.Type)
		editAlts = append(editAlts, `(p.type = ? AND `+visibilityExpr(&t.Edit, "p.", &editArgs)+`)`)
	}
	if len(readAlts) == 0 {
		c.add(`comments.post_id = 0`)
	} else {
		c.add(`(comments.post_id = 0 OR comments.post_id IN (SELECT p.id FROM posts p WHERE `+
			strings.Join(readAlts, " OR ")+`))`, readArgs...)
	}
	alts := []string{`comments.approved = '1'`}
	var args []any
	if a.UserID != 0 {
		var own []string
		own = append(own, `comments.author_id = ?`)
		args = append(args, a.UserID)
		if a.EditNoPost {
			own = append(own, `comments.post_id = 0`)
		}
		if len(editAlts) > 0 {
			own = append(own, `comments.post_id IN (SELECT p.id FROM posts p WHERE `+strings.Join(editAlts, " OR ")+`)`)
			args = append(args, editArgs...)
		}
		expr := "(" + strings.Join(own, " OR ") + ")"
		if !a.ModerateNoPost {
			expr = `(comments.post_id <> 0 AND ` + expr + `)`
		}
		alts = append(alts, expr)
	}
	c.add("("+strings.Join(alts, " OR ")+")", args...)
}

// commentWhere turns q's filters into a WHERE clause.
func commentWhere(q *store.CommentQuery) *cond {
	c := &cond{}
	if q.Search != "" {
		var args []any
		cols := []string{"comments.author_name", "comments.author_url", "comments.content"}
		if q.SearchPrivate {
			cols = append(cols, "comments.author_email", "comments.author_ip")
		}
		s := likeAny(q.Search, cols, &args)
		c.add(s, args...)
	}
	if q.After != nil {
		c.add(`comments.date > ?`, fmtTime(*q.After))
	}
	if q.Before != nil {
		c.add(`comments.date < ?`, fmtTime(*q.Before))
	}
	if len(q.Authors) > 0 {
		inList(c, "comments.author_id", q.Authors, false)
	}
	if len(q.AuthorExclude) > 0 {
		inList(c, "comments.author_id", q.AuthorExclude, true)
	}
	if q.AuthorEmail != "" {
		c.add(`comments.author_email = ? COLLATE NOCASE`, q.AuthorEmail)
	}
	if len(q.Include) > 0 {
		inList(c, "comments.id", q.Include, false)
	}
	if len(q.Exclude) > 0 {
		inList(c, "comments.id", q.Exclude, true)
	}
	if q.Karma != nil {
		c.add(`comments.karma = ?`, *q.Karma)
	}
	if len(q.Posts) > 0 {
		inList(c, "comments.post_id", q.Posts, false)
	}
	if len(q.Parents) > 0 {
		inList(c, "comments.parent", q.Parents, false)
	}
	if len(q.ParentExclude) > 0 {
		inList(c, "comments.parent", q.ParentExclude, true)
	}
	if len(q.Approved) > 0 {
		inList(c, "comments.approved", q.Approved, false)
	}
	if len(q.Types) > 0 {
		types := q.Types
		for _, t := range q.Types {
			if t == "comment" {
				types = append(types[:len(types):len(types)], "")
				break
			}
		}
		inList(c, "comments.type", types, false)
	}
	if q.Access != nil {
		accessCond(c, q.Access)
	}
	return c
}

// commentOrder returns the ORDER BY clause for q; ties break on id in the
// same direction.
func commentOrder(q *store.CommentQuery, args *[]any) string {
	dir := orderDir(q.Order, "ASC")
	var by string
	switch q.OrderBy {
	case "id":
		by = "comments.id " + dir
	case "date":
		by = "comments.date " + dir + ", comments.id " + dir
	case "post":
		by = "comments.post_id " + dir + ", comments.id " + dir
	case "parent":
		by = "comments.parent " + dir + ", comments.id " + dir
	case "type":
		by = "comments.type " + dir + ", comments.id " + dir
	case "include":
		if len(q.Include) > 0 {
			by = `(SELECT MIN(key) FROM json_each(?) WHERE value = comments.id), comments.id ASC`
			*args = append(*args, jsonList(q.Include))
			break
		}
		by = "comments.date_gmt " + dir + ", comments.id " + dir
	default: // date_gmt
		by = "comments.date_gmt " + dir + ", comments.id " + dir
	}
	return " ORDER BY " + by
}

// ListComments returns the comments q selects, in q's order, in one query.
func (o ops) ListComments(ctx context.Context, q store.CommentQuery) ([]*store.Comment, error) {
	c := commentWhere(&q)
	args := c.args
	query := `SELECT ` + commentCols + ` FROM comments` + c.where() + commentOrder(&q, &args) + limitClause(q.Limit, q.Offset, &args)
	out, err := o.queryComments(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list comments: %w", err)
	}
	return out, nil
}

// CountComments counts the comments q selects, ignoring its order and page.
func (o ops) CountComments(ctx context.Context, q store.CommentQuery) (int64, error) {
	c := commentWhere(&q)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM comments`+c.where(), c.args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count comments: %w", err)
	}
	return n, nil
}

// recountComments recomputes posts.comment_count of the given posts (0 is
// skipped) from their approved comments.
func recountComments(ctx context.Context, q querier, posts ...int64) error {
	var ids []int64
	for _, id := range posts {
		if id > 0 && (len(ids) == 0 || ids[len(ids)-1] != id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := q.exec(ctx, `UPDATE posts SET comment_count =
		(SELECT COUNT(*) FROM comments WHERE comments.post_id = posts.id AND comments.approved = '1')
		WHERE id IN (SELECT value FROM json_each(?))`, jsonList(ids)); err != nil {
		return fmt.Errorf("sqlite: recount comments: %w", err)
	}
	return nil
}

// InsertComment stores c, sets c.ID and updates its post's comment count.
func (o ops) InsertComment(ctx context.Context, c *store.Comment) error {
	if c.ID != 0 {
		return fmt.Errorf("sqlite: insert comment: id is %d, want 0", c.ID)
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `INSERT INTO comments (post_id, parent, author_id, author_name,
			author_email, author_url, author_ip, author_user_agent, date, date_gmt, content, karma,
			approved, type, pre_trash_status)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, commentArgs(c)...)
		if err != nil {
			return false, fmt.Errorf("sqlite: insert comment: %w", err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return false, fmt.Errorf("sqlite: insert comment: %w", err)
		}
		c.ID = id
		return true, recountComments(ctx, q, c.PostID)
	})
}

// UpdateComment writes every column of c and updates the comment counts of
// its old and new post.
func (o ops) UpdateComment(ctx context.Context, c *store.Comment) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		var oldPost int64
		err := q.queryRow(ctx, `SELECT post_id FROM comments WHERE id = ?`, c.ID).Scan(&oldPost)
		if errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("sqlite: comment %d: %w", c.ID, store.ErrNotFound)
		}
		if err != nil {
			return false, fmt.Errorf("sqlite: update comment %d: %w", c.ID, err)
		}
		if _, err := q.exec(ctx, `UPDATE comments SET post_id = ?, parent = ?, author_id = ?,
			author_name = ?, author_email = ?, author_url = ?, author_ip = ?, author_user_agent = ?,
			date = ?, date_gmt = ?, content = ?, karma = ?, approved = ?, type = ?, pre_trash_status = ?
			WHERE id = ?`, append(commentArgs(c), c.ID)...); err != nil {
			return false, fmt.Errorf("sqlite: update comment %d: %w", c.ID, err)
		}
		return true, recountComments(ctx, q, oldPost, c.PostID)
	})
}

// DeleteComment removes a comment, moves its replies to its parent and
// updates its post's comment count.
func (o ops) DeleteComment(ctx context.Context, id int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		var post, parent int64
		err := q.queryRow(ctx, `SELECT post_id, parent FROM comments WHERE id = ?`, id).Scan(&post, &parent)
		if errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("sqlite: comment %d: %w", id, store.ErrNotFound)
		}
		if err != nil {
			return false, fmt.Errorf("sqlite: delete comment %d: %w", id, err)
		}
		if _, err := q.exec(ctx, `UPDATE comments SET parent = ? WHERE parent = ?`, parent, id); err != nil {
			return false, fmt.Errorf("sqlite: delete comment %d: move replies: %w", id, err)
		}
		if _, err := q.exec(ctx, `DELETE FROM comments WHERE id = ?`, id); err != nil {
			return false, fmt.Errorf("sqlite: delete comment %d: %w", id, err)
		}
		return true, recountComments(ctx, q, post)
	})
}

// DeletePostComments removes every comment of a post and zeroes its count.
func (o ops) DeletePostComments(ctx context.Context, postID int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM comments WHERE post_id = ?`, postID)
		if err != nil {
			return false, fmt.Errorf("sqlite: delete comments of post %d: %w", postID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: delete comments of post %d: %w", postID, err)
		}
		if n == 0 {
			return false, nil
		}
		return true, recountComments(ctx, q, postID)
	})
}

// TrashPostComments marks the comments of a post post-trashed, remembering
// each one's status in post_trash_status, and zeroes the post's count.
func (o ops) TrashPostComments(ctx context.Context, postID int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE comments SET post_trash_status = approved, approved = ?
			WHERE post_id = ? AND approved <> ?`, store.CommentPostTrashed, postID, store.CommentPostTrashed)
		if err != nil {
			return false, fmt.Errorf("sqlite: trash comments of post %d: %w", postID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: trash comments of post %d: %w", postID, err)
		}
		if n == 0 {
			return false, nil
		}
		return true, recountComments(ctx, q, postID)
	})
}

// UntrashPostComments restores the post-trashed comments of a post to the
// status they had and recounts the post's comments.
func (o ops) UntrashPostComments(ctx context.Context, postID int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE comments SET approved = CASE WHEN approved <> ? THEN approved
				WHEN post_trash_status = '' THEN ? ELSE post_trash_status END,
			post_trash_status = ''
			WHERE post_id = ? AND (approved = ? OR post_trash_status <> '')`,
			store.CommentPostTrashed, store.CommentHeld, postID, store.CommentPostTrashed)
		if err != nil {
			return false, fmt.Errorf("sqlite: untrash comments of post %d: %w", postID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: untrash comments of post %d: %w", postID, err)
		}
		if n == 0 {
			return false, nil
		}
		return true, recountComments(ctx, q, postID)
	})
}

// CommentsWithReplies reports which of ids have an approved or held reply.
func (o ops) CommentsWithReplies(ctx context.Context, ids []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := o.reader().query(ctx, `SELECT DISTINCT parent FROM comments
		WHERE parent IN (SELECT value FROM json_each(?)) AND approved IN ('0', '1')`, jsonList(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlite: comment replies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: comment replies: %w", err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: comment replies: %w", err)
	}
	return out, nil
}

// LatestCommentDate returns the newest GMT date of a comment from ip, with
// email or by user; the zero time when there is none.
func (o ops) LatestCommentDate(ctx context.Context, ip, email string, user int64) (time.Time, error) {
	// One MAX per filter, so each part is a single index probe.
	var parts []string
	var args []any
	if ip != "" {
		parts = append(parts, `SELECT MAX(date_gmt) AS d FROM comments WHERE author_ip = ?`)
		args = append(args, ip)
	}
	if email != "" {
		parts = append(parts, `SELECT MAX(date_gmt) AS d FROM comments WHERE author_email = ? COLLATE NOCASE`)
		args = append(args, email)
	}
	if user != 0 {
		parts = append(parts, `SELECT MAX(date_gmt) AS d FROM comments WHERE author_id = ?`)
		args = append(args, user)
	}
	if len(parts) == 0 {
		return time.Time{}, nil
	}
	var latest sql.NullString
	query := `SELECT MAX(d) FROM (` + strings.Join(parts, " UNION ALL ") + `)`
	if err := o.reader().queryRow(ctx, query, args...).Scan(&latest); err != nil {
		return time.Time{}, fmt.Errorf("sqlite: latest comment: %w", err)
	}
	if !latest.Valid {
		return time.Time{}, nil
	}
	t, err := parseTime(latest.String)
	if err != nil {
		return time.Time{}, err
	}
	return t, nil
}

// DuplicateComment reports whether a non-trashed comment repeats c.
func (o ops) DuplicateComment(ctx context.Context, c *store.Comment) (bool, error) {
	author := `author_name = ?`
	args := []any{c.PostID, c.Parent, c.Content, c.AuthorName}
	if c.AuthorEmail != "" {
		author = `(author_name = ? OR author_email = ? COLLATE NOCASE)`
		args = append(args, c.AuthorEmail)
	}
	var dup bool
	if err := o.reader().queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM comments
		WHERE post_id = ? AND parent = ? AND content = ? AND approved <> 'trash' AND `+author+`)`,
		args...).Scan(&dup); err != nil {
		return false, fmt.Errorf("sqlite: duplicate comment: %w", err)
	}
	return dup, nil
}

// HasApprovedComment reports whether name and email have an approved
// comment.
func (o ops) HasApprovedComment(ctx context.Context, name, email string) (bool, error) {
	var ok bool
	if err := o.reader().queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM comments
		WHERE author_email = ? COLLATE NOCASE AND author_name = ? AND approved = '1')`,
		email, name).Scan(&ok); err != nil {
		return false, fmt.Errorf("sqlite: approved comment: %w", err)
	}
	return ok, nil
}

// postUpdateArgs returns the arguments of UpdatePost: postArgs(p) without
// comment_count, which only the comment writes change, then p.ID.
func postUpdateArgs(p *store.Post) []any {
	args := postArgs(p)
	// comment_count is the second-to-last column of postCols.
	n := len(args)
	return append(args[:n-2:n-2], args[n-1], p.ID)
}

// FirstCommentsOfPosts pages q per post with window functions, in one
// query.
func (o ops) FirstCommentsOfPosts(ctx context.Context, q store.CommentQuery, posts []int64) (map[int64][]*store.Comment, map[int64]int64, error) {
	pages := map[int64][]*store.Comment{}
	totals := map[int64]int64{}
	if len(posts) == 0 {
		return pages, totals, nil
	}
	q.Posts = posts
	c := commentWhere(&q)
	args := c.args
	order := strings.TrimPrefix(commentOrder(&q, &args), " ORDER BY ")
	query := `SELECT ` + commentCols + `, total FROM (SELECT comments.*,
		ROW_NUMBER() OVER (PARTITION BY comments.post_id ORDER BY ` + order + `) AS rn,
		COUNT(*) OVER (PARTITION BY comments.post_id) AS total
		FROM comments` + c.where() + `)`
	if q.Limit > 0 {
		query += ` WHERE rn <= ?`
		args = append(args, q.Limit)
	}
	query += ` ORDER BY post_id, rn`
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: comments of posts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var total int64
		cm, err := scanComment(totalScanner{rows, &total})
		if err != nil {
			return nil, nil, fmt.Errorf("sqlite: comments of posts: %w", err)
		}
		pages[cm.PostID] = append(pages[cm.PostID], cm)
		totals[cm.PostID] = total
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("sqlite: comments of posts: %w", err)
	}
	return pages, totals, nil
}

// totalScanner scans a comment row followed by one more column into total.
type totalScanner struct {
	s     scanner
	total *int64
}

func (t totalScanner) Scan(dest ...any) error {
	return t.s.Scan(append(dest, t.total)...)
}

var _ store.CommentPager = (*DB)(nil)
