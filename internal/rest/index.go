package rest

import (
	"net/http"
	"strings"
	"time"
)

// rootIndex answers GET {api_root} (§7.1).
func (s *Server) rootIndex(r *Request) (*Response, error) {
	help := r.ContextName() == "help"
	routes := NewKeyed()
	for _, rt := range s.routes {
		routes.Add(rt.key, s.routeData(r, rt, help))
	}
	info := SiteInfo{Name: s.cfg.SiteName, Description: s.cfg.SiteDescription}
	if s.cfg.SiteInfo != nil {
		var err error
		if info, err = s.cfg.SiteInfo(r.Context()); err != nil {
			return nil, err
		}
	}
	out := NewKeyed()
	out.Add("name", info.Name)
	out.Add("description", info.Description)
	out.Add("url", r.SiteURL(""))
	out.Add("home", r.SiteURL(""))
	if info.Timezone != nil {
		_, offset := time.Now().In(info.Timezone).Zone()
		out.Add("gmt_offset", float64(offset)/3600)
		out.Add("timezone_string", info.Timezone.String())
	}
	out.Add("namespaces", append([]string{}, s.namespaces...))
	out.Add("authentication", []any{})
	out.Add("routes", routes)
	out.Add("_links", linksObject("help", s.cfg.HelpURL))
	return NewResponse(http.StatusOK, out), nil
}

// namespaceIndex answers GET {api_root}<namespace> (§7.2).
func (s *Server) namespaceIndex(r *Request, ns string) (*Response, error) {
	help := r.ContextName() == "help"
	routes := NewKeyed()
	for _, rt := range s.routes {
		if rt.namespace == ns {
			routes.Add(rt.key, s.routeData(r, rt, help))
		}
	}
	out := NewKeyed()
	out.Add("namespace", ns)
	out.Add("routes", routes)
	out.Add("_links", linksObject("up", r.URL("")))
	return NewResponse(http.StatusOK, out), nil
}

func linksObject(rel, href string) *Keyed {
	l := NewKeyed()
	l.Add("href", href)
	out := NewKeyed()
	out.Add(rel, []any{l})
	return out
}

// routeData describes a route for the indexes and OPTIONS: namespace,
// methods, endpoints with their args, the schema when help is set, and
// _links.self (a plain string) for routes without path variables.
func (s *Server) routeData(r *Request, rt *route, help bool) *Keyed {
	methods := []string{}
	endpoints := make([]any, 0, len(rt.endpoints))
	for _, e := range rt.endpoints {
		methods = append(methods, e.methods...)
		args := NewKeyed()
		for _, a := range e.args {
			d := NewKeyed()
			d.Add("required", a.Required)
			if a.Default != nil {
				d.Add("default", a.Default)
			}
			if len(a.Enum) > 0 {
				d.Add("enum", a.Enum)
			}
			if a.Description != "" {
				d.Add("description", a.Description)
			}
			if a.MaxItems > 0 {
				d.Add("maxItems", a.MaxItems)
			}
			args.Add(a.Name, d)
		}
		ed := NewKeyed()
		ed.Add("methods", append([]string{}, e.methods...))
		ed.Add("args", args)
		endpoints = append(endpoints, ed)
	}
	out := NewKeyed()
	out.Add("namespace", rt.namespace)
	out.Add("methods", methods)
	out.Add("endpoints", endpoints)
	if help && rt.def.Schema != nil {
		if sch := rt.def.Schema(); sch != nil {
			js := sch.JSONSchema()
			ordered := NewKeyed()
			for _, k := range []string{"$schema", "title", "type", "properties"} {
				ordered.Add(k, js[k])
			}
			out.Add("schema", ordered)
		}
	}
	if !rt.hasVars {
		links := NewKeyed()
		links.Add("self", r.URL(strings.TrimPrefix(rt.key, "/")))
		out.Add("_links", links)
	}
	return out
}

// options answers OPTIONS on a path (§7.3): the first matching route's
// data with its schema and an Allow header; 200 [] when nothing matches.
func (s *Server) options(req *Request) *Response {
	rt, params := s.findAny(req.Path)
	if rt == nil {
		return NewResponse(http.StatusOK, []any{})
	}
	req.rt = rt
	req.Route = rt.key
	if len(params) > 0 {
		if req.URLParams == nil {
			req.URLParams = params
		} else {
			for k, v := range params {
				req.URLParams[k] = v
			}
		}
	}
	resp := NewResponse(http.StatusOK, s.routeData(req, rt, true))
	s.addAllow(req, resp)
	return resp
}
