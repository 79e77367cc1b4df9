package endpoints_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/HugoSmits86/nativewebp"
	"github.com/folio-server/folio/internal/media"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

func webpOf(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := nativewebp.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMediaWebPSizesStayWebP(t *testing.T) {
	e := newMediaEnv(t)
	r := e.uploadRaw("author", "", webpOf(t, 1200, 800), "Content-Type", "image/webp", "Content-Disposition", `attachment; filename="wide.webp"`)
	r.WantStatus(201)
	m := r.Object()
	if m["mime_type"] != "image/webp" || m["media_type"] != "image" {
		t.Fatalf("record = %s", r.Body)
	}
	d := m["media_details"].(map[string]any)
	if d["width"] != float64(1200) || d["height"] != float64(800) {
		t.Errorf("media_details = %v", d)
	}
	sizes := d["sizes"].(map[string]any)
	want := map[string][2]int{"thumbnail": {150, 150}, "medium": {300, 200}, "medium_large": {768, 512}, "large": {1024, 683}, "full": {1200, 800}}
	if len(sizes) != len(want) {
		t.Fatalf("sizes = %v", keys(sizes))
	}
	for name, wh := range want {
		s := sizes[name].(map[string]any)
		file, _ := s["file"].(string)
		if s["mime_type"] != "image/webp" || !strings.HasSuffix(file, ".webp") || s["width"] != float64(wh[0]) || s["height"] != float64(wh[1]) {
			t.Errorf("size %s = %v", name, s)
			continue
		}
		// The stored file really is a WebP of that size.
		obj, err := e.site.Blobs().Open(context.Background(), monthFolder()+"/"+file)
		if err != nil {
			t.Fatalf("size %s: %v", name, err)
		}
		cfg, format, err := image.DecodeConfig(obj)
		obj.Close()
		if err != nil || format != "webp" || cfg.Width != wh[0] || cfg.Height != wh[1] {
			t.Errorf("size %s decodes as %s %dx%d (%v)", name, format, cfg.Width, cfg.Height, err)
		}
	}
}

// iptcJPEG returns a JPEG with an APP13 segment ("Photoshop 3.0", 8BIM
// resource 0x0404) holding the given IPTC record-2 datasets.
func iptcJPEG(t *testing.T, w, h int, datasets map[byte][]string) []byte {
	var iptc []byte
	for _, ds := range []byte{5, 25, 110, 116, 120} {
		for _, v := range datasets[ds] {
			iptc = append(iptc, 0x1C, 2, ds, byte(len(v)>>8), byte(len(v)))
			iptc = append(iptc, v...)
		}
	}
	var p bytes.Buffer
	p.WriteString("Photoshop 3.0\x008BIM")
	_ = binary.Write(&p, binary.BigEndian, uint16(0x0404))
	p.Write([]byte{0, 0})
	_ = binary.Write(&p, binary.BigEndian, uint32(len(iptc)))
	p.Write(iptc)
	if len(iptc)%2 == 1 {
		p.WriteByte(0)
	}
	jpg := jpegOf(t, w, h)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, 0xFF, 0xED, byte((p.Len()+2)>>8), byte(p.Len()+2))
	out = append(out, p.Bytes()...)
	return append(out, jpg[2:]...)
}

func TestMediaIPTCMetadataAndDefaults(t *testing.T) {
	e := newMediaEnv(t)
	data := iptcJPEG(t, 400, 300, map[byte][]string{
		5:   {"Harbour at dawn"},
		120: {"Boats leaving the harbour."},
		25:  {"harbour", "boats"},
		110: {"Folio Press"},
		116: {"2024 Jane Doe"},
	})
	up := func(query string, data []byte) map[string]any {
		t.Helper()
		r := e.uploadRaw("author", query, data, "Content-Type", "image/jpeg", "Content-Disposition", `attachment; filename="IMG_0001.jpg"`)
		r.WantStatus(201)
		return r.Object()
	}
	m := up("", data)
	if m["title"].(map[string]any)["raw"] != "Harbour at dawn" {
		t.Errorf("title = %v, want the IPTC title", m["title"])
	}
	if m["caption"] != "Boats leaving the harbour." {
		t.Errorf("caption = %v, want the IPTC caption", m["caption"])
	}
	meta := m["media_details"].(map[string]any)["image_meta"].(map[string]any)
	if meta["title"] != "Harbour at dawn" || meta["caption"] != "Boats leaving the harbour." || meta["credit"] != "Folio Press" || meta["copyright"] != "2024 Jane Doe" {
		t.Errorf("image_meta = %v", meta)
	}
	if kw, _ := meta["keywords"].([]any); len(kw) != 2 || kw[0] != "harbour" || kw[1] != "boats" {
		t.Errorf("keywords = %v", meta["keywords"])
	}
	// The request's title and caption win over the embedded ones.
	m = up("?title=Mine&caption=My%20caption", data)
	if m["title"].(map[string]any)["raw"] != "Mine" || m["caption"] != "My caption" {
		t.Errorf("request fields: title %v caption %v", m["title"], m["caption"])
	}
	// A purely numeric embedded title is not used: the file name is.
	m = up("", iptcJPEG(t, 40, 30, map[byte][]string{5: {"20240517 001"}}))
	if title := m["title"].(map[string]any)["raw"]; title != "IMG_0001-2" {
		t.Errorf("numeric IPTC title: title = %v, want the file name", title)
	}
	if meta := m["media_details"].(map[string]any)["image_meta"].(map[string]any); meta["title"] != "20240517 001" {
		t.Errorf("image_meta.title = %v", meta["title"])
	}
}

