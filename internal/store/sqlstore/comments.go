package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// commentCols lists the comments columns in scanComment's order.
const commentCols = `id, post_id, parent, author_id, author_name, author_email, author_url,
	author_ip, author_user_agent, date, date_gmt, content, karma, approved, type, pre_trash_status`

// commentInsertCols lists the columns InsertComment writes, commentArgs'
// order.
const commentInsertCols = `post_id, parent, author_id, author_name, author_email, author_url,
	author_ip, author_user_agent, date, date_gmt, content, karma, approved, type, pre_trash_status`

func scanComment(s scanner) (*store.Comment, error) {
	var c store.Comment
	if err := s.Scan(&c.ID, &c.PostID, &c.Parent, &c.AuthorID, &c.AuthorName, &c.AuthorEmail,
		&c.AuthorURL, &c.AuthorIP, &c.AuthorUserAgent, at(&c.Date), at(&c.DateGMT), &c.Content, &c.Karma,
		&c.Approved, &c.Type, &c.PreTrashStatus); err != nil {
		return nil, err
	}
	return &c, nil
}

// commentArgs returns c's columns after id, in commentInsertCols order.
func (db *DB) commentArgs(c *store.Comment) []any {
	return []any{c.PostID, c.Parent, c.AuthorID, c.AuthorName, c.AuthorEmail, c.AuthorURL,
		c.AuthorIP, c.AuthorUserAgent, db.d.Time(c.Date), db.d.Time(c.DateGMT), c.Content, c.Karma,
		c.Approved, c.Type, c.PreTrashStatus}
}

