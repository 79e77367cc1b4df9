package storetest_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
	"github.com/folio-server/folio/internal/store/storetest"
)

// substringSite opens a store of the selected backend with n comments (on
// published and private posts), n/10 users and n/10 tags, a few of each
// with the rare word "zwetschge", with fresh planner statistics. It
// returns the pool for PostgreSQL's generic plans (nil on SQLite).
//
// PostgreSQL gets ten times as many comments, and as many users and tags
// as comments, inserted by SQL: on a few thousand rows (a hundred pages)
// it rightly reads the table rather than an index, and the test is about
// the plans of large tables.
func substringSite(t *testing.T, n int) (*sqlstore.DB, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	var db *sqlstore.DB
	var pool *pgxpool.Pool
	var analyze func() error
	if storetest.Backend() == "postgres" {
		pg := storetest.OpenPostgres(t, storetest.PostgresURL(t))
		db, pool = pg.DB, pg.Pool()
		// VACUUM too, as autovacuum does: it moves the rows inserted since
		// the GIN indexes were built from their pending lists (read in
		// full by every search) into the indexes.
		analyze = func() error { _, err := pool.Exec(ctx, `VACUUM (ANALYZE)`); return err }
	} else {
		lite := storetest.OpenSQLite(t, t.TempDir()+"/folio.db")
		db, analyze = lite.DB, func() error { return lite.Optimize(ctx) }
	}
	var posts []int64
	for i := range 20 {
		p := &store.Post{Type: "post", Status: "publish", Author: 1, Title: fmt.Sprintf("p%d", i)}
		if i%5 == 4 {
			p.Status = "private"
		}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p.ID)
	}
	if pool != nil {
		n *= 10
		for _, q := range []string{
			`INSERT INTO comments (post_id, approved, type, date, date_gmt, author_name, author_email, author_ip, content)
				SELECT ` + strconv.FormatInt(posts[0], 10) + ` + i % 20, CASE WHEN i % 20 = 3 THEN '0' ELSE '1' END, 'comment',
					timestamp '2020-01-01' + i * interval '1 hour', timestamp '2020-01-01' + i * interval '1 hour',
					'Visitor ' || i, 'visitor' || i || '@example.org', '10.0.' || (i / 256 % 256) || '.' || (i % 256),
					(ARRAY['the garden', 'of tomatoes', 'grows in spring', 'and summer', 'with water'])[1 + i % 5] || ' number ' || i ||
					CASE WHEN i % 1000 = 17 THEN ' zwetschge' ELSE '' END
				FROM generate_series(0, $1 - 1) AS i`,
			`INSERT INTO users (login, email, nicename, display_name)
				SELECT 'user' || i, 'user' || i || '@example.org', 'user-' || i,
					'User ' || i || CASE WHEN i % 1000 = 10 THEN ' Zwetschge' ELSE '' END
				FROM generate_series(0, $1 - 1) AS i`,
			`INSERT INTO terms (taxonomy, name, slug)
				SELECT 'post_tag', 'Tag ' || i || CASE WHEN i % 1000 = 10 THEN ' Zwetschge' ELSE '' END, 'tag-' || i
				FROM generate_series(0, $1 - 1) AS i`,
		} {
			if _, err := pool.Exec(ctx, q, n); err != nil {
				t.Fatal(err)
			}
		}
		if err := analyze(); err != nil {
			t.Fatal(err)
		}
		return db, pool
	}
	words := strings.Fields("the garden of tomatoes grows in spring and summer with water sun and care")
	err := db.Tx(ctx, func(tx store.Store) error {
		for i := range n {
			d := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
			c := &store.Comment{PostID: posts[i%len(posts)], Approved: "1", Type: "comment", Date: d, DateGMT: d,
				AuthorName: fmt.Sprintf("Visitor %d", i), AuthorEmail: fmt.Sprintf("visitor%d@example.org", i), AuthorIP: fmt.Sprintf("10.0.%d.%d", i/256%256, i%256),
				Content: fmt.Sprintf("%s %s %s number %d", words[i%len(words)], words[i*7%len(words)], words[i*3%len(words)], i)}
			if i%1000 == 17 {
				c.Content += " zwetschge"
			}
			if i%20 == 3 {
				c.Approved = "0"
			}
			if err := tx.InsertComment(ctx, c); err != nil {
				return err
			}
			if i%10 != 0 {
				continue
			}
			u := &store.User{Login: fmt.Sprintf("user%d", i), Email: fmt.Sprintf("user%d@example.org", i), Nicename: fmt.Sprintf("user-%d", i),
				DisplayName: fmt.Sprintf("User %s %d", words[i%len(words)], i), Registered: d}
			tm := &store.Term{Taxonomy: "post_tag", Name: fmt.Sprintf("%s %d", words[i%len(words)], i), Slug: fmt.Sprintf("tag-%d", i)}
			if i%1000 == 10 {
				u.DisplayName += " Zwetschge"
				tm.Name += " Zwetschge"
			}
			if err := tx.InsertUser(ctx, u); err != nil {
				return err
			}
			if err := tx.InsertTerm(ctx, tm); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := analyze(); err != nil {
		t.Fatal(err)
	}
	return db, pool
}

// genericPlan returns PostgreSQL's generic plan of p, the one the server's
// prepared statements come to use (EXPLAIN of a statement with its
// parameters makes a custom plan for their values).
func genericPlan(t *testing.T, pool *pgxpool.Pool, p sqlstore.Plan) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var lits []string
	for i, a := range p.Args {
		switch v := a.(type) {
		case pgx.QueryExecMode:
			continue
		case string:
			lits = append(lits, "'"+strings.ReplaceAll(v, "'", "''")+"'")
		case int64:
			lits = append(lits, strconv.FormatInt(v, 10))
		case []int64:
			s := make([]string, len(v))
			for k, x := range v {
				s[k] = strconv.FormatInt(x, 10)
			}
			lits = append(lits, "'{"+strings.Join(s, ",")+"}'")
		default:
			t.Fatalf("parameter %d of %s: %T", i+1, p.SQL, a)
		}
	}
	for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE folio_generic AS ` + p.SQL} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	defer func() {
		_, _ = conn.Exec(ctx, `DEALLOCATE folio_generic`)
		_, _ = conn.Exec(ctx, `RESET plan_cache_mode`)
	}()
	rows, err := conn.Query(ctx, `EXPLAIN EXECUTE folio_generic(`+strings.Join(lits, ", ")+`)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestSubstringSearchPlansUseTheIndex checks the plans of searches of
// comments, users and terms, so that a search of three characters or
// more that few rows match reads the index and looks its candidates up by
// id, one that most rows match reads the rows (in order, for a page), and
// one of fewer characters reads a bounded window of the newest rows: no
// statement of the first and last kinds scans the table. On PostgreSQL the
// searches of three characters or more are planned for their values each
// time they run, and the generic plans of the others (which prepared
// statements come to use) are checked too.
func TestSubstringSearchPlansUseTheIndex(t *testing.T) {
	t.Parallel()
	db, pool := substringSite(t, 3000)
	// A window of a thirtieth of PostgreSQL's comments, as 10,000 is of
	// 300,000: one of a third is rightly read with the table.
	db.SetSubstringPlans(1000, 4)
	ctx := context.Background()
	lite := storetest.Backend() == "sqlite"
	anon := &store.CommentAccess{Types: []store.CommentTypeAccess{{Type: "post", Read: store.Visibility{Public: []string{"publish"}}}}}
	comments := func(q store.CommentQuery) func(context.Context) error {
		return func(ctx context.Context) error {
			q.Limit, q.OrderBy, q.Order = 10, "date_gmt", "desc"
			if _, err := db.ListComments(ctx, q); err != nil {
				return err
			}
			q.Limit, q.OrderBy, q.Order = 0, "", ""
			_, err := db.CountComments(ctx, q)
			return err
		}
	}
	users := func(q store.UserQuery) func(context.Context) error {
		return func(ctx context.Context) error {
			q.Limit = 10
			if _, err := db.ListUsers(ctx, q); err != nil {
				return err
			}
			q.Limit = 0
			_, err := db.CountUsers(ctx, q)
			return err
		}
	}
	terms := func(q store.TermQuery) func(context.Context) error {
		return func(ctx context.Context) error {
			q.Limit = 10
			if _, err := db.ListTerms(ctx, q); err != nil {
				return err
			}
			q.Limit = 0
			_, err := db.CountTerms(ctx, q)
			return err
		}
	}
	const (
		rare   = iota // a search of three characters or more in few rows
		common        // one in most rows
		short         // one of one or two characters
	)
	tests := []struct {
		name  string
		table string
		run   func(context.Context) error
		kind  int
		// uses must appear in the plans of the list and the count (SQLite,
		// PostgreSQL).
		uses [2][]string
	}{
		{"comments, anonymous", "comments", comments(store.CommentQuery{Search: "Zwetschge", Access: anon}), rare,
			[2][]string{{"comments_fts VIRTUAL TABLE", "USING INTEGER PRIMARY KEY"}, {"Bitmap Index Scan on comments_search "}}},
		{"comments, moderator", "comments", comments(store.CommentQuery{Search: "zwetschge", SearchPrivate: true}), rare,
			[2][]string{{"comments_fts VIRTUAL TABLE", "comments_private_fts VIRTUAL TABLE"}, {"Bitmap Index Scan on comments_search ", "Bitmap Index Scan on comments_search_private"}}},
		{"comments, moderator, an address", "comments", comments(store.CommentQuery{Search: "10.0.7.", SearchPrivate: true}), rare,
			[2][]string{{"comments_private_fts VIRTUAL TABLE"}, {"Bitmap Index Scan on comments_search_private"}}},
		{"comments, non-ASCII", "comments", comments(store.CommentQuery{Search: "ZWETSCHGË", Access: anon}), rare,
			[2][]string{{"comments_fts VIRTUAL TABLE"}, {"Bitmap Index Scan on comments_search "}}},
		{"users", "users", users(store.UserQuery{Search: "zwetschge"}), rare,
			[2][]string{{"users_fts VIRTUAL TABLE"}, {"Bitmap Index Scan on users_search "}}},
		{"users, a number (also an id)", "users", users(store.UserQuery{Search: "2010"}), rare,
			[2][]string{{"users_fts VIRTUAL TABLE"}, {"Bitmap Index Scan on users_search "}}},
		{"users, list_users", "users", users(store.UserQuery{Search: "user2@", SearchAccounts: true}), rare,
			[2][]string{{"users_private_fts VIRTUAL TABLE"}, {"Bitmap Index Scan on users_search_private"}}},
		{"tags", "terms", terms(store.TermQuery{Taxonomy: "post_tag", Search: "zwetschge"}), rare,
			[2][]string{{"terms_fts VIRTUAL TABLE"}, {"Bitmap Index Scan on terms_search"}}},
		{"comments, a word in every one", "comments", comments(store.CommentQuery{Search: "number", Access: anon}), common,
			[2][]string{{}, {}}},
		{"comments, one character", "comments", comments(store.CommentQuery{Search: "z", Access: anon}), short,
			[2][]string{{"USING INTEGER PRIMARY KEY"}, {"Index Only Scan Backward using comments_pkey"}}},
		{"users, two characters", "users", users(store.UserQuery{Search: "ze"}), short,
			[2][]string{{"USING INTEGER PRIMARY KEY"}, {"Index Only Scan Backward using users_pkey"}}},
		{"tags, two characters", "terms", terms(store.TermQuery{Taxonomy: "post_tag", Search: "ze"}), short,
			[2][]string{{"COVERING INDEX terms_taxonomy_id"}, {"Scan Backward using terms_"}}},
	}
	for _, tt := range tests {
		plans, err := db.Plans(ctx, tt.run)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		// On SQLite a search of three characters or more first counts
		// its candidates in the index, up to a quarter of the table.
		guarded := lite && tt.kind != short
		if want := map[bool]int{false: 2, true: 4}[guarded]; len(plans) != want {
			t.Fatalf("%s: %d statements, want %d", tt.name, len(plans), want)
		}
		if guarded {
			for i := 0; i < 4; i += 2 {
				if !strings.Contains(plans[i].String(), "_fts VIRTUAL TABLE") {
					t.Errorf("%s: the count of candidates does not use the index:\n%s\n%s", tt.name, plans[i].SQL, plans[i].String())
				}
			}
			plans = []sqlstore.Plan{plans[1], plans[3]}
		}
		for _, p := range plans {
			texts := []string{p.String()}
			// On PostgreSQL, a search of three characters or more is
			// planned for its values each time it runs (PlanEach); the
			// others are prepared statements, which come to a generic
			// plan.
			if !lite {
				_, each := p.Args[0].(pgx.QueryExecMode)
				if each != (tt.kind != short) {
					t.Errorf("%s: planned for each search: %v:\n%s", tt.name, each, p.SQL)
				}
				if !each {
					texts = append(texts, genericPlan(t, pool, p))
				}
			}
			for _, text := range texts {
				uses := tt.uses[1]
				if lite {
					uses = tt.uses[0]
				}
				for _, u := range uses {
					if !strings.Contains(text, u) {
						t.Errorf("%s: the plan does not use %q:\n%s\n%s", tt.name, u, p.SQL, text)
					}
				}
				if tt.kind == common {
					// The rows, in order, rather than the candidates.
					if strings.Contains(text, "_fts VIRTUAL TABLE") || strings.Contains(text, "Bitmap Index Scan on "+tt.table+"_search") && strings.Contains(p.SQL, "LIMIT") {
						t.Errorf("%s: a common search reads the index's candidates:\n%s\n%s", tt.name, p.SQL, text)
					}
					continue
				}
				for _, step := range strings.Split(text, "\n") {
					step = strings.TrimSpace(step)
					// A full scan of the table: SQLite's window scans
					// the newest rows in id order (a LIMIT stops it),
					// which its plan writes as SCAN of the table too.
					scan := !lite && strings.Contains(step, "Seq Scan on "+tt.table) ||
						lite && tt.kind != short && (step == "SCAN "+tt.table || strings.HasPrefix(step, "SCAN "+tt.table+" "))
					if scan {
						t.Errorf("%s: step %q scans %s:\n%s\n%s", tt.name, step, tt.table, p.SQL, text)
					}
				}
			}
		}
	}
}
