package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/rest"
	"github.com/jackc/pgx/v5"
)

// The soak's load (Options.Soak): a site's sustained day, reads and writes
// at once, for long enough that what grows without bound (the SQLite WAL,
// the server's memory) shows.
const (
	// SoakReaders is how many connections read: half list pages 1-50, a
	// fifth _embed pages, the rest single posts, search=lorem and a post's
	// comments (soakRead).
	SoakReaders = 12
	// SoakWriters is how many connections create posts, each with a body
	// of about soakBodyBytes.
	SoakWriters = 4
	// DefaultSoakInterval is how often the soak reports.
	DefaultSoakInterval = 30 * time.Second
	// SoakWALLimit and SoakRSSLimit are the bounds the soak's summary
	// checks: the SQLite WAL's largest size and the server's peak RSS.
	SoakWALLimit int64 = 128 << 20
	SoakRSSLimit int64 = 200 << 20
	// soakBodyBytes is the size of a created post's content.
	soakBodyBytes = 700
	// soakSampleEvery is how often the WAL's size is looked at between
	// reports, for its maximum.
	soakSampleEvery = time.Second
	// metricsWait bounds the wait for the server's metrics address.
	metricsWait = 5 * time.Second
)

// SoakInterval is what one reporting interval of a soak measured.
type SoakInterval struct {
	// End is the time since the load started, at the interval's end;
	// Span the interval's length.
	End, Span time.Duration
	// Reads and Writes are the interval's requests.
	Reads, Writes SoakCount
	// WAL is the SQLite WAL's size at the end of the interval and WALMax
	// its largest size seen during it; on PostgreSQL, WAL is the WAL
	// written since the soak started (pg_current_wal_lsn) and WALMax 0.
	WAL, WALMax int64
	// DB is the database's size: the SQLite file, or the PostgreSQL
	// schema's tables with their indexes and TOAST.
	DB int64
	// RSS is the server's resident memory at the end of the interval.
	RSS int64
	// Group is what SQLite's group-commit writer did during the interval,
	// from the server's metrics; nil when they could not be read.
	Group *GroupDelta
}

// SoakCount is a count of requests with their latencies.
type SoakCount struct {
	Requests, Errors int64
	P50, P99         time.Duration
	Rate             float64 // requests per second
}

// SoakKind is the whole soak's count of one kind of read.
type SoakKind struct {
	Name string
	SoakCount
}

// GroupDelta is what the SQLite writer did during an interval.
type GroupDelta struct {
	Batches, Members int64
	// Checkpoints completed (the WAL truncated) and busy (readers kept a
	// checkpoint from completing).
	Checkpoints, Busy int64
}

// SoakReport is the outcome of a soak.
type SoakReport struct {
	Backend   string
	Posts     int
	Duration  time.Duration
	Interval  time.Duration
	CPUs      int
	GoVersion string
	Intervals []SoakInterval
	// Reads and Writes are the whole soak's requests; ReadKinds the reads
	// by kind (soakReadKinds).
	Reads, Writes SoakCount
	ReadKinds     []SoakKind
	// WALMax is the largest SQLite WAL seen; on PostgreSQL the WAL
	// written during the soak.
	WALMax int64
	// RSSMax is the largest RSS seen at a report; Peak the server's peak
	// RSS (VmHWM) at the end.
	RSSMax, Peak int64
	// FirstReadError and FirstWriteError describe the first failures.
	FirstReadError, FirstWriteError string
}

// sqlite reports whether the soak ran on SQLite (the WAL bound applies).
func (r *SoakReport) sqlite() bool { return r.Backend == "SQLite" }

// WALBounded reports whether the SQLite WAL stayed within SoakWALLimit.
// It is false on PostgreSQL, whose WAL is the database server's.
func (r *SoakReport) WALBounded() bool { return r.sqlite() && r.WALMax <= SoakWALLimit }

// RSSBounded reports whether the server's peak RSS stayed within
// SoakRSSLimit.
func (r *SoakReport) RSSBounded() bool { return max(r.Peak, r.RSSMax) <= SoakRSSLimit }

