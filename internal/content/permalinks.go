package content

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// Permalink returns the public URL of p under siteRoot. Parents of
// hierarchical posts must be in parents (see ParentChains).
// When the site has an external front end ([site] front_end), links point
// there instead of siteRoot.
func (s *Site) Permalink(siteRoot string, p *store.Post, parents map[int64]*store.Post) string {
	siteRoot = s.LinkRoot(siteRoot)
	pt, _ := s.types.Get(p.Type)
	if p.Status != "publish" || p.Slug == "" || pt == nil {
		switch p.Type {
		case "post":
			return fmt.Sprintf("%s/?p=%d", siteRoot, p.ID)
		case "page":
			return fmt.Sprintf("%s/?page_id=%d", siteRoot, p.ID)
		case "attachment":
			return fmt.Sprintf("%s/?attachment_id=%d", siteRoot, p.ID)
		default:
			return fmt.Sprintf("%s/?post_type=%s&p=%d", siteRoot, p.Type, p.ID)
		}
	}
	switch p.Type {
	case "post":
		return datedPermalink(siteRoot, p.Date, p.Slug)
	case "page":
		return siteRoot + "/" + s.slugPath(p, parents) + "/"
	default:
		return siteRoot + "/" + pt.Name + "/" + s.slugPath(p, parents) + "/"
	}
}

// LinkRoot returns the base of the site's public links (permalinks, term
// and author archives): the external front end's URL when [site]
// front_end names one, else siteRoot.
func (s *Site) LinkRoot(siteRoot string) string {
	if ext := s.cfg.Site.ExternalFrontEnd(); ext != "" {
		return ext
	}
	return siteRoot
}

// datedPermalink is siteRoot/YYYY/MM/DD/slug/ (fmt's "%s/%04d/%02d/%02d/%s/"),
// built in one allocation: it is written for every post of a page.
func datedPermalink(siteRoot string, date time.Time, slug string) string {
	y, m, d := date.Date()
	if y < 0 || y > 9999 {
		return fmt.Sprintf("%s/%04d/%02d/%02d/%s/", siteRoot, y, int(m), d, slug)
	}
	var b strings.Builder
	b.Grow(len(siteRoot) + len(slug) + 13)
	b.WriteString(siteRoot)
	b.Write([]byte{'/', byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10),
		'/', byte('0' + int(m)/10), byte('0' + int(m)%10), '/', byte('0' + d/10), byte('0' + d%10), '/'})
	b.WriteString(slug)
	b.WriteByte('/')
	return b.String()
}

func (s *Site) slugPath(p *store.Post, parents map[int64]*store.Post) string {
	parts := []string{p.Slug}
	seen := map[int64]bool{p.ID: true}
	for cur := p; cur.Parent != 0; {
		par, ok := parents[cur.Parent]
		if !ok || seen[par.ID] || par.Slug == "" {
			break
		}
		seen[par.ID] = true
		parts = append(parts, par.Slug)
		cur = par
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}

// ParentChains loads every ancestor of the given hierarchical posts, one
// query per level of depth (never per post).
func (s *Site) ParentChains(ctx context.Context, posts []*store.Post) (map[int64]*store.Post, error) {
	out := map[int64]*store.Post{}
	var next []int64
	for _, p := range posts {
		out[p.ID] = p
	}
	for _, p := range posts {
		if p.Parent != 0 {
			if _, ok := out[p.Parent]; !ok {
				next = append(next, p.Parent)
			}
		}
	}
	for depth := 0; len(next) > 0 && depth < 32; depth++ {
		got, err := s.st.GetPosts(ctx, next)
		if err != nil {
			return nil, err
		}
		next = next[:0]
		for _, p := range got {
			out[p.ID] = p
		}
		for _, p := range got {
			if p.Parent != 0 {
				if _, ok := out[p.Parent]; !ok {
					next = append(next, p.Parent)
				}
			}
		}
	}
	return out, nil
}
