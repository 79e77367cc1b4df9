package rest

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// embedSub is one internal request made for _embed.
type embedSub struct {
	href string
	req  *Request
	resp *Response
	enc  []byte // encoded body; nil = placeholder
	// mask is the _fields mask of the relations that embed href (nil:
	// every field; when two relations with different masks share an
	// href, every field).
	mask *fieldMask
}

// embedFilter decides which relations a request embeds and with which
// fields: rels is the _embed list (nil: every relation), mask the
// "_embedded" part of _fields (nil: every relation, every field).
type embedFilter struct {
	rels []string
	mask *fieldMask
	c    *compactor
}

// keep reports whether links of relation rel are embedded, and the field
// mask of the embedded resources. The _embed list and _fields name
// relations as they are written in _links ("author", "wp:term"); the
// full relation URI is accepted in _embed too.
func (f embedFilter) keep(rel string) (*fieldMask, bool) {
	name, _ := f.c.compact(rel)
	if f.rels != nil && !slices.Contains(f.rels, name) && !slices.Contains(f.rels, rel) {
		return nil, false
	}
	return f.mask.child(name)
}

// embedAll fetches the embeddable links of the resources in data (a
// *Resource, a []*Resource or a []any holding resources) and returns the
// encoded "_embedded" object of each resource that has one (§6.4). Only
// the relations rels names are embedded (nil: all), and of the embedded
// resources only the fields mask (the "_embedded" part of _fields) shows;
// the sub-requests skip the work for the others. Identical hrefs are
// fetched once per top-level request; each matched route's Prefetch is
// called once with all its sub-requests first.
func (s *Server) embedAll(top *Request, data any, rels []string, mask *fieldMask) map[*Resource][]byte {
	filter := embedFilter{rels: rels, mask: mask, c: s.comp}
	var resources []*Resource
	switch d := data.(type) {
	case *Resource:
		if d != nil {
			resources = []*Resource{d}
		}
	case []*Resource:
		resources = d
	case []any:
		for _, x := range d {
			if r, ok := x.(*Resource); ok && r != nil {
				resources = append(resources, r)
			}
		}
	}
	if len(resources) == 0 {
		return nil
	}
	subs := map[string]*embedSub{}
	var order []*embedSub
	for _, res := range resources {
		for _, l := range res.links {
			if !l.embeddable || l.rel == "self" {
				continue
			}
			m, ok := filter.keep(l.rel)
			if !ok {
				continue
			}
			if sub, ok := subs[l.href]; ok {
				if !sub.mask.equal(m) {
					sub.mask = nil
				}
				continue
			}
			sub := &embedSub{href: l.href, mask: m}
			subs[l.href] = sub
			order = append(order, sub)
		}
	}
	if len(order) == 0 {
		return nil
	}

	root := top
	if top.root != nil {
		root = top.root
	}
	apiRoot := top.URL("")
	var prefetchOrder []*route
	groups := map[*route][]*Request{}
	for _, sub := range order {
		if !strings.HasPrefix(sub.href, apiRoot) {
			continue
		}
		rest := sub.href[len(apiRoot)-1:]
		rawPath, rawQuery, _ := strings.Cut(rest, "?")
		path, err := url.PathUnescape(rawPath)
		if err != nil {
			continue
		}
		q, _ := url.ParseQuery(rawQuery)
		if _, ok := q["context"]; !ok {
			q.Set("context", "embed")
		}
		req := &Request{
			Method: http.MethodGet,
			Path:   cleanPath(path),
			User:   top.User,
			Header: top.Header,
			Query:  q,
			ctx:    top.Context(),
			srv:    s,
			root:   root,
			base:   top.baseURL(),

			embedded: true,
			mask:     sub.mask,
			maskDone: true,
		}
		sub.req = req
		if !s.bind(req) {
			sub.resp = errorResponse(noRoute())
			continue
		}
		if e := s.resolveOnly(req); e != nil {
			sub.resp = errorResponse(e)
			continue
		}
		if req.rt.def.Prefetch != nil {
			if _, ok := groups[req.rt]; !ok {
				prefetchOrder = append(prefetchOrder, req.rt)
			}
			groups[req.rt] = append(groups[req.rt], req)
		}
	}
	for _, rt := range prefetchOrder {
		s.prefetch(rt, groups[rt])
	}
	for _, sub := range order {
		if sub.req == nil {
			continue
		}
		if sub.resp == nil {
			sub.resp = s.execute(sub.req)
		}
		e := encoder{c: s.comp}
		e.masked(sub.resp.Data, sub.mask)
		sub.enc = e.buf
	}

	out := make(map[*Resource][]byte, len(resources))
	for _, res := range resources {
		if b := s.embedded(res, subs, filter); b != nil {
			out[res] = b
		}
	}
	return out
}

// resolveOnly runs the parameter pipeline of a bound request (used before
// Prefetch); execute runs it again cheaply since values are memoised.
func (s *Server) resolveOnly(req *Request) (e *Error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(req.Context(), "rest: panic while resolving parameters", "path", req.Path, "panic", p)
			e = NewError("rest_internal_error", http.StatusInternalServerError, msgInternal)
		}
	}()
	return req.validate()
}

func (s *Server) prefetch(rt *route, reqs []*Request) {
	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(reqs[0].Context(), "rest: panic in prefetch", "route", rt.key, "panic", p)
		}
	}()
	rt.def.Prefetch(reqs)
}

// isEmptyJSON reports whether an encoded value counts as empty for
// _embedded (an empty list or object, null, false, 0 or "").
func isEmptyJSON(b []byte) bool {
	switch string(b) {
	case "", "[]", "{}", "null", "false", "0", `""`:
		return true
	}
	return false
}

// embedded builds the "_embedded" object of one resource: for each
// relation except self that filter keeps, a list aligned with its links
// (placeholders [] for links that are not embeddable), kept only when an
// entry is non-empty.
func (s *Server) embedded(res *Resource, subs map[string]*embedSub, filter embedFilter) []byte {
	var b []byte
	for _, g := range s.comp.groups(res.links) {
		if g.name == "self" {
			continue
		}
		if _, ok := filter.keep(res.links[g.idx[0]].rel); !ok {
			continue
		}
		nonEmpty := false
		for _, i := range g.idx {
			l := &res.links[i]
			if sub := subs[l.href]; l.embeddable && sub != nil && !isEmptyJSON(sub.enc) {
				nonEmpty = true
				break
			}
		}
		if !nonEmpty {
			continue
		}
		if b == nil {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = appendString(b, g.name)
		b = append(b, ':', '[')
		for j, i := range g.idx {
			if j > 0 {
				b = append(b, ',')
			}
			l := &res.links[i]
			sub := subs[l.href]
			if !l.embeddable || sub == nil || sub.enc == nil {
				b = append(b, '[', ']')
				continue
			}
			b = append(b, sub.enc...)
		}
		b = append(b, ']')
	}
	if b == nil {
		return nil
	}
	return append(b, '}')
}
