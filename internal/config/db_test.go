package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDBPoolSettings(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "folio.toml")
	if err := os.WriteFile(file, []byte("[db]\nmax_conns = 20\nmin_conns = 2\nmax_conn_lifetime = \"30m\"\nconnect_timeout = \"3s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		flags   Overrides
		env     map[string]string
		want    DB
		wantErr string
	}{
		{"defaults are zero (the store's own)", Overrides{}, nil, DB{}, ""},
		{"file", Overrides{ConfigFile: file}, nil, DB{MaxConns: 20, MinConns: 2, MaxConnLifetime: 30 * time.Minute, ConnectTimeout: 3 * time.Second}, ""},
		{"env over file", Overrides{ConfigFile: file}, map[string]string{EnvDBMaxConns: "7", EnvDBConnectTimeout: "1s"},
			DB{MaxConns: 7, MinConns: 2, MaxConnLifetime: 30 * time.Minute, ConnectTimeout: time.Second}, ""},
		{"flags over env", Overrides{DBMaxConns: 9, DBMaxConnLifetime: time.Hour}, map[string]string{EnvDBMaxConns: "7", EnvDBMinConns: "1"},
			DB{MaxConns: 9, MinConns: 1, MaxConnLifetime: time.Hour}, ""},
		{"bad env number", Overrides{}, map[string]string{EnvDBMaxConns: "many"}, DB{}, EnvDBMaxConns},
		{"bad env duration", Overrides{}, map[string]string{EnvDBConnectTimeout: "soon"}, DB{}, EnvDBConnectTimeout},
		{"negative flag", Overrides{DBMinConns: -3}, nil, DB{}, EnvDBMinConns},
		{"min above max", Overrides{DBMaxConns: 2, DBMinConns: 3}, nil, DB{}, "must not exceed"},
	}
	for _, tt := range tests {
		c, err := Resolve(tt.flags, env(tt.env))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v, want one naming %s", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if c.DB != tt.want {
			t.Errorf("%s: DB = %+v, want %+v", tt.name, c.DB, tt.want)
		}
	}
}