// crashUpload leaves what a process dying mid-upload leaves: reserved
// names (owner 0) and the files written under them, with no record.
func (e *mediaEnv) crashUpload(blobs media.Blobs, paths ...string) {
	e.T.Helper()
	ctx := context.Background()
	if err := e.db.ReserveMediaPaths(ctx, paths); err != nil {
		e.T.Fatal(err)
	}
	for _, p := range paths {
		if err := blobs.Put(ctx, p, strings.NewReader("partial"), 7, "image/png"); err != nil {
			e.T.Fatal(err)
		}
	}
}

func TestMediaSweeperRemovesAbandonedReservations(t *testing.T) {
	backends := map[string]func(t *testing.T, e *mediaEnv) media.Blobs{
		"local": func(t *testing.T, e *mediaEnv) media.Blobs { return e.site.Blobs() },
		"s3": func(t *testing.T, e *mediaEnv) media.Blobs {
			backend := s3mem.New()
			if err := backend.CreateBucket("folio"); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(gofakes3.New(backend).Server())
			t.Cleanup(srv.Close)
			b, err := media.NewS3(context.Background(), media.S3Options{Endpoint: strings.TrimPrefix(srv.URL, "http://"),
				Region: "us-east-1", Bucket: "folio", AccessKey: "k", SecretKey: "s"})
			if err != nil {
				t.Fatal(err)
			}
			e.site.SetBlobs(b)
			return b
		},
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			e := newMediaEnv(t)
			blobs := open(t, e)
			ctx := context.Background()
			folder := monthFolder()
			// A finished upload, then a crashed one taking the next names.
			m := e.png("author", "pic.png", 400, 300, "")
			kept := m["media_details"].(map[string]any)["file"].(string)
			lost := []string{folder + "/pic-1.png", folder + "/pic-1-150x150.png"}
			e.crashUpload(blobs, lost...)
			// The crashed names are taken: a new upload skips them.
			if f := e.png("author", "pic.png", 40, 30, "")["media_details"].(map[string]any)["file"]; f != folder+"/pic-2.png" {
				t.Fatalf("upload next to a reservation got %v", f)
			}
			// Fresh reservations are not swept.
			if n, err := e.site.SweepMediaReservations(ctx, time.Hour); err != nil || n != 0 {
				t.Fatalf("sweep of fresh reservations = %d, %v", n, err)
			}
			for _, p := range lost {
				if ok, _ := blobs.Exists(ctx, p); !ok {
					t.Fatalf("fresh reservation's file %s was removed", p)
				}
			}
			// Old ones (every reservation is older than a moment from
			// now) go with their files; attached files stay.
			n, err := e.site.SweepMediaReservations(ctx, -2*time.Second)
			if err != nil || n != len(lost) {
				t.Fatalf("sweep = %d, %v; want %d", n, err, len(lost))
			}
			for _, p := range lost {
				if ok, _ := blobs.Exists(ctx, p); ok {
					t.Errorf("swept file %s still exists", p)
				}
				if _, err := e.db.MediaPathOwner(ctx, p); err == nil {
					t.Errorf("swept reservation %s still exists", p)
				}
			}
			for _, p := range []string{kept, strings.TrimSuffix(kept, ".png") + "-150x150.png", folder + "/pic-2.png"} {
				if ok, _ := blobs.Exists(ctx, p); !ok {
					t.Errorf("attached file %s was removed", p)
				}
			}
			// The freed name is used again.
			if f := e.png("author", "pic.png", 40, 30, "")["media_details"].(map[string]any)["file"]; f != folder+"/pic-1.png" {
				t.Errorf("upload after the sweep got %v", f)
			}
			if n, err := e.site.SweepMediaReservations(ctx, -2*time.Second); err != nil || n != 0 {
				t.Errorf("second sweep = %d, %v", n, err)
			}
		})
	}
}
