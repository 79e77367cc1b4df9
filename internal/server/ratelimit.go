package server

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/metrics"
	"github.com/folio-server/folio/internal/ratelimit"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlite"
)

// newRateLimit returns the API's rate-limit check for cfg (nil when the
// limits are off): buckets in memory on SQLite (one node) or with
// limits.rate_per_node, else in the store, shared by every node.
func newRateLimit(cfg *config.Config, st store.Store, logger *slog.Logger, m *metrics.Metrics) func(*http.Request, *auth.User, ratelimit.Class) time.Duration {
	if !cfg.Limits.RateLimitsOn() {
		return nil
	}
	var buckets ratelimit.Buckets = &ratelimit.Memory{MaxKeys: cfg.Limits.RateMaxKeys}
	if _, single := st.(*sqlite.DB); !single && !cfg.Limits.RatePerNode {
		buckets = ratelimit.Shared{Store: st}
	}
	l := &ratelimit.Limiter{
		Anonymous: budgets(cfg.Limits.Anonymous),
		User:      budgets(cfg.Limits.User),
		Buckets:   buckets,
		Logger:    logger,
	}
	return func(r *http.Request, u *auth.User, c ratelimit.Class) time.Duration {
		var uid int64
		if u != nil {
			uid = u.ID()
		}
		wait := l.Allow(r.Context(), c, uid, forwarded.ClientIP(r))
		if wait > 0 {
			m.RateLimited(c.String())
		}
		return wait
	}
}

func budgets(b config.RateBudgets) ratelimit.Budgets {
	rule := func(r config.Rate) ratelimit.Rule { return ratelimit.Rule{Rate: r.Rate, Burst: r.Burst} }
	return ratelimit.Budgets{Read: rule(b.Read), Write: rule(b.Write), Search: rule(b.Search), Upload: rule(b.Upload)}
}
