package extension_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/webhooks"
)

type hookReceiver struct {
	mu     sync.Mutex
	events []string
	bodies []map[string]any
	sigOK  []bool
}

func TestWebhooksEndToEnd(t *testing.T) {
	rc := &hookReceiver{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		rc.mu.Lock()
		rc.events = append(rc.events, r.Header.Get(webhooks.HeaderEvent))
		rc.bodies = append(rc.bodies, m)
		rc.sigOK = append(rc.sigOK, r.Header.Get(webhooks.HeaderSignature) == webhooks.Sign("from-config", b))
		rc.mu.Unlock()
	}))
	defer recv.Close()
	e := newEnv(t, func(c *config.Config) {
		c.Webhooks = []config.Webhook{{Name: "ci", URL: recv.URL, Events: []string{"*"}, Secret: "from-config"}}
		c.Server.WebhookPrivateTargets = true // the receiver listens on 127.0.0.1
	}, moodExtension())

	// Admin only.
	if r := e.do("GET", "/api/svc/v2/webhooks", "", nil); r.Status != 401 || r.Object()["code"] != "rest_cannot_manage_webhooks" {
		t.Fatalf("anonymous: %d %s", r.Status, r.Body)
	}
	for _, login := range []string{"editor", "author", "contributor", "subscriber"} {
		if r := e.do("GET", "/api/svc/v2/webhooks", login, nil); r.Status != 403 {
			t.Fatalf("%s: %d %s", login, r.Status, r.Body)
		}
		if r := e.do("POST", "/api/svc/v2/webhooks", login, map[string]any{"url": "http://x.test/"}); r.Status != 403 {
			t.Fatalf("%s create: %d", login, r.Status)
		}
	}
	// The config webhook is there, its secret never shown.
	r := e.do("GET", "/api/svc/v2/webhooks?context=edit", "administrator", nil)
	e.want(r, 200)
	list := r.Array()
	if len(list) != 1 || list[0].(map[string]any)["config"] != true || strings.Contains(string(r.Body), "from-config") {
		t.Fatalf("list = %s", r.Body)
	}
	// Schema, OPTIONS and index.
	opt := e.do("OPTIONS", "/api/svc/v2/webhooks", "administrator", nil).Object()
	if opt["schema"].(map[string]any)["title"] != "webhook" {
		t.Fatalf("OPTIONS = %v", opt)
	}
	idx := e.do("GET", "/api/svc/v2", "", nil).Object()
	if _, ok := idx["routes"].(map[string]any)["/svc/v2/webhooks/(?P<id>[\\d]+)"]; !ok {
		t.Fatal("webhook item route missing from the index")
	}
	// Create, validate, update, delete.
	bad := e.do("POST", "/api/svc/v2/webhooks", "administrator", map[string]any{"url": "ftp://x"})
	if bad.Status != 400 || bad.Object()["code"] != "rest_invalid_param" {
		t.Fatalf("bad url: %d %s", bad.Status, bad.Body)
	}
	bad = e.do("POST", "/api/svc/v2/webhooks", "administrator", map[string]any{"url": "http://x.test/", "events": []string{"nonsense"}})
	if bad.Status != 400 {
		t.Fatalf("bad event: %d %s", bad.Status, bad.Body)
	}
	cr := e.do("POST", "/api/svc/v2/webhooks", "administrator", map[string]any{"url": "http://127.0.0.1:1/", "events": []string{"page.created"}, "secret": "x"})
	e.want(cr, 201)
	hook := cr.Object()
	if cr.Header.Get("Location") == "" || hook["active"] != true || hook["secret"] != nil {
		t.Fatalf("created = %s", cr.Body)
	}
	up := e.do("PUT", fmt.Sprintf("/api/svc/v2/webhooks/%v", hook["id"]), "administrator", map[string]any{"active": false})
	e.want(up, 200)
	if up.Object()["active"] != false {
		t.Fatalf("update = %s", up.Body)
	}
	if r := e.do("DELETE", fmt.Sprintf("/api/svc/v2/webhooks/%v", hook["id"]), "administrator", nil); r.Status != 501 {
		t.Fatalf("delete without force: %d", r.Status)
	}
	e.want(e.do("DELETE", fmt.Sprintf("/api/svc/v2/webhooks/%v?force=true", hook["id"]), "administrator", nil), 200)
	e.want(e.do("GET", fmt.Sprintf("/api/svc/v2/webhooks/%v", hook["id"]), "administrator", nil), 404)

	// A published post is delivered, rendered in edit context with its
	// extension fields.
	w := e.srv.Webhooks()
	drain := func() {
		for {
			n, err := w.RunOnce(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	p := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Hello", "status": "publish", "mood": "happy"}).Object()
	drain()
	e.want(e.do("DELETE", fmt.Sprintf("/api/svc/v2/posts/%v?force=true", p["id"]), "editor", nil), 200)
	drain()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	want := []string{"post.created", "post.published", "post.deleted"}
	if strings.Join(rc.events, ",") != strings.Join(want, ",") {
		t.Fatalf("events = %v, want %v", rc.events, want)
	}
	for i, ok := range rc.sigOK {
		if !ok {
			t.Fatalf("delivery %d: bad signature", i)
		}
	}
	data := rc.bodies[0]["data"].(map[string]any)
	title, _ := data["title"].(map[string]any)
	if title == nil || title["raw"] != "Hello" || data["mood"] != "happy" {
		t.Fatalf("created data (edit context) = %v", data)
	}
	if del := rc.bodies[2]["data"].(map[string]any); del["title"] != "Hello" || del["id"] != p["id"] {
		t.Fatalf("deleted data = %v", del)
	}
	log := e.do("GET", fmt.Sprintf("/api/svc/v2/webhooks/%v/deliveries", list[0].(map[string]any)["id"]), "administrator", nil)
	e.want(log, 200)
	entries := log.Array()
	if len(entries) != 3 || entries[0].(map[string]any)["status"] != "delivered" || entries[0].(map[string]any)["attempts"] != float64(1) {
		t.Fatalf("delivery log = %s", log.Body)
	}
}
