package webhooks_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/webhooks"
)

// fakeDNS answers from a table; a name with several answers gives them in
// turn (a name that rebinds between lookups).
type fakeDNS struct {
	mu    sync.Mutex
	names map[string][]string
	calls map[string]int
}

func (f *fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	answers, ok := f.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	a := answers[min(f.calls[host], len(answers)-1)]
	f.calls[host]++
	var out []netip.Addr
	for _, s := range strings.Split(a, ",") {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func TestBlockedAddrCoversNonPublicRanges(t *testing.T) {
	blocked := []string{
		"127.0.0.1", "127.255.0.9", "::1", "0.0.0.0", "::", "0.1.2.3",
		"10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1",
		"100.64.0.1", "100.127.255.254", // CGNAT
		"169.254.169.254", "169.254.0.1", "fe80::1", "fe80::1%eth0",
		"fd00:ec2::254", "fc00::1", "fdff::1",
		"224.0.0.1", "239.255.255.250", "ff02::1", "255.255.255.255", "240.0.0.1",
		"::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "::127.0.0.1",
		"64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "2001:db8::1", "192.0.0.170", "198.18.0.1",
	}
	public := []string{"93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "100.128.0.1", "172.32.0.1"}
	for _, s := range blocked {
		if !webhooks.BlockedAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s is not blocked", s)
		}
	}
	for _, s := range public {
		if webhooks.BlockedAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s is blocked", s)
		}
	}
}

func TestCheckURLRefusesInternalTargetsAtCreation(t *testing.T) {
	dns := &fakeDNS{names: map[string][]string{
		"hooks.example.com":  {"93.184.216.34"},
		"inside.example.com": {"10.1.2.3"},
		"mixed.example.com":  {"93.184.216.34,127.0.0.1"},
		"mapped.example.com": {"::ffff:169.254.169.254"},
	}}
	g := webhooks.Guard{Resolver: dns}
	refused := []string{
		"http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/computeMetadata/v1/",
		"http://metadata/", "http://[fd00:ec2::254]/", "http://0x7f000001/", "http://2130706433/", "http://127.1/",
		"http://0177.0.0.1/", "http://localhost:8080/hook", "http://LOCALHOST./", "http://api.localhost/",
		"http://%6c%6fcalhost/", "http://10.0.0.5/", "http://192.168.1.1/", "http://172.16.0.1/", "http://100.64.0.1/",
		"http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/", "http://0.0.0.0/", "http://[::]/",
		"http://224.0.0.1/", "http://[fe80::1%25eth0]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:a9fe:a9fe::]/",
		"http://db.internal/", "http://printer.local/",
		"https://inside.example.com/", "https://mixed.example.com/", "https://mapped.example.com/",
		"ftp://hooks.example.com/", "hooks.example.com/x", "http:///x",
	}
	for _, u := range refused {
		err := g.CheckURL(context.Background(), u)
		var e *webhooks.Error
		if !errors.As(err, &e) || e.Code != "rest_invalid_param" || e.Param != "url" {
			t.Errorf("CheckURL(%s) = %v, want a url rest_invalid_param", u, err)
		}
	}
	for _, u := range []string{"https://hooks.example.com/x", "http://93.184.216.34:8080/", "https://[2606:4700:4700::1111]/", "https://not-resolving.example.com/"} {
		if err := g.CheckURL(context.Background(), u); err != nil {
			t.Errorf("CheckURL(%s) = %v", u, err)
		}
	}
	// The opt-in lets local integrations through.
	open := webhooks.Guard{AllowPrivate: true, Resolver: dns}
	for _, u := range []string{"http://localhost:8080/", "http://169.254.169.254/", "http://10.0.0.5/", "https://inside.example.com/"} {
		if err := open.CheckURL(context.Background(), u); err != nil {
			t.Errorf("with webhook_private_targets: CheckURL(%s) = %v", u, err)
		}
	}
}

// deliveryOf runs the worker once and returns the only delivery of hook.
func deliveryOf(t *testing.T, db store.Store, w *webhooks.Worker, hook *store.Webhook) *store.WebhookDelivery {
	t.Helper()
	if _, err := w.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	ds, err := db.ListDeliveries(context.Background(), hook.ID, 10)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries = %v, %v", ds, err)
	}
	return ds[0]
}

func emitTo(t *testing.T, db store.Store) {
	t.Helper()
	em := &webhooks.Emitter{}
	ch := content.Change{Kind: "post", Type: "post", Action: "created", ID: 1, Record: &store.Post{ID: 1, Status: "draft"}}
	if err := db.Tx(context.Background(), func(tx store.Store) error { return em.Emit(context.Background(), tx, ch) }); err != nil {
		t.Fatal(err)
	}
}

