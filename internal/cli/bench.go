package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/folio-server/folio/internal/bench"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/spf13/cobra"
)

func newBenchCmd() *cobra.Command {
	var (
		opts bench.Options
		out  string
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark Folio against a trivial JSON server on this machine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts.Log = cmd.ErrOrStderr()
			opts.OpenStore = func(ctx context.Context, where string) (store.Store, error) {
				cfg := config.Default()
				if opts.Database != "" {
					cfg.DatabaseURL = where
				} else {
					cfg.DataDir = where
				}
				return server.OpenStore(ctx, cfg)
			}
			if opts.Soak > 0 {
				rep, err := bench.Soak(ctx, opts, cmd.OutOrStdout())
				if err != nil {
					return err
				}
				return writeReport(out, rep.WriteMarkdown)
			}
			rep, err := bench.Run(ctx, opts)
			if err != nil {
				return err
			}
			var md strings.Builder
			if err := rep.WriteMarkdown(&md); err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), md.String())
			if out != "" {
				if err := os.WriteFile(out, []byte(md.String()), 0o644); err != nil {
					return fmt.Errorf("write report: %w", err)
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opts.Posts, "posts", bench.DefaultPosts, "number of published posts to seed")
	fl.DurationVar(&opts.Duration, "duration", bench.DefaultDuration, "duration of each scenario")
	fl.IntVar(&opts.Connections, "connections", bench.DefaultConnections, "concurrent keep-alive connections")
	fl.Int64Var(&opts.MaxRequests, "max-requests", bench.DefaultMaxRequests, "maximum requests per scenario")
	fl.StringVar(&out, "out", "", "also write the report to this markdown file")
	fl.StringVar(&opts.Database, "database", "", "benchmark on PostgreSQL: a postgres:// URL (the site goes in a temporary schema)")
	fl.BoolVar(&opts.NoResponseCache, "no-response-cache", false, "run the server with its anonymous response cache off")
	fl.BoolVar(&opts.RateLimits, "rate-limits", false, "run the server with its API rate limits on, with budgets above the load (every request takes a token, as in production); off by default")
	fl.IntVar(&opts.Nodes, "nodes", 1, "number of folio serve processes sharing the --database, each getting requests in turn")
	fl.StringVar(&opts.Keep, "keep", "", "keep the seeded site in this directory (a --data directory, or on PostgreSQL a note naming the kept schema); a later run with the same directory and --posts measures it again without seeding")
	fl.DurationVar(&opts.Soak, "soak", 0, "instead of the scenarios, a soak of this duration: 12 connections reading and 4 creating posts at once, reporting rates, p50/p99, WAL and database size and the server's RSS every --soak-interval")
	fl.DurationVar(&opts.SoakInterval, "soak-interval", bench.DefaultSoakInterval, "how often a --soak reports")
	fl.StringSliceVar(&opts.Only, "only", nil, "run only the scenarios whose names contain one of these strings, or are exactly the rest of a string that starts with = (comma-separated; hello always runs)")
	return cmd
}

// writeReport writes a report with write to the file out, when one is
// named.
func writeReport(out string, write func(io.Writer) error) error {
	if out == "" {
		return nil
	}
	var b strings.Builder
	if err := write(&b); err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// newBenchHelloCmd is the hidden baseline server `folio bench` starts.
func newBenchHelloCmd() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:    "bench-hello",
		Short:  "Serve a trivial JSON response (the benchmark's baseline)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen: %w", err)
			}
			hs := &http.Server{Handler: bench.HelloHandler(), ReadHeaderTimeout: 10 * time.Second}
			fmt.Fprintf(cmd.OutOrStdout(), "listening on http://%s\n", ln.Addr())
			errc := make(chan error, 1)
			go func() { errc <- hs.Serve(ln) }()
			select {
			case err := <-errc:
				return fmt.Errorf("serve: %w", err)
			case <-ctx.Done():
			}
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return hs.Shutdown(sctx)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "listen address")
	return cmd
}