// GetComment loads one comment; store.ErrNotFound when there is none.
func (o ops) GetComment(ctx context.Context, id int64) (*store.Comment, error) {
	c, err := scanComment(o.reader().queryRow(ctx, `SELECT `+commentCols+` FROM comments WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, o.db.notFound(fmt.Sprintf("comment %d", id))
	}
	if err != nil {
		return nil, o.db.fail(fmt.Sprintf("get comment %d", id), err)
	}
	return c, nil
}

// GetComments loads the comments with the given ids in one query.
func (o ops) GetComments(ctx context.Context, ids []int64) (map[int64]*store.Comment, error) {
	out := make(map[int64]*store.Comment, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	a := &Args{}
	var list []*store.Comment
	err := collect(ctx, o.reader(), &list, scanComment, `SELECT `+commentCols+` FROM comments WHERE `+inExpr(o.db.d, a, "id", ids, false), a.vals...)
	if err != nil {
		return nil, o.db.fail("get comments", err)
	}
	for _, c := range list {
		out[c.ID] = c
	}
	return out, nil
}

// accessCond adds the conditions of a CommentAccess to c.
//
// Whether a comment's post may be read (or edited) is asked of that post
// alone, by its key (postOf), not by testing the comment's post_id
// against every post the caller may read: on PostgreSQL such an IN list
// behind an OR cannot become a join, and at a million posts it was read
// whole and searched row by row for each comment (2 s for the comments of
// one post, 6 s for the latest comments of the site, anonymous reads);
// SQLite listed the posts once per query.
func accessCond(c *cond, acc *store.CommentAccess) {
	a, d := c.a, c.d
	var readAlts, editAlts []string
	for i := range acc.Types {
		t := &acc.Types[i]
		typ := a.Add(t.Type)
		read := visibilityExpr(d, a, "p.", &t.Read)
		edit := visibilityExpr(d, a, "p.", &t.Edit)
		protected := `p.password = '' OR ` + edit
		if len(acc.UnlockedPosts) > 0 {
			protected += ` OR ` + d.In(a, "p.id", acc.UnlockedPosts, false)
		}
		readAlts = append(readAlts, `(p.type = `+typ+` AND `+read+` AND (`+protected+`))`)
		editAlts = append(editAlts, `(p.type = `+typ+` AND `+edit+`)`)
	}
	if len(readAlts) == 0 {
		c.add(`comments.post_id = 0`)
	} else {
		c.add(`(comments.post_id = 0 OR ` + postOf(readAlts) + `)`)
	}
	alts := []string{`comments.approved = '1'`}
	if acc.UserID != 0 {
		own := []string{`comments.author_id = ` + a.Add(acc.UserID)}
		if acc.EditNoPost {
			own = append(own, `comments.post_id = 0`)
		}
		if len(editAlts) > 0 {
			own = append(own, postOf(editAlts))
		}
		expr := "(" + strings.Join(own, " OR ") + ")"
		if !acc.ModerateNoPost {
			expr = `(comments.post_id <> 0 AND ` + expr + `)`
		}
		alts = append(alts, expr)
	}
	c.add("(" + strings.Join(alts, " OR ") + ")")
}

// postOf returns the condition that the comment's post (p) is one of
// which one of alts holds, looked up by its key. It is the value of a
// scalar subquery, not an EXISTS: behind the OR of comments without a
// post, PostgreSQL may answer an EXISTS by hashing every post it holds
// (a read of every readable post for each page: 170 ms at 100,000
// posts), where a scalar subquery can only be run for each comment.
func postOf(alts []string) string {
	return `COALESCE((SELECT ` + strings.Join(alts, " OR ") + ` FROM posts p WHERE p.id = comments.post_id), FALSE)`
}

// commentWhere turns q's filters into a WHERE clause; mode is how the
// search reads the table (commentSearchPlan).
func (db *DB) commentWhere(q *store.CommentQuery, a *Args, mode substringMode) *cond {
	c := db.newCond(a)
	if q.Search != "" {
		c.add(db.substringCond(a, commentIndex, "comments", q.SearchPrivate, q.Search, mode, nil))
	}
	if q.After != nil {
		c.add(`comments.date > ` + a.Add(db.d.Time(*q.After)))
	}
	if q.Before != nil {
		c.add(`comments.date < ` + a.Add(db.d.Time(*q.Before)))
	}
	if len(q.Authors) > 0 {
		inList(c, "comments.author_id", q.Authors, false)
	}
	if len(q.AuthorExclude) > 0 {
		inList(c, "comments.author_id", q.AuthorExclude, true)
	}
	if q.AuthorEmail != "" {
		c.add(db.d.Fold("comments.author_email") + ` = ` + a.Add(foldASCII(q.AuthorEmail)))
	}
	if len(q.Include) > 0 {
		inList(c, "comments.id", q.Include, false)
	}
	if len(q.Exclude) > 0 {
		inList(c, "comments.id", q.Exclude, true)
	}
	if q.Karma != nil {
		c.add(`comments.karma = ` + a.Add(*q.Karma))
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
		inList(c, "comments.type", commentTypes(q.Types), false)
	}
	if q.Access != nil {
		accessCond(c, q.Access)
	}
	return c
}

// commentTypes returns the stored types that match types: "comment"
// also matches an empty stored type.
func commentTypes(types []string) []string {
	for _, t := range types {
		if t == "comment" {
			return append(types[:len(types):len(types)], "")
		}
	}
	return types
}

// commentOrder returns the ORDER BY expressions for q, without ORDER BY;
// ties break on id in the same direction.
func (db *DB) commentOrder(q *store.CommentQuery, a *Args) string {
	dir := orderDir(q.Order, "ASC")
	switch q.OrderBy {
	case "id":
		return "comments.id " + dir
	case "date", "parent", "type":
		return "comments." + q.OrderBy + " " + dir + ", comments.id " + dir
	case "post":
		return "comments.post_id " + dir + ", comments.id " + dir
	case "include":
		if len(q.Include) > 0 {
			return db.d.Position(a, q.Include, "comments.id") + `, comments.id ASC`
		}
	}
	return "comments.date_gmt " + dir + ", comments.id " + dir
}

// commentSearchPlan chooses how q's search reads the comments
// (substringPlan): their author email and IP are searched with
// SearchPrivate only.
func (o ops) commentSearchPlan(ctx context.Context, q *store.CommentQuery) (substringMode, error) {
	return o.substringPlan(ctx, commentIndex, q.SearchPrivate, q.Search)
}

// ListComments returns the comments q selects, in q's order, in one query
// (after one that counts a search's candidates in its index:
// substringPlan).
func (o ops) ListComments(ctx context.Context, q store.CommentQuery) ([]*store.Comment, error) {
	mode, err := o.commentSearchPlan(ctx, &q)
	if err != nil {
		return nil, err
	}
	// A deep page skips its offset, reading each comment skipped and
	// looking up its post (deepPageTurn).
	leave, err := o.costlyTurn(ctx, q.Offset > o.db.deepGated)
	if err != nil {
		return nil, o.db.fail("list comments", err)
	}
	defer leave()
	a := &Args{}
	c := o.db.commentWhere(&q, a, mode)
	query := `SELECT ` + commentCols + ` FROM comments` + c.where() + ` ORDER BY ` + o.db.commentOrder(&q, a) +
		o.db.limitClause(q.Limit, q.Offset, a)
	var out []*store.Comment
	if err := collect(ctx, o.reader(), &out, scanComment, query, o.db.substringArgs(a, mode)...); err != nil {
		return nil, o.db.fail("list comments", err)
	}
	return out, nil
}

// CountComments counts the comments q selects, ignoring its order and page.
//
// A visitor's and an editor's total filtered on the comments' status and
// type alone adds up kept counts (commentCountable). Any other count not
// narrowed to some posts reads every comment it counts and looks up each
// one's post (accessCond): at a million posts on PostgreSQL, the total of
// the latest 200,000 comments took 1.9 s (4.8 s with a cold cache). It
// takes a turn with the costly reads (the search counts' slots), so that
// clients asking for it at once slow each other alone.
func (o ops) CountComments(ctx context.Context, q store.CommentQuery) (int64, error) {
	if every, ok := commentCountable(&q); ok {
		return o.countFromCommentCounts(ctx, &q, every)
	}
	mode, err := o.commentSearchPlan(ctx, &q)
	if err != nil {
		return 0, err
	}
	leave, err := o.costlyTurn(ctx, len(q.Posts) == 0)
	if err != nil {
		return 0, o.db.fail("count comments", err)
	}
	defer leave()
	a := &Args{}
	c := o.db.commentWhere(&q, a, mode)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM comments`+c.where(), o.db.substringArgs(a, mode)...).Scan(&n); err != nil {
		return 0, o.db.fail("count comments", err)
	}
	return n, nil
}

// commentCountable reports whether q's total can come from
// comment_counts (kept by triggers, migration 0033): q filters on the
// comments' status and type alone, for a reader whose view of comments
// depends on the posts' types and statuses alone. That is a reader who is
// not signed in (Access.UserID 0, so approved comments only) and may read
// posts by their status alone (no owner's statuses, no post unlocked by
// its password), as the comments of a site listed to its visitors are;
// and a reader who may edit every post it may read, whatever its author
// (every: editors and administrators, who see every comment of those
// posts, whatever its status, as a moderation screen lists them).
func commentCountable(q *store.CommentQuery) (every, ok bool) {
	acc := q.Access
	if acc == nil || q.Search != "" || q.After != nil || q.Before != nil || len(q.Authors) > 0 || len(q.AuthorExclude) > 0 ||
		q.AuthorEmail != "" || len(q.Include) > 0 || len(q.Exclude) > 0 || q.Karma != nil || len(q.Posts) > 0 ||
		len(q.Parents) > 0 || len(q.ParentExclude) > 0 {
		return false, false
	}
	if acc.UserID == 0 {
		if len(acc.UnlockedPosts) > 0 {
			return false, false
		}
		for _, t := range acc.Types {
			if t.Read.Owner != 0 || t.Edit.Owner != 0 {
				return false, false
			}
		}
		return false, true
	}
	// The comments without a post a reader may moderate but not edit are
	// its own alone, which no row counts apart.
	if acc.ModerateNoPost && !acc.EditNoPost {
		return false, false
	}
	for i := range acc.Types {
		read, byStatus := statusesOf(&acc.Types[i].Read)
		edit, editByStatus := statusesOf(&acc.Types[i].Edit)
		if !byStatus || !editByStatus {
			return false, false
		}
		for _, st := range read {
			if !slices.Contains(edit, st) {
				return false, false
			}
		}
	}
	return true, true
}

// statusesOf returns the statuses of the posts v shows, whoever their
// author, and false when it shows some only to their author (an own
// status that is neither public nor one of others' posts).
func statusesOf(v *store.Visibility) ([]string, bool) {
	all := append(slices.Clone(v.Public), v.OthersStatuses...)
	if v.Owner != 0 {
		for _, st := range v.OwnStatuses {
			if !slices.Contains(all, st) {
				return nil, false
			}
		}
	}
	return all, true
}

// countFromCommentCounts counts the comments of a commentCountable query
// in one statement, from the comment_counts rows of what accessCond
// lets the reader list. A visitor: approved comments without a post or on
// a post of a type whose status it may read, without a password or of a
// status it may edit. A reader who may edit every post it may read
// (every): every comment on those posts (its password and the comment's
// approval do not matter to an editor of the post), and the comments
// without a post that it may moderate, or the approved ones.
func (o ops) countFromCommentCounts(ctx context.Context, q *store.CommentQuery, every bool) (int64, error) {
	a := &Args{}
	c := o.db.newCond(a)
	if !every {
		c.add(`approved = '1'`)
	}
	if len(q.Approved) > 0 {
		inList(c, "approved", q.Approved, false)
	}
	if len(q.Types) > 0 {
		inList(c, "type", commentTypes(q.Types), false)
	}
	alts := []string{`post_type = ''`}
	if every && !q.Access.ModerateNoPost {
		alts[0] = `(post_type = '' AND approved = '1')`
	}
	for i := range q.Access.Types {
		t := &q.Access.Types[i]
		if every {
			if read, _ := statusesOf(&t.Read); len(read) > 0 {
				alts = append(alts, `(post_type = `+a.Add(t.Type)+` AND `+inExpr(o.db.d, a, "post_status", read, false)+`)`)
			}
			continue
		}
		read := visibilityExpr(o.db.d, a, "post_", &t.Read)
		edit := visibilityExpr(o.db.d, a, "post_", &t.Edit)
		alts = append(alts, `(post_type = `+a.Add(t.Type)+` AND `+read+` AND (NOT protected OR `+edit+`))`)
	}
	c.add("(" + strings.Join(alts, " OR ") + ")")
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COALESCE(CAST(SUM(n) AS BIGINT), 0) FROM comment_counts`+c.where(), a.vals...).Scan(&n); err != nil {
		return 0, o.db.fail("count comments", err)
	}
	return n, nil
}

// recountComments recomputes posts.comment_count of the given posts (0 is
// skipped) from their approved comments.
func (db *DB) recountComments(ctx context.Context, q querier, posts ...int64) error {
	var ids []int64
	for _, id := range posts {
		if id > 0 && (len(ids) == 0 || ids[len(ids)-1] != id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if _, err := db.lockRows(ctx, q, "posts", ids, false); err != nil {
		return err
	}
	a := &Args{}
	if _, err := q.exec(ctx, `UPDATE posts SET comment_count =
		(SELECT COUNT(*) FROM comments WHERE comments.post_id = posts.id AND comments.approved = '1')
		WHERE `+db.d.In(a, "id", ids, false), a.vals...); err != nil {
		return db.fail("recount comments", err)
	}
	return nil
}

// InsertComment stores c, sets c.ID and updates its post's comment count.
func (o ops) InsertComment(ctx context.Context, c *store.Comment) error {
	if c.ID != 0 {
		return o.db.errorf("insert comment: id is %d, want 0", c.ID)
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if c.Parent != 0 {
			// A reply keeps its parent until it has committed: deleting
			// the parent, which moves its replies up, waits for it.
			n, err := o.db.lockRows(ctx, q, "comments", []int64{c.Parent}, true)
			if err != nil {
				return false, err
			}
			if n == 0 {
				return false, o.db.notFound(fmt.Sprintf("comment %d (the parent)", c.Parent))
			}
		}
		id, err := q.insert(ctx, "comments", commentInsertCols, o.db.commentArgs(c)...)
		if err != nil {
			return false, o.db.fail("insert comment", err)
		}
		c.ID = id
		return true, o.db.recountComments(ctx, q, c.PostID)
	})
}

// UpdateComment writes every column of c and updates the comment counts of
// its old and new post.
func (o ops) UpdateComment(ctx context.Context, c *store.Comment) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		var oldPost int64
		err := q.queryRow(ctx, `SELECT post_id FROM comments WHERE id = $1`, c.ID).Scan(&oldPost)
		if errors.Is(err, sql.ErrNoRows) {
			return false, o.db.notFound(fmt.Sprintf("comment %d", c.ID))
		}
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("update comment %d", c.ID), err)
		}
		if _, err := q.exec(ctx, `UPDATE comments SET post_id = $1, parent = $2, author_id = $3,
			author_name = $4, author_email = $5, author_url = $6, author_ip = $7,
			author_user_agent = $8, date = $9, date_gmt = $10, content = $11, karma = $12,
			approved = $13, type = $14, pre_trash_status = $15
			WHERE id = $16`, append(o.db.commentArgs(c), c.ID)...); err != nil {
			return false, o.db.fail(fmt.Sprintf("update comment %d", c.ID), err)
		}
		return true, o.db.recountComments(ctx, q, oldPost, c.PostID)
	})
}

// DeleteComment removes a comment, moves its replies to its parent and
// updates its post's comment count.
func (o ops) DeleteComment(ctx context.Context, id int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		var post, parent int64
		// The row lock makes a reply being inserted commit first, so that
		// the statement moving the replies up sees it.
		err := q.queryRow(ctx, `SELECT post_id, parent FROM comments WHERE id = $1`+o.db.d.Lock(false), id).Scan(&post, &parent)
		if errors.Is(err, sql.ErrNoRows) {
			return false, o.db.notFound(fmt.Sprintf("comment %d", id))
		}
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("delete comment %d", id), err)
		}
		if _, err := q.exec(ctx, `UPDATE comments SET parent = $1 WHERE parent = $2`, parent, id); err != nil {
			return false, o.db.fail(fmt.Sprintf("delete comment %d: move replies", id), err)
		}
		if _, err := q.exec(ctx, `DELETE FROM comments WHERE id = $1`, id); err != nil {
			return false, o.db.fail(fmt.Sprintf("delete comment %d", id), err)
		}
		return true, o.db.recountComments(ctx, q, post)
	})
}

// postCommentsWrite runs one statement on the comments of a post and, when
// it touched any, recounts the post's comments.
func (o ops) postCommentsWrite(ctx context.Context, postID int64, what, query string, args ...any) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		res, err := q.exec(ctx, query, args...)
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("%s of post %d", what, postID), err)
		}
		n, err := o.db.rowsAffected(res, fmt.Sprintf("%s of post %d", what, postID))
		if err != nil || n == 0 {
			return false, err
		}
		return true, o.db.recountComments(ctx, q, postID)
	})
}

// DeletePostComments removes every comment of a post and zeroes its count.
func (o ops) DeletePostComments(ctx context.Context, postID int64) error {
	return o.postCommentsWrite(ctx, postID, "delete comments", `DELETE FROM comments WHERE post_id = $1`, postID)
}

// TrashPostComments marks the comments of a post post-trashed, remembering
// each one's status in post_trash_status, and zeroes the post's count.
func (o ops) TrashPostComments(ctx context.Context, postID int64) error {
	return o.postCommentsWrite(ctx, postID, "trash comments", `UPDATE comments SET post_trash_status = approved, approved = $1
		WHERE post_id = $2 AND approved <> $1`, store.CommentPostTrashed, postID)
}

// UntrashPostComments restores the post-trashed comments of a post to the
// status they had and recounts the post's comments.
func (o ops) UntrashPostComments(ctx context.Context, postID int64) error {
	return o.postCommentsWrite(ctx, postID, "untrash comments", `UPDATE comments SET approved = CASE WHEN approved <> $1 THEN approved
			WHEN post_trash_status = '' THEN $2 ELSE post_trash_status END,
		post_trash_status = ''
		WHERE post_id = $3 AND (approved = $1 OR post_trash_status <> '')`,
		store.CommentPostTrashed, store.CommentHeld, postID)
}

// CommentsWithReplies reports which of ids have an approved or held reply.
func (o ops) CommentsWithReplies(ctx context.Context, ids []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	a := &Args{}
	err := o.reader().query(ctx, func(rows Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	}, `SELECT DISTINCT parent FROM comments WHERE `+inExpr(o.db.d, a, "parent", ids, false)+` AND approved IN ('0', '1')`, a.vals...)
	if err != nil {
		return nil, o.db.fail("comment replies", err)
	}
	return out, nil
}

// DuplicateComment reports whether a non-trashed comment repeats c.
func (o ops) DuplicateComment(ctx context.Context, c *store.Comment) (bool, error) {
	a := &Args{}
	where := `post_id = ` + a.Add(c.PostID) + ` AND parent = ` + a.Add(c.Parent) +
		` AND content = ` + a.Add(c.Content) + ` AND approved <> 'trash' AND `
	if c.AuthorEmail != "" {
		where += `(author_name = ` + a.Add(c.AuthorName) + ` OR ` + o.db.d.Fold("author_email") + ` = ` + a.Add(foldASCII(c.AuthorEmail)) + `)`
	} else {
		where += `author_name = ` + a.Add(c.AuthorName)
	}
	var dup bool
	if err := o.reader().queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM comments WHERE `+where+`)`, a.vals...).Scan(&dup); err != nil {
		return false, o.db.fail("duplicate comment", err)
	}
	return dup, nil
}