// Soak seeds a site (or takes the one opts.Keep holds), starts one `folio
// serve` and drives it for opts.Soak with SoakReaders reading and
// SoakWriters creating posts at once. Every opts.SoakInterval, and at the
// end, it writes a table row to out (reads and writes per second with
// their p50/p99, the WAL's and the database's size, the server's RSS and
// the writer's batches and checkpoints); the summary follows the table.
func Soak(ctx context.Context, opts Options, out io.Writer) (*SoakReport, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if opts.Soak <= 0 {
		return nil, errors.New("bench: soak duration must be positive")
	}
	if opts.Nodes > 1 {
		return nil, errors.New("bench: a soak runs one node")
	}
	if opts.SoakInterval <= 0 {
		opts.SoakInterval = DefaultSoakInterval
	}
	logf := func(format string, args ...any) { fmt.Fprintf(opts.Log, format+"\n", args...) }
	st, cleanup, err := prepareSite(ctx, opts, logf)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	env, removeEnv, err := serverEnv(opts)
	if err != nil {
		return nil, err
	}
	defer removeEnv()
	folio, err := startProcess(ctx, opts.Exe, env, append([]string{"serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, st.args...)...)
	if err != nil {
		return nil, err
	}
	defer folio.stop(20 * time.Second)
	logf("folio at %s (pid %d)", folio.URL, folio.Pid())
	metricsURL := folio.metricsURL(metricsWait)
	if metricsURL == "" {
		logf("no metrics address in the server's output: the writer's batches are not reported")
	}

	var sz sizer
	if st.dbURL != "" {
		p, err := newPGSizer(ctx, st.dbURL)
		if err != nil {
			return nil, err
		}
		defer p.close()
		sz = p
	} else {
		sz = fileSizer(st.dbFile)
	}

	rep := &SoakReport{
		Backend:   st.backend,
		Posts:     opts.Posts,
		Duration:  opts.Soak,
		Interval:  opts.SoakInterval,
		CPUs:      runtime.NumCPU(),
		GoVersion: runtime.Version(),
	}
	fmt.Fprintf(out, "# folio bench --soak\n\n%s\n\n", rep.header())
	fmt.Fprint(out, rep.tableHead())

	api := folio.URL + rest.DefaultNames().Prefix + "/" + rest.DefaultNames().Namespace
	readers, writers := &recorder{}, &recorder{}
	readClient, writeClient := NewClient(SoakReaders), NewClient(SoakWriters)
	defer readClient.CloseIdleConnections()
	defer writeClient.CloseIdleConnections()

	read := soakRead(api, st.ids)
	create := soakCreate(api, adminLogin, st.appPass)
	// One create and one read of each kind first, not counted: the
	// server's first requests prepare statements and fill caches, which a
	// short soak would otherwise measure instead of the load.
	warm := rand.New(rand.NewPCG(7, 7))
	if _, err := doOne(ctx, writeClient, create, warm); err != nil {
		return nil, fmt.Errorf("bench: soak warm-up: %w", err)
	}
	for range 4 * len(soakReadKinds) {
		one := func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
			_, req, err := read(ctx, rng)
			return req, err
		}
		if _, err := doOne(ctx, readClient, one, warm); err != nil {
			return nil, fmt.Errorf("bench: soak warm-up: %w", err)
		}
	}

	runCtx, cancel := context.WithTimeout(ctx, opts.Soak)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	kinds := make([]*recorder, len(soakReadKinds))
	for i := range kinds {
		kinds[i] = &recorder{}
	}
	readBuild := func(ctx context.Context, rng *rand.Rand) (*http.Request, *recorder, error) {
		k, req, err := read(ctx, rng)
		return req, kinds[k], err
	}
	writeBuild := func(ctx context.Context, rng *rand.Rand) (*http.Request, *recorder, error) {
		req, err := create(ctx, rng)
		return req, nil, err
	}
	// drive runs n workers sending build's requests; each request counts
	// in rec and in the recorder of its kind, when build names one.
	drive := func(n int, client *http.Client, build func(context.Context, *rand.Rand) (*http.Request, *recorder, error), rec *recorder, seed uint64) {
		for w := range n {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(seed+uint64(w), uint64(start.UnixNano())))
				var kind *recorder
				one := func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
					req, k, err := build(ctx, rng)
					kind = k
					return req, err
				}
				for runCtx.Err() == nil {
					kind = nil
					d, err := doOne(runCtx, client, one, rng)
					if err != nil && runCtx.Err() != nil {
						return // cut off by the end of the soak
					}
					rec.add(d, err)
					if kind != nil {
						kind.add(d, err)
					}
				}
			}(w)
		}
	}
	// The writer's counters are read before the first write is sent, so
	// every create of the soak is in the first interval's difference.
	lastStat := groupStats{}
	if metricsURL != "" {
		lastStat, _ = scrapeGroup(ctx, metricsURL)
	}
	drive(SoakReaders, readClient, readBuild, readers, 1)
	drive(SoakWriters, writeClient, writeBuild, writers, 1000)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	var (
		walMax int64 // in the current interval
		last   = start
	)
	sample := time.NewTicker(soakSampleEvery)
	defer sample.Stop()
	for end := opts.SoakInterval; ; end += opts.SoakInterval {
		end = min(end, opts.Soak)
		boundary := time.NewTimer(time.Until(start.Add(end)))
	wait:
		for {
			select {
			case <-sample.C:
				if st.dbFile != "" {
					if w, _, err := sz.sizes(ctx); err == nil {
						walMax = max(walMax, w)
					}
				}
			case <-boundary.C:
				break wait
			case <-ctx.Done():
				boundary.Stop()
				<-finished
				return nil, fmt.Errorf("bench: soak interrupted: %w", ctx.Err())
			}
		}
		final := end >= opts.Soak
		if final {
			<-finished
		}
		now := time.Now()
		iv := SoakInterval{End: now.Sub(start), Span: now.Sub(last)}
		iv.Reads = readers.take(iv.Span)
		iv.Writes = writers.take(iv.Span)
		wal, db, err := sz.sizes(ctx)
		if err != nil {
			logf("database size: %v", err)
		}
		iv.WAL, iv.DB = wal, db
		if st.dbFile != "" {
			iv.WALMax = max(walMax, wal)
			rep.WALMax = max(rep.WALMax, iv.WALMax)
		} else {
			rep.WALMax = max(rep.WALMax, wal)
		}
		if m, err := ReadMemory(folio.Pid()); err == nil {
			iv.RSS = m.RSS
			rep.RSSMax = max(rep.RSSMax, m.RSS)
			rep.Peak = m.Peak
		} else {
			logf("server memory: %v", err)
		}
		if metricsURL != "" {
			if g, err := scrapeGroup(ctx, metricsURL); err == nil {
				if g.sqlite {
					iv.Group = g.since(lastStat)
				}
				lastStat = g
			} else {
				logf("server metrics: %v", err)
			}
		}
		rep.Intervals = append(rep.Intervals, iv)
		fmt.Fprint(out, rep.row(iv))
		walMax, last = 0, now
		if final {
			break
		}
	}
	span := time.Since(start)
	rep.Reads = readers.total(span)
	rep.Writes = writers.total(span)
	for i, k := range kinds {
		rep.ReadKinds = append(rep.ReadKinds, SoakKind{Name: soakReadKinds[i].Name, SoakCount: k.total(span)})
	}
	rep.FirstReadError, rep.FirstWriteError = readers.firstErr, writers.firstErr
	fmt.Fprint(out, "\n"+rep.summary())
	return rep, nil
}

