package config

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpsSettingsComeFromFileEnvAndFlagsInThatOrder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "folio.toml")
	body := "[server]\nmetrics_addr = \"127.0.0.1:9100\"\n[log]\nformat = \"json\"\nlevel = \"warn\"\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	c, err := Resolve(Overrides{ConfigFile: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.MetricsAddr != "127.0.0.1:9100" || c.Log.Format != LogJSON || c.Log.SlogLevel() != slog.LevelWarn {
		t.Errorf("from the file: metrics %q log %+v", c.Server.MetricsAddr, c.Log)
	}
	c, err = Resolve(Overrides{ConfigFile: path}, env(map[string]string{EnvMetricsAddr: "0.0.0.0:9200", EnvLogFormat: "text", EnvLogLevel: "DEBUG"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.MetricsAddr != "0.0.0.0:9200" || c.Log.Format != LogText || c.Log.Level != "debug" {
		t.Errorf("from the environment: metrics %q log %+v", c.Server.MetricsAddr, c.Log)
	}
	c, err = Resolve(Overrides{ConfigFile: path, MetricsAddr: ":9300", LogLevel: "error"}, env(map[string]string{EnvLogLevel: "debug"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.MetricsAddr != ":9300" || c.Log.SlogLevel() != slog.LevelError {
		t.Errorf("from flags: metrics %q log %+v", c.Server.MetricsAddr, c.Log)
	}
	c, err = Resolve(Overrides{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.MetricsAddr != "" || c.Log.Format != LogText || c.Log.Level != "info" {
		t.Errorf("defaults: metrics %q (want off) log %+v", c.Server.MetricsAddr, c.Log)
	}
}

func TestOpsSettingsRefuseBadValues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		o    Overrides
		want string
	}{
		{Overrides{LogFormat: "xml"}, `log.format "xml"`},
		{Overrides{LogLevel: "verbose"}, `log.level "verbose"`},
		{Overrides{MetricsAddr: "9090"}, `server.metrics_addr "9090"`},
		{Overrides{Addr: "127.0.0.1:8080", MetricsAddr: "127.0.0.1:8080"}, "must differ from the public address"},
	} {
		_, err := Resolve(tt.o, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%+v) = %v, want an error with %q", tt.o, err, tt.want)
		}
	}
}