// HasApprovedComment reports whether name and email have an approved
// comment.
func (o ops) HasApprovedComment(ctx context.Context, name, email string) (bool, error) {
	var ok bool
	if err := o.reader().queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM comments
		WHERE `+o.db.d.Fold("author_email")+` = $1 AND author_name = $2 AND approved = '1')`,
		foldASCII(email), name).Scan(&ok); err != nil {
		return false, o.db.fail("approved comment", err)
	}
	return ok, nil
}

// FirstCommentsOfPosts returns, in one query, the first q.Limit comments
// q matches on each of posts and how many it matches on each (window
// functions).
func (o ops) FirstCommentsOfPosts(ctx context.Context, q store.CommentQuery, posts []int64) (map[int64][]*store.Comment, map[int64]int64, error) {
	pages := map[int64][]*store.Comment{}
	totals := map[int64]int64{}
	if len(posts) == 0 {
		return pages, totals, nil
	}
	q.Posts = posts
	mode, err := o.commentSearchPlan(ctx, &q)
	if err != nil {
		return nil, nil, err
	}
	a := &Args{}
	c := o.db.commentWhere(&q, a, mode)
	query := `SELECT ` + commentCols + `, total FROM (SELECT comments.*,
		ROW_NUMBER() OVER (PARTITION BY comments.post_id ORDER BY ` + o.db.commentOrder(&q, a) + `) AS rn,
		COUNT(*) OVER (PARTITION BY comments.post_id) AS total
		FROM comments` + c.where() + `) AS ranked`
	if q.Limit > 0 {
		query += ` WHERE rn <= ` + a.Add(int64(q.Limit))
	}
	query += ` ORDER BY post_id, rn`
	err = o.reader().query(ctx, func(rows Rows) error {
		var total int64
		cm, err := scanComment(withExtra{rows, []any{&total}})
		if err != nil {
			return err
		}
		pages[cm.PostID] = append(pages[cm.PostID], cm)
		totals[cm.PostID] = total
		return nil
	}, query, o.db.substringArgs(a, mode)...)
	if err != nil {
		return nil, nil, o.db.fail("comments of posts", err)
	}
	return pages, totals, nil
}