// soakReadKinds name the readers' requests, with their share in percent.
var soakReadKinds = []struct {
	Name string
	Pct  int
}{
	{"list pages 1-50", 50},
	{"_embed pages 1-20", 20},
	{"single posts", 15},
	{"comments of a post", 10},
	{"search=lorem", 5},
}

// soakRead builds the readers' requests in the shares of soakReadKinds
// and returns each one's kind (an index into soakReadKinds). Without
// posts, single posts and comments are list pages.
func soakRead(api string, ids []int64) func(context.Context, *rand.Rand) (int, *http.Request, error) {
	return func(ctx context.Context, rng *rand.Rand) (int, *http.Request, error) {
		r := rng.IntN(100)
		kind, bound := 0, 0
		for i, k := range soakReadKinds {
			if bound += k.Pct; r < bound {
				kind = i
				break
			}
		}
		if len(ids) == 0 && (kind == 2 || kind == 3) {
			kind = 0
		}
		u := api + "/posts"
		switch kind {
		case 0:
			u += "?page=" + strconv.Itoa(1+rng.IntN(50))
		case 1:
			u += "?_embed&page=" + strconv.Itoa(1+rng.IntN(20))
		case 2:
			u += "/" + strconv.FormatInt(ids[rng.IntN(len(ids))], 10)
		case 3:
			u = api + "/comments?post=" + strconv.FormatInt(ids[rng.IntN(len(ids))], 10)
		default:
			u += "?search=lorem"
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		return kind, req, err
	}
}

// soakCreate builds the writers' requests: a published post with a
// paragraph of about soakBodyBytes.
func soakCreate(api, login, appPass string) func(context.Context, *rand.Rand) (*http.Request, error) {
	return func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
		return createRequest(ctx, api, login, appPass, Title(rng), Paragraph(rng, soakBodyBytes))
	}
}

