package bench

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParagraphIsOneBlockOfAboutTheSize(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200 {
		p := Paragraph(rng, soakBodyBytes)
		if len(p) > soakBodyBytes || len(p) < soakBodyBytes-150 {
			t.Fatalf("paragraph of %d bytes, want at most %d and at least %d", len(p), soakBodyBytes, soakBodyBytes-150)
		}
		if !strings.HasPrefix(p, "<!-- wp:paragraph -->\n<p>") || !strings.HasSuffix(p, "</p>\n<!-- /wp:paragraph -->") || strings.Count(p, "<p>") != 1 {
			t.Fatalf("not one paragraph block: %q", p)
		}
	}
}

func TestSoakReadMix(t *testing.T) {
	t.Parallel()
	const api = "http://x/api/svc/v2"
	// Each kind's URL, matched by prefix.
	prefixes := []string{"/posts?page=", "/posts?_embed&page=", "/posts/1", "/comments?post=1", "/posts?search=lorem"}
	build := soakRead(api, []int64{11, 12, 13})
	rng := rand.New(rand.NewPCG(1, 2))
	counts := make([]int, len(soakReadKinds))
	const n = 20000
	for range n {
		kind, req, err := build(context.Background(), rng)
		if err != nil {
			t.Fatal(err)
		}
		u := strings.TrimPrefix(req.URL.String(), api)
		if req.Method != "GET" || !strings.HasPrefix(u, prefixes[kind]) {
			t.Fatalf("read of kind %s: %s %s", soakReadKinds[kind].Name, req.Method, req.URL)
		}
		counts[kind]++
	}
	sum := 0
	for i, k := range soakReadKinds {
		sum += k.Pct
		if got := counts[i] * 100 / n; got < k.Pct-2 || got > k.Pct+2 {
			t.Errorf("%s: %d%% of the reads, want about %d%%", k.Name, got, k.Pct)
		}
	}
	if sum != 100 {
		t.Errorf("the kinds' shares add up to %d%%", sum)
	}
	// Without posts, the reads that need one are list pages.
	empty := soakRead(api, nil)
	for range 1000 {
		kind, req, err := empty(context.Background(), rng)
		if err != nil || kind == 2 || kind == 3 || !strings.HasPrefix(strings.TrimPrefix(req.URL.String(), api), prefixes[kind]) {
			t.Fatalf("read without posts: kind %d %s %v", kind, req.URL, err)
		}
	}
}

func TestSoakCreateSendsAPublishedPostWithTheAdminsPassword(t *testing.T) {
	t.Parallel()
	r, err := soakCreate("http://x/api/svc/v2", "admin", "pw")(context.Background(), rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	user, pass, ok := r.BasicAuth()
	if r.Method != "POST" || r.URL.String() != "http://x/api/svc/v2/posts" || !ok || user != "admin" || pass != "pw" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("create = %s %s auth %q/%q %v", r.Method, r.URL, user, pass, ok)
	}
	if r.ContentLength < soakBodyBytes-150 || r.ContentLength > soakBodyBytes+300 {
		t.Errorf("create body of %d bytes", r.ContentLength)
	}
}

func TestParseGroupStatsSumsCheckpointsByResult(t *testing.T) {
	t.Parallel()
	text := `# HELP folio_sqlite_group_batches_total x
# TYPE folio_sqlite_group_batches_total counter
folio_sqlite_group_batches_total 120
folio_sqlite_group_members_total 300
folio_sqlite_group_shared_batches_total 40
folio_sqlite_wal_checkpoints_total{mode="truncate",result="busy"} 2
folio_sqlite_wal_checkpoints_total{mode="truncate",result="done"} 5
folio_sqlite_wal_checkpoints_total{mode="restart",result="done"} 1
folio_sqlite_wal_bytes 1.2e+07
folio_http_requests_in_flight 3
`
	g, err := parseGroupStats(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := groupStats{sqlite: true, batches: 120, members: 300, checkpts: 6, busy: 2}
	if g != want {
		t.Errorf("parsed %+v, want %+v", g, want)
	}
	d := want.since(groupStats{sqlite: true, batches: 100, members: 250, checkpts: 5, busy: 2})
	if *d != (GroupDelta{Batches: 20, Members: 50, Checkpoints: 1, Busy: 0}) {
		t.Errorf("delta = %+v", *d)
	}
	none, err := parseGroupStats(strings.NewReader("folio_http_requests_in_flight 3\n"))
	if err != nil || none.sqlite {
		t.Errorf("a scrape without the SQLite counters parsed as %+v, %v", none, err)
	}
}
