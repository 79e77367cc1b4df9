package testkit

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
)

// Create sends body to the API route as login, fails the test unless the
// answer is 201 Created, and returns the created object.
func (s *Site) Create(login, route string, body map[string]any) map[string]any {
	s.T.Helper()
	r := s.Do("POST", s.API(route), login, body)
	if r.Status != http.StatusCreated {
		s.T.Fatalf("POST %s as %q: %d %s", route, login, r.Status, r.Body)
	}
	return r.Object()
}

func (s *Site) createID(login, route string, defaults, fields map[string]any) int64 {
	s.T.Helper()
	body := map[string]any{}
	for k, v := range defaults {
		body[k] = v
	}
	for k, v := range fields {
		body[k] = v
	}
	id, ok := s.Create(login, route, body)["id"].(float64)
	if !ok {
		s.T.Fatalf("POST %s: no id in the answer", route)
	}
	return int64(id)
}

// Post creates a post as login through the API, published and titled
// "Untitled" unless fields say otherwise, and returns its id.
func (s *Site) Post(login string, fields map[string]any) int64 {
	s.T.Helper()
	return s.createID(login, "/posts", map[string]any{"title": "Untitled", "status": "publish"}, fields)
}

// Page creates a page as login, as Post does a post.
func (s *Site) Page(login string, fields map[string]any) int64 {
	s.T.Helper()
	return s.createID(login, "/pages", map[string]any{"title": "Untitled", "status": "publish"}, fields)
}

// Term creates a term named name in the taxonomy whose route is base
// ("categories", "tags", ...) as login, and returns its id.
func (s *Site) Term(login, base, name string, fields map[string]any) int64 {
	s.T.Helper()
	return s.createID(login, "/"+base, map[string]any{"name": name}, fields)
}

// Comment creates a comment on post as login with content text, and
// returns its id.
func (s *Site) Comment(login string, post int64, text string, fields map[string]any) int64 {
	s.T.Helper()
	return s.createID(login, "/comments", map[string]any{"post": post, "content": text}, fields)
}

// Media uploads a small PNG named name as login and returns the
// attachment's id.
func (s *Site) Media(login, name string) int64 {
	s.T.Helper()
	r := s.Upload(login, name, "image/png", PNG(4, 3))
	if r.Status != http.StatusCreated {
		s.T.Fatalf("upload %s as %q: %d %s", name, login, r.Status, r.Body)
	}
	var m struct {
		ID int64 `json:"id"`
	}
	r.Decode(&m)
	return m.ID
}

// PNG returns a w×h PNG image.
func PNG(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			img.Set(x, y, color.NRGBA{R: uint8(x * 40), G: uint8(y * 40), B: 200, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}