// Paragraph returns one paragraph block of about size bytes: sentences
// are added while the block is shorter than size, and the last one ends it.
func Paragraph(rng *rand.Rand, size int) string {
	const open, end = "<!-- wp:paragraph -->\n<p>", "</p>\n<!-- /wp:paragraph -->"
	var b strings.Builder
	b.WriteString(open)
	for i := 0; ; i++ {
		s := sentence(rng, 6+rng.IntN(8)) + "."
		if i > 0 && b.Len()+1+len(s)+len(end) > size {
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	b.WriteString(end)
	return b.String()
}

// recorder collects one kind of request's latencies, per interval and in
// all.
type recorder struct {
	mu       sync.Mutex
	cur      []time.Duration
	curErrs  int64
	all      []time.Duration
	errs     int64
	firstErr string
}

func (r *recorder) add(d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur = append(r.cur, d)
	if err != nil {
		r.curErrs++
		if r.firstErr == "" {
			r.firstErr = err.Error()
		}
	}
}

// take ends the current interval, of length span, and counts it.
func (r *recorder) take(span time.Duration) SoakCount {
	r.mu.Lock()
	lat, errs := r.cur, r.curErrs
	r.cur, r.curErrs = nil, 0
	r.all = append(r.all, lat...)
	r.errs += errs
	r.mu.Unlock()
	return count(lat, errs, span)
}

// total counts every request recorded, over span.
func (r *recorder) total(span time.Duration) SoakCount {
	r.mu.Lock()
	defer r.mu.Unlock()
	return count(slices.Concat(r.all, r.cur), r.errs+r.curErrs, span)
}

func count(lat []time.Duration, errs int64, span time.Duration) SoakCount {
	slices.Sort(lat)
	c := SoakCount{Requests: int64(len(lat)), Errors: errs, P50: Percentile(lat, 50), P99: Percentile(lat, 99)}
	if span > 0 {
		c.Rate = float64(len(lat)) / span.Seconds()
	}
	return c
}

// sizer measures the site's database.
type sizer interface {
	// sizes returns the WAL's size (SQLite) or the WAL written since the
	// sizer was made (PostgreSQL), and the database's size.
	sizes(ctx context.Context) (wal, db int64, err error)
}

// fileSizer is a SQLite database file's path.
type fileSizer string

func (f fileSizer) sizes(context.Context) (wal, db int64, err error) {
	fi, err := os.Stat(string(f))
	if err != nil {
		return 0, 0, fmt.Errorf("size of the database: %w", err)
	}
	w, err := os.Stat(string(f) + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fi.Size(), nil
	}
	if err != nil {
		return 0, fi.Size(), fmt.Errorf("size of the WAL: %w", err)
	}
	return w.Size(), fi.Size(), nil
}

// pgSizer measures a PostgreSQL schema (the search_path of its URL) and
// the WAL the database server wrote since the sizer was made.
type pgSizer struct {
	mu    sync.Mutex
	conn  *pgx.Conn
	start string // pg_current_wal_lsn() at the start
}

func newPGSizer(ctx context.Context, url string) (*pgSizer, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect to measure the database: %w", err)
	}
	p := &pgSizer{conn: conn}
	if err := conn.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&p.start); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("read the WAL position: %w", err)
	}
	return p, nil
}