func TestDeliveryToAPrivateAddressIsRefusedAtConnectTime(t *testing.T) {
	var calls atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer recv.Close()
	port := recv.URL[strings.LastIndexByte(recv.URL, ':'):]
	cases := []struct {
		what, url string
		dns       *fakeDNS
	}{
		// Saved before the rules, or straight into the store.
		{"loopback literal", recv.URL, &fakeDNS{}},
		{"localhost", "http://localhost" + port + "/", &fakeDNS{}},
		// A name that was public when the webhook was saved and resolves
		// to loopback when it delivers (DNS rebinding).
		{"rebinding name", "http://rebind.example.com" + port + "/", &fakeDNS{names: map[string][]string{"rebind.example.com": {"93.184.216.34", "127.0.0.1"}}}},
		{"IPv4-mapped answer", "http://mapped.example.com" + port + "/", &fakeDNS{names: map[string][]string{"mapped.example.com": {"::ffff:127.0.0.1"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			db := storetest.Open(t)
			g := webhooks.Guard{Resolver: tc.dns}
			if tc.what == "rebinding name" {
				if err := g.CheckURL(context.Background(), tc.url); err != nil {
					t.Fatalf("at creation the name is public: %v", err)
				}
			}
			hook := addHook(t, db, tc.url, "*")
			emitTo(t, db)
			d := deliveryOf(t, db, &webhooks.Worker{Store: db, Targets: g}, hook)
			if d.Status != store.DeliveryFailed || d.LastError != "blocked_target" || d.Attempts != 1 {
				t.Fatalf("delivery = %+v, want failed with blocked_target after one attempt", d)
			}
			if calls.Load() != 0 {
				t.Fatal("the private receiver was called")
			}
		})
	}
}

func TestDeliveryFollowsNoRedirects(t *testing.T) {
	db := storetest.Open(t)
	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Add(1) }))
	defer target.Close()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	defer recv.Close()
	hook := addHook(t, db, recv.URL, "*")
	emitTo(t, db)
	d := deliveryOf(t, db, &webhooks.Worker{Store: db, Targets: local}, hook)
	if followed.Load() != 0 {
		t.Fatal("the redirect was followed (body and signature re-sent)")
	}
	if d.Status != store.DeliveryPending || d.LastStatus != 307 || d.LastError != "http_307" {
		t.Fatalf("delivery = %+v", d)
	}
}

func TestDeliveryLogRecordsOnlyAnErrorClass(t *testing.T) {
	// A service that is not HTTP and greets with a banner.
	banner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer banner.Close()
	go func() {
		for {
			c, err := banner.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n"))
			_ = c.Close()
		}
	}()
	// A listener that accepts and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	}()
	// A port nothing listens on.
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := closed.Addr().String()
	closed.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "java.lang.NullPointerException at com.internal.Secret", 500)
	}))
	defer failing.Close()

	cases := []struct {
		url, want string
		dns       *fakeDNS
	}{
		{"http://" + banner.Addr().String() + "/", "", nil},
		{"http://" + silent.Addr().String() + "/", "timeout", nil},
		{"http://" + closedAddr + "/", "refused", nil},
		{failing.URL, "http_500", nil},
		{"http://nowhere.example.com/", "dns", &fakeDNS{}},
	}
	classes := map[string]bool{"timeout": true, "refused": true, "reset": true, "connection": true, "tls": true, "dns": true, "unreachable": true}
	for _, tc := range cases {
		db := storetest.Open(t)
		hook := addHook(t, db, tc.url, "*")
		emitTo(t, db)
		g := webhooks.Guard{AllowPrivate: true}
		if tc.dns != nil {
			g.Resolver = tc.dns
		}
		d := deliveryOf(t, db, &webhooks.Worker{Store: db, Targets: g, Timeout: 300 * time.Millisecond}, hook)
		if tc.want != "" && d.LastError != tc.want {
			t.Errorf("%s: last_error %q, want %q", tc.url, d.LastError, tc.want)
		}
		if tc.want == "" && !classes[d.LastError] {
			t.Errorf("%s: last_error %q is not an error class", tc.url, d.LastError)
		}
		if strings.Contains(d.LastError, "SSH") || strings.Contains(d.LastError, "java") || strings.Contains(d.LastError, "127.0.0.1") {
			t.Errorf("%s: the peer's text or address reached the log: %q", tc.url, d.LastError)
		}
		if d.Status != store.DeliveryPending {
			t.Errorf("%s: status %s, want pending (retried)", tc.url, d.Status)
		}
	}
}

func TestConfigWebhookWithAPrivateTargetIsAStartUpError(t *testing.T) {
	db := storetest.Open(t)
	hooks := []config.Webhook{{Name: "ci", URL: "http://127.0.0.1:9000/hook", Events: []string{"*"}}}
	svc := &webhooks.Service{Store: db}
	err := svc.SyncConfig(context.Background(), hooks)
	if err == nil || !strings.Contains(err.Error(), `webhook "ci"`) || !strings.Contains(err.Error(), "webhook_private_targets") {
		t.Fatalf("err = %v", err)
	}
	if all, _ := db.ListWebhooks(context.Background()); len(all) != 0 {
		t.Fatalf("the refused webhook was stored: %v", all)
	}
	svc.Targets.AllowPrivate = true
	if err := svc.SyncConfig(context.Background(), hooks); err != nil {
		t.Fatalf("with webhook_private_targets: %v", err)
	}
}
