package config

import (
	"fmt"
	"log/slog"
	"net"
	"strings"
)

// Environment variables of the operations settings (see Log and
// Server.MetricsAddr).
const (
	EnvMetricsAddr = "FOLIO_METRICS_ADDR"
	EnvLogFormat   = "FOLIO_LOG_FORMAT"
	EnvLogLevel    = "FOLIO_LOG_LEVEL"
)

// Log formats of Log.Format.
const (
	LogText = "text"
	LogJSON = "json"
)

// Log says how serve writes its log ([log] in the file): one line per
// request and the diagnostics, to standard error.
type Log struct {
	// Format is "text" (the default: key=value pairs) or "json" (one
	// JSON object per line).
	Format string `toml:"format"`
	// Level is the least severe level written: "debug", "info" (the
	// default), "warn" or "error". Health probes are logged at debug.
	// A SIGHUP reloads it from the file.
	Level string `toml:"level"`
}

// SlogLevel returns Level as a slog level (info when unset).
func (l Log) SlogLevel() slog.Level {
	switch strings.ToLower(l.Level) {
	case "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// normalizeOps fills and checks [log] and the metrics address.
func (c *Config) normalizeOps() []error {
	var errs []error
	c.Log.Format = strings.ToLower(strings.TrimSpace(c.Log.Format))
	switch c.Log.Format {
	case "":
		c.Log.Format = LogText
	case LogText, LogJSON:
	default:
		errs = append(errs, fmt.Errorf("log.format %q (%s, --log-format): must be %q or %q", c.Log.Format, EnvLogFormat, LogText, LogJSON))
	}
	c.Log.Level = strings.ToLower(strings.TrimSpace(c.Log.Level))
	switch c.Log.Level {
	case "":
		c.Log.Level = "info"
	case "warning":
		c.Log.Level = "warn"
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log.level %q (%s, --log-level): must be debug, info, warn or error", c.Log.Level, EnvLogLevel))
	}
	if a := c.Server.MetricsAddr; a != "" {
		if _, port, err := net.SplitHostPort(a); err != nil {
			errs = append(errs, fmt.Errorf("server.metrics_addr %q (%s, --metrics-addr): must be host:port, e.g. 127.0.0.1:9090", a, EnvMetricsAddr))
		} else if a == c.Addr && port != "0" {
			errs = append(errs, fmt.Errorf("server.metrics_addr %q: must differ from the public address; metrics are never served there", a))
		}
	}
	return errs
}