func (p *pgSizer) sizes(ctx context.Context) (wal, db int64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	err = p.conn.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint,
		(SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm'))`, p.start).Scan(&wal, &db)
	if err != nil {
		return 0, 0, fmt.Errorf("size of the database: %w", err)
	}
	return wal, db, nil
}

func (p *pgSizer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.conn.Close(context.Background())
}

// metricsPrefix starts the line `folio serve --metrics-addr` writes to
// stderr with the metrics URL.
const metricsPrefix = "metrics on "

// metricsURL returns the metrics URL the server printed, waiting at most
// wait for it; "" when there is none.
func (p *process) metricsURL(wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		sc := bufio.NewScanner(strings.NewReader(p.stderr.String()))
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), metricsPrefix); ok {
				return strings.TrimSpace(u)
			}
		}
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// groupStats are the SQLite writer's counters in a metrics scrape.
type groupStats struct {
	sqlite                           bool // the scrape had them
	batches, members, checkpts, busy int64
}

func (g groupStats) since(prev groupStats) *GroupDelta {
	return &GroupDelta{
		Batches:     g.batches - prev.batches,
		Members:     g.members - prev.members,
		Checkpoints: g.checkpts - prev.checkpts,
		Busy:        g.busy - prev.busy,
	}
}

// scrapeGroup reads the SQLite writer's counters from the server's
// metrics.
func scrapeGroup(ctx context.Context, url string) (groupStats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return groupStats{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return groupStats{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return groupStats{}, fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
	}
	return parseGroupStats(resp.Body)
}

// parseGroupStats reads the folio_sqlite_* counters from a scrape in the
// Prometheus text format.
func parseGroupStats(r io.Reader) (groupStats, error) {
	var g groupStats
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "folio_sqlite_") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return groupStats{}, fmt.Errorf("metric %q: %w", line, err)
		}
		n := int64(v)
		switch series := line[:i]; {
		case series == "folio_sqlite_group_batches_total":
			g.batches, g.sqlite = n, true
		case series == "folio_sqlite_group_members_total":
			g.members = n
		case strings.HasPrefix(series, "folio_sqlite_wal_checkpoints_total{") && strings.Contains(series, `result="done"`):
			g.checkpts += n
		case strings.HasPrefix(series, "folio_sqlite_wal_checkpoints_total{") && strings.Contains(series, `result="busy"`):
			g.busy += n
		}
	}
	return g, sc.Err()
}

// header describes the run.
func (r *SoakReport) header() string {
	return fmt.Sprintf("Database: %s. %d posts seeded; %d connections reading (50%% list pages 1-50, 20%% _embed pages, 15%% single posts, 10%% comments, 5%% search=lorem), %d creating posts (%d-byte bodies); %s, a row every %s; %d CPUs, %s.",
		r.Backend, r.Posts, SoakReaders, SoakWriters, soakBodyBytes, r.Duration, r.Interval, r.CPUs, r.GoVersion)
}

// tableHead returns the table's header lines.
func (r *SoakReport) tableHead() string {
	if r.sqlite() {
		return "| time | reads/s | read p50 | read p99 | writes/s | write p50 | write p99 | errors | WAL | WAL max | database | RSS | batches | members/batch | checkpoints (busy) |\n" +
			"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
	}
	return "| time | reads/s | read p50 | read p99 | writes/s | write p50 | write p99 | errors | WAL written | database | RSS |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
}

