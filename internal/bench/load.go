package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Load is one closed-loop load run: Connections workers each send a request,
// read the whole response, and send the next, until Duration has passed or
// MaxRequests requests were sent, whichever comes first.
type Load struct {
	// Client sends the requests; nil means NewClient(Connections).
	Client *http.Client
	// Connections is the number of concurrent workers (at least 1).
	Connections int
	// Duration bounds the run's wall time (required).
	Duration time.Duration
	// MaxRequests bounds the number of requests; 0 means no bound.
	MaxRequests int64
	// NewRequest builds one request; rng belongs to the calling worker.
	NewRequest func(ctx context.Context, rng *rand.Rand) (*http.Request, error)
}

// Result is what a Load run measured.
type Result struct {
	// Requests counts the requests that got a response or failed.
	Requests int64
	// Errors counts transport failures and responses outside 2xx.
	Errors int64
	// FirstError describes the first error seen, for the report.
	FirstError string
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
	// Latencies holds every request's latency, sorted ascending.
	Latencies []time.Duration
}

// Rate returns requests per second.
func (r Result) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Percentile returns the p-th percentile latency of the run.
func (r Result) Percentile(p float64) time.Duration { return Percentile(r.Latencies, p) }

// NewClient returns an HTTP client that keeps one idle keep-alive
// connection per worker.
func NewClient(connections int) *http.Client {
	if connections < 1 {
		connections = 1
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        connections,
		MaxIdleConnsPerHost: connections,
		MaxConnsPerHost:     connections,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// Run drives the load and returns the measurements. It returns an error
// only when the load is misconfigured or ctx was cancelled before the end.
func (l Load) Run(ctx context.Context) (Result, error) {
	if l.NewRequest == nil {
		return Result{}, errors.New("bench: load has no request builder")
	}
	if l.Duration <= 0 {
		return Result{}, errors.New("bench: load duration must be positive")
	}
	conns := max(l.Connections, 1)
	client := l.Client
	if client == nil {
		client = NewClient(conns)
	}
	runCtx, cancel := context.WithTimeout(ctx, l.Duration)
	defer cancel()

	var (
		claimed  atomic.Int64
		errCount atomic.Int64
		firstErr sync.Once
		firstMsg string
		wg       sync.WaitGroup
	)
	lat := make([][]time.Duration, conns)
	start := time.Now()
	for w := range conns {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w)+1, uint64(start.UnixNano())))
			for runCtx.Err() == nil {
				if l.MaxRequests > 0 && claimed.Add(1) > l.MaxRequests {
					return
				}
				d, err := doOne(runCtx, client, l.NewRequest, rng)
				if err != nil && runCtx.Err() != nil {
					// Cut off by the end of the run: not a server error
					// and not a complete request.
					return
				}
				lat[w] = append(lat[w], d)
				if err != nil {
					errCount.Add(1)
					firstErr.Do(func() { firstMsg = err.Error() })
				}
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	res := Result{
		Requests:   int64(len(all)),
		Errors:     errCount.Load(),
		FirstError: firstMsg,
		Elapsed:    elapsed,
		Latencies:  all,
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("bench: load interrupted: %w", err)
	}
	return res, nil
}

// doOne sends one request, reads the body to the end and checks the status.
func doOne(ctx context.Context, client *http.Client, build func(context.Context, *rand.Rand) (*http.Request, error), rng *rand.Rand) (time.Duration, error) {
	req, err := build(ctx, rng)
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return time.Since(t0), err
	}
	_, cerr := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(t0)
	if cerr != nil {
		return d, fmt.Errorf("read body: %w", cerr)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return d, fmt.Errorf("%s %s: status %d", req.Method, req.URL.Path, resp.StatusCode)
	}
	return d, nil
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted values by
// the nearest-rank method: the smallest value such that at least p percent
// of the values are less than or equal to it. It returns 0 for no values.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p * float64(n) / 100))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}
