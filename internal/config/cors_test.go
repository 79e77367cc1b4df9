package config

import (
	"slices"
	"strings"
	"testing"
)

func TestCORSOriginsFromFileEnvAndFlag(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "[cors]\nallowed_origins = [\"https://App.Example/\", \"http://localhost:3000\"]\nmax_age_seconds = 600\n")
	c, err := Resolve(Overrides{ConfigFile: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://app.example", "http://localhost:3000"}; !slices.Equal(c.CORS.AllowedOrigins, want) || c.CORS.MaxAgeSeconds != 600 {
		t.Errorf("from the file: %v %d", c.CORS.AllowedOrigins, c.CORS.MaxAgeSeconds)
	}
	c, err = Resolve(Overrides{ConfigFile: path}, envMap(map[string]string{EnvCORSOrigins: "https://env.example, *"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://env.example", "*"}; !slices.Equal(c.CORS.AllowedOrigins, want) {
		t.Errorf("env replaces the file: %v", c.CORS.AllowedOrigins)
	}
	c, err = Resolve(Overrides{ConfigFile: path, CORSOrigins: "https://flag.example"}, envMap(map[string]string{EnvCORSOrigins: "https://env.example"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://flag.example"}; !slices.Equal(c.CORS.AllowedOrigins, want) {
		t.Errorf("flag wins: %v", c.CORS.AllowedOrigins)
	}
	if c := Default(); len(c.CORS.AllowedOrigins) != 0 {
		t.Errorf("default allows %v", c.CORS.AllowedOrigins)
	}
}

func TestCORSRejectsWhatIsNotAnOrigin(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"app.example", "https://app.example/path", "ftp://app.example", "https://user@app.example", "https://app.example?x=1", "https://"} {
		_, err := Resolve(Overrides{CORSOrigins: bad}, nil)
		if err == nil || !strings.Contains(err.Error(), "cors.allowed_origins") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	if _, err := Resolve(Overrides{CORSOrigins: "https://app.example:8443"}, nil); err != nil {
		t.Errorf("origin with a port: %v", err)
	}
}