// row returns the table row of iv.
func (r *SoakReport) row(iv SoakInterval) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %.0f | %s | %s | %d | ",
		clock(iv.End), iv.Reads.Rate, ms(iv.Reads.P50), ms(iv.Reads.P99),
		iv.Writes.Rate, ms(iv.Writes.P50), ms(iv.Writes.P99), iv.Reads.Errors+iv.Writes.Errors)
	if !r.sqlite() {
		fmt.Fprintf(&b, "%s | %s | %s |\n", mib(iv.WAL), mib(iv.DB), mib(iv.RSS))
		return b.String()
	}
	fmt.Fprintf(&b, "%s | %s | %s | %s | ", mibZero(iv.WAL), mibZero(iv.WALMax), mib(iv.DB), mib(iv.RSS))
	if g := iv.Group; g != nil {
		per := "n/a"
		if g.Batches > 0 {
			per = fmt.Sprintf("%.1f", float64(g.Members)/float64(g.Batches))
		}
		fmt.Fprintf(&b, "%d | %s | %d (%d) |\n", g.Batches, per, g.Checkpoints, g.Busy)
	} else {
		b.WriteString("n/a | n/a | n/a |\n")
	}
	return b.String()
}

// summary returns the lines after the table: the whole soak's rates and
// whether the WAL and the memory stayed bounded.
func (r *SoakReport) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Whole soak: %.0f reads/s (p50 %s, p99 %s), %.0f writes/s (p50 %s, p99 %s), %d read errors, %d write errors.\n",
		r.Reads.Rate, ms(r.Reads.P50), ms(r.Reads.P99), r.Writes.Rate, ms(r.Writes.P50), ms(r.Writes.P99), r.Reads.Errors, r.Writes.Errors)
	if len(r.ReadKinds) > 0 {
		b.WriteString("Reads by kind:")
		for i, k := range r.ReadKinds {
			sep := ";"
			if i == len(r.ReadKinds)-1 {
				sep = "."
			}
			fmt.Fprintf(&b, " %s %.0f/s (p50 %s, p99 %s)%s", k.Name, k.Rate, ms(k.P50), ms(k.P99), sep)
		}
		b.WriteString("\n")
	}
	if r.sqlite() {
		fmt.Fprintf(&b, "WAL: largest %s, limit %s: %s.\n", mibZero(r.WALMax), mib(SoakWALLimit), verdict(r.WALBounded()))
	} else {
		fmt.Fprintf(&b, "WAL: not applicable on PostgreSQL (the database server's own, recycled by its checkpoints); %s written during the soak.\n", mibZero(r.WALMax))
	}
	fmt.Fprintf(&b, "RSS: peak %s (largest at a report %s), limit %s: %s.\n", mib(r.Peak), mib(r.RSSMax), mib(SoakRSSLimit), verdict(r.RSSBounded()))
	if r.FirstReadError != "" {
		fmt.Fprintf(&b, "First read error: %s\n", r.FirstReadError)
	}
	if r.FirstWriteError != "" {
		fmt.Fprintf(&b, "First write error: %s\n", r.FirstWriteError)
	}
	return b.String()
}

// WriteMarkdown writes the whole report: header, table and summary, as
// Soak wrote them while it ran.
func (r *SoakReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# folio bench --soak\n\n%s\n\n%s", r.header(), r.tableHead())
	for _, iv := range r.Intervals {
		b.WriteString(r.row(iv))
	}
	b.WriteString("\n" + r.summary())
	_, err := io.WriteString(w, b.String())
	return err
}

func verdict(ok bool) string {
	if ok {
		return "within"
	}
	return "EXCEEDED"
}

// clock formats a time since the start as m:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// mibZero is mib that shows a zero size as 0.0 MiB (an empty WAL).
func mibZero(n int64) string {
	if n == 0 {
		return "0.0 MiB"
	}
	return mib(n)
}
