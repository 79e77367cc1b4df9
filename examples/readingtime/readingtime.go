// Package readingtime is an example Folio extension: it adds a read-only
// reading_time field to posts and pages ({"words": N, "minutes": M},
// computed from the raw content), and a route that estimates the reading
// time of any text: GET {api_root}readingtime/v1/estimate?text=...
package readingtime

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/folio-server/folio/ext"
)

// WordsPerMinute is the reading speed the estimate assumes.
const WordsPerMinute = 200

// Extension is the reading-time extension.
type Extension struct {
	// Types are the post types that get the field (default post, page).
	Types []string
}

// New returns the extension for posts and pages.
func New() *Extension { return &Extension{Types: []string{"post", "page"}} }

// Name returns the extension's name.
func (e *Extension) Name() string { return "readingtime" }

// Register adds the field and the route.
func (e *Extension) Register(api *ext.API) error {
	for _, t := range e.Types {
		err := api.RegisterField(t, ext.Field{
			Schema: &ext.Property{
				Name:        "reading_time",
				Description: "Estimated reading time of the content.",
				Type:        "object",
				Context:     ext.View | ext.Edit | ext.Embed,
				Readonly:    true,
				Properties: []*ext.Property{
					{Name: "words", Description: "Words in the content.", Type: "integer", Context: ext.View | ext.Edit | ext.Embed},
					{Name: "minutes", Description: "Minutes to read it, at least 1.", Type: "integer", Context: ext.View | ext.Edit | ext.Embed},
				},
			},
			Get: func(r *ext.Request, res *ext.Resource) (any, error) {
				return Estimate(rawContent(res)), nil
			},
		})
		if err != nil {
			return fmt.Errorf("reading time field on %s: %w", t, err)
		}
	}
	api.RegisterRoute("readingtime/v1", "/estimate", &ext.Route{
		Endpoints: []*ext.Endpoint{{
			Methods: ext.Readable,
			Args: []*ext.Arg{{
				Name: "text", Description: "Text (or HTML) to estimate.", Type: "string", Required: true,
			}},
			Handler: func(r *ext.Request) (*ext.Response, error) {
				return ext.NewResponse(200, Estimate(r.String("text"))), nil
			},
		}},
	})
	return nil
}

// rawContent returns the raw content of a post resource; the rendered one
// when the raw is not there.
func rawContent(res *ext.Resource) string {
	v, _ := res.Value("content")
	m, _ := v.(map[string]any)
	if s, ok := m["raw"].(string); ok {
		return s
	}
	s, _ := m["rendered"].(string)
	return s
}

// Estimate counts the words of text (HTML tags and block comments are
// skipped) and the minutes to read them.
func Estimate(text string) map[string]any {
	words := countWords(stripTags(text))
	minutes := (words + WordsPerMinute - 1) / WordsPerMinute
	if minutes < 1 {
		minutes = 1
	}
	return map[string]any{"words": int64(words), "minutes": int64(minutes)}
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func countWords(s string) int {
	return len(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) && r != '\'' && r != '-' }))
}
