package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/ratelimit"
	"github.com/folio-server/folio/internal/reqlog"
	"github.com/folio-server/folio/internal/store"
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// validCallback reports whether s is an acceptable JSONP callback name
// ([A-Za-z0-9_.]+).
func validCallback(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// msgTooManyRequests is the message of rest_too_many_requests.
const msgTooManyRequests = "Too many requests. Please wait a moment and try again."

// rateClass says which rate-limit budget req draws on: uploads are writes
// to a route that takes a file, searches are reads with a search argument
// or of a search route.
func (s *Server) rateClass(req *Request) ratelimit.Class {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if req.Query.Get("search") != "" || strings.HasSuffix(req.Path, "/search") {
			return ratelimit.Search
		}
		return ratelimit.Read
	}
	if rt, _, _ := s.find(req.Method, req.Path); rt != nil && rt.def.Upload {
		return ratelimit.Upload
	}
	return ratelimit.Write
}

// ServeHTTP serves the API. Mount it at Names.Prefix+"/" (and
// Names.Prefix); r.URL.Path includes the prefix.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, false)
}

// serve serves one request; again is set for the second run of a request
// whose kept sign-in moved on before it answered (deferSignIn).
func (s *Server) serve(w http.ResponseWriter, r *http.Request, again bool) {
	h := w.Header()
	h["Content-Type"] = hdrJSON
	h["X-Content-Type-Options"] = hdrNosniff
	if s.cors.Load().setHeaders(h, r) {
		// A preflight is answered before authentication: browsers send it
		// without credentials, also for routes that need them.
		delete(h, "Content-Type")
		w.WriteHeader(http.StatusNoContent)
		return
	}

	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(r.Context(), "rest: panic while serving", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			s.writeError(w, NewError("rest_internal_error", http.StatusInternalServerError, msgInternal))
		}
	}()

	q := r.URL.Query()
	path := r.URL.Path
	if p := s.cfg.Names.Prefix; strings.HasPrefix(path, p) && (len(path) == len(p) || path[len(p)] == '/') {
		path = path[len(p):]
	}
	path = cleanPath(path)
	if path == "/" {
		if rr := q.Get("rest_route"); rr != "" {
			path = cleanPath(rr)
		}
	}

	callback := ""
	if vs, ok := q["_jsonp"]; ok {
		if s.cfg.DisableJSONP {
			s.writeError(w, NewError("rest_callback_disabled", http.StatusBadRequest, "JSONP support is disabled on this site."))
			return
		}
		if len(vs) > 0 {
			callback = vs[len(vs)-1]
		}
		if !validCallback(callback) {
			s.writeError(w, NewError("rest_callback_invalid", http.StatusBadRequest, "The JSONP callback function is invalid."))
			return
		}
	}

	// The override (`_method`, X-HTTP-Method-Override) is honoured on POST
	// only: a GET or HEAD, which links, images and script tags on any page
	// can make, never writes.
	method := r.Method
	if method == http.MethodPost {
		if m, ok := q["_method"]; ok && len(m) > 0 && m[len(m)-1] != "" {
			method = m[len(m)-1]
		} else if m := r.Header.Get("X-HTTP-Method-Override"); m != "" {
			method = m
		}
	}
	method = strings.ToUpper(method)

	// A write may go on with a kept sign-in, checked before anything it
	// does counts (store.SignInCheck); should it fail, the request runs
	// again from here, with its body kept for that and its headers as
	// they are now.
	first := r
	var kept []byte
	var keptHdr http.Header
	if !again && method != http.MethodOptions && s.deferSignIn(r) {
		var ok bool
		if kept, ok = keepBody(r); ok {
			keptHdr = h.Clone()
			r = r.WithContext(store.WithSignInDeferred(r.Context()))
		}
	}

	req := &Request{
		Method: method,
		Path:   path,
		Header: r.Header,
		Query:  q,
		HTTP:   r,
		ctx:    r.Context(),
		srv:    s,
	}
	if s.cfg.SiteURL != "" {
		req.base = s.cfg.SiteURL
	} else {
		req.base = requestBase(r)
	}

	var resp *Response
	var form *multipart.Form
	if s.cfg.Authenticate != nil {
		u, err := s.cfg.Authenticate(r)
		if err != nil {
			resp = errorResponse(s.apiError(req, err))
			if rt, _ := s.findAny(path); rt != nil {
				// Refused credentials still count under their route.
				reqlog.SetRoute(r.Context(), rt.label)
			}
		} else {
			req.User = u
			if c := u.SignInCheck(); c != nil {
				req.ctx = store.WithSignInCheck(req.ctx, c)
			}
			if g, ok := u.SiteGeneration(); ok {
				// Read with the sign-in data: the site's settings and
				// webhooks kept at g need not be read again.
				req.ctx = store.WithSiteGeneration(req.ctx, g)
			}
			if s.cfg.ResponseHeaders != nil {
				for k, v := range s.cfg.ResponseHeaders(r, u) {
					h[k] = v
				}
			}
		}
	}
	if resp == nil && s.cfg.RateLimit != nil {
		if d := s.cfg.RateLimit(r, req.User, s.rateClass(req)); d > 0 {
			resp = errorResponse(NewError("rest_too_many_requests", http.StatusTooManyRequests, msgTooManyRequests))
			resp.SetHeader("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
		}
	}
	if req.User != nil {
		h["Expires"] = hdrExpires
		h["Cache-Control"] = hdrNoCache
		h["Pragma"] = hdrPragma
	}
	key := ""
	var version int64
	if resp == nil {
		if key = s.cacheKey(r, req); key != "" {
			v, err := s.version(r.Context())
			if err != nil {
				key = "" // the request itself will report the store's state
			} else {
				version = v
				if s.cache != nil {
					e := s.cache.get(key, v)
					if e == nil && r.Method == http.MethodGet {
						var land func()
						var gone error
						e, land, gone = s.cache.waitFlight(r.Context(), key, v)
						if land != nil {
							defer land() // after the answer is kept, below
						}
						if gone != nil {
							resp = errorResponse(s.apiError(req, gone))
						}
					}
					if e != nil {
						reqlog.SetRoute(r.Context(), e.route)
						if e.etag != "" {
							if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, e.etag) {
								notModified(w, e.etag)
								return
							}
							h.Set("ETag", e.etag)
						}
						serveCached(w, r, e)
						return
					}
				}
				req.ctx = store.WithVersion(req.ctx, v)
				req.etag = true
			}
		}
	}
	if resp == nil {
		if method == http.MethodOptions {
			resp = s.options(req)
		} else if !s.bind(req) {
			resp = errorResponse(noRoute())
		} else {
			var e *Error
			// The upload's temporary file, streamed by readBody or made
			// by the handler, goes when the request ends.
			defer func() {
				if req.Upload != nil {
					_ = req.Upload.Remove()
				}
			}()
			form, e = s.readBody(w, r, req)
			if e != nil {
				resp = errorResponse(e)
			} else {
				resp = s.execute(req)
			}
			s.addAllow(req, resp)
		}
		if req.rt != nil {
			reqlog.SetRoute(r.Context(), req.rt.label)
		}
	}
	if c := store.ContextSignInCheck(req.ctx); c != nil {
		// Nothing is answered before the sign-in is known to be what was
		// kept: checked by the request's first write transaction, or read
		// now.
		held, err := c.Verify(req.ctx)
		switch {
		case err != nil:
			resp = errorResponse(s.apiError(req, err))
		case !held && again:
			// A second run reads its sign-in first: never here.
			resp = errorResponse(s.apiError(req, errors.New("rest: a second run went on with a kept sign-in")))
		case !held:
			for k := range h {
				delete(h, k)
			}
			maps.Copy(h, keptHdr)
			// The log line names the caller and route of the second run.
			reqlog.SetUser(first.Context(), 0)
			reqlog.SetRoute(first.Context(), "")
			first.Body = io.NopCloser(bytes.NewReader(kept))
			s.serve(w, first, true)
			return
		}
	}
	if form != nil {
		defer func() { _ = form.RemoveAll() }()
	}
	embed := q["_embed"] // nil when absent; "?_embed" gives [""]
	_, envelope := q["_envelope"]
	if key == "" || s.cache == nil || resp.Status >= 500 || resp.Status == StatusClientClosedRequest {
		s.write(w, req, resp, embed, envelope, callback)
		return
	}
	rec := &recorder{ResponseWriter: w}
	s.write(rec, req, resp, embed, envelope, callback)
	// Only what the route produced is cached; per-request headers (CORS,
	// nonces) are set anew on every request.
	hdr := http.Header{"Content-Type": h["Content-Type"], "Content-Length": h["Content-Length"]}
	if !envelope {
		for k, v := range resp.Header {
			hdr[s.headerName(k)] = v
		}
	}
	body := rec.body
	if r.Method == http.MethodHead || rec.status == http.StatusNotModified {
		return // no body to keep
	}
	route := ""
	if req.rt != nil {
		route = req.rt.label
	}
	s.cache.put(key, &cachedResponse{version: version, status: rec.status, header: hdr, body: body, etag: h.Get("ETag"), route: route})
}

// write encodes resp and sends it. embed holds the values of the _embed
// parameter (nil when there is none). The request's _fields mask, when
// set, limits what is written; embedding happens only when it shows
// _embedded.
func (s *Server) write(w http.ResponseWriter, req *Request, resp *Response, embed []string, envelope bool, callback string) {
	h := w.Header()
	bp := bufPool.Get().(*[]byte)
	e := encoder{buf: (*bp)[:0], c: s.comp}
	mask := req.fields()
	if embed != nil {
		if em, ok := mask.child("_embedded"); ok {
			e.embeds = s.embedAll(req, resp.Data, embedRels(embed), em)
		}
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	if callback != "" {
		h["Content-Type"] = hdrJS
		e.buf = append(e.buf, "/**/"...)
		e.buf = append(e.buf, callback...)
		e.buf = append(e.buf, '(')
	}
	if envelope {
		e.buf = append(e.buf, `{"body":`...)
		e.masked(resp.Data, mask)
		e.buf = append(e.buf, `,"status":`...)
		e.buf = strconv.AppendInt(e.buf, int64(status), 10)
		e.buf = append(e.buf, `,"headers":`...)
		hdrs := make(map[string]string, len(resp.Header))
		for k, v := range resp.Header {
			hdrs[s.headerName(k)] = strings.Join(v, ", ")
		}
		e.value(hdrs)
		e.buf = append(e.buf, '}')
		status = http.StatusOK
	} else {
		for k, v := range resp.Header {
			// The spec's spelling (X-API-Total), not Go's canonical one;
			// header names are case-insensitive, but clients grep them.
			h[s.headerName(k)] = v
		}
		e.masked(resp.Data, mask)
	}
	if callback != "" {
		e.buf = append(e.buf, ')')
	}
	if req.etag && status == http.StatusOK {
		// The tag names the representation itself, so that it changes
		// only when what this caller sees changes (a write it may not
		// see leaves it alone).
		tag := contentTag(e.buf, h, s.cfg.Names)
		h.Set("ETag", tag)
		if inm := req.HTTP.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, tag) {
			status = http.StatusNotModified
		}
	}
	if status == http.StatusNotModified {
		notModified(w, h.Get("ETag"))
	} else {
		h["Content-Length"] = []string{strconv.Itoa(len(e.buf))}
		w.WriteHeader(status)
		if req.Method != http.MethodHead && req.HTTP != nil && req.HTTP.Method != http.MethodHead {
			_, _ = w.Write(e.buf)
		}
	}
	if cap(e.buf) <= 1<<20 {
		*bp = e.buf[:0]
		bufPool.Put(bp)
	}
}

// headerName restores the configured spelling of the total headers, which
// http.Header stores canonicalised ("X-Api-Total").
func (s *Server) headerName(k string) string {
	n := s.cfg.Names
	switch {
	case strings.EqualFold(k, n.TotalHeader()):
		return n.TotalHeader()
	case strings.EqualFold(k, n.TotalPagesHeader()):
		return n.TotalPagesHeader()
	}
	return k
}

// writeError sends an error before a request was built.
func (s *Server) writeError(w http.ResponseWriter, e *Error) {
	b := (&encoder{c: s.comp}).encodeError(e)
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(e.HTTPStatus())
	_, _ = w.Write(b)
}

func (e *encoder) encodeError(x *Error) []byte {
	e.errorBody(x)
	return e.buf
}

// deferSignIn reports whether r may go on with a kept sign-in and have it
// checked later (store.SignInCheck): a write signed in with Basic
// credentials, whose body (JSON, urlencoded or none, of a known length
// within MaxBodyBytes) can be kept in memory to run it again, on a store
// that checks sign-ins with a write's first statement.
func (s *Server) deferSignIn(r *http.Request) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return false
	}
	if !s.cfg.DeferSignIn || !strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
		return false
	}
	if r.ContentLength < 0 || r.ContentLength > s.cfg.MaxBodyBytes {
		return false
	}
	mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	switch strings.ToLower(strings.TrimSpace(mt)) {
	case "", "application/json", "application/x-www-form-urlencoded":
		return true
	}
	return false
}

// keepBody reads r's body into memory and gives r a reader of it, for a
// second run; false when it could not be read, r then reading what was
// and the error.
func keepBody(r *http.Request) ([]byte, bool) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return []byte{}, true
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), errReader{err}))
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, true
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// readBody reads and parses the body of a bound request: JSON when the
// content type is application/json, form fields for POST, PUT and PATCH;
// the file of an upload (Route.Upload) is streamed into req.Upload.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, req *Request) (*multipart.Form, *Error) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil, nil
	}
	limit := s.cfg.MaxBodyBytes
	if req.rt.def.Upload {
		limit = s.cfg.MaxUploadBytes
	}
	tooLarge := NewError("rest_request_too_large", http.StatusRequestEntityTooLarge, msgTooLarge)
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	ct := r.Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if req.rt.def.Upload && req.formAllowed() {
		// A file is streamed to disk; JSON and urlencoded bodies (and
		// bodies without a type, read as urlencoded) are read below.
		switch mt {
		case "application/json", "", "application/x-www-form-urlencoded":
		default:
			if g := req.ep.UploadGate; g != nil {
				if err := g(req); err != nil {
					return nil, s.apiError(req, err)
				}
			}
		}
		switch mt {
		case "application/json", "", "application/x-www-form-urlencoded":
		case "multipart/form-data":
			return nil, s.streamMultipartUpload(w, r, req, limit)
		default:
			return nil, s.streamRawUpload(w, r, req, limit)
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		return nil, NewError("rest_invalid_body", http.StatusBadRequest, "The request body could not be read.")
	}
	req.Body = body
	switch {
	case mt == "application/json":
		if len(bytes.TrimSpace(body)) == 0 {
			return nil, nil
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		if err == nil && dec.More() {
			err = errors.New("unexpected data after the JSON value")
		}
		if err == nil {
			if _, terr := dec.Token(); terr != io.EOF {
				err = errors.New("unexpected data after the JSON value")
			}
		}
		if err != nil {
			return nil, NewError("rest_invalid_json", http.StatusBadRequest, "Invalid JSON body passed: "+err.Error())
		}
		if m, ok := normalizeJSON(v).(map[string]any); ok {
			req.JSON = m
		}
	case !req.formAllowed():
	case mt == "" || mt == "application/x-www-form-urlencoded":
		vals, _ := url.ParseQuery(string(body))
		req.Form = vals
	case mt == "multipart/form-data":
		_, params, err := mime.ParseMediaType(ct)
		if err != nil || params["boundary"] == "" {
			return nil, NewError("rest_invalid_body", http.StatusBadRequest, "The multipart body has no boundary.")
		}
		form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(32 << 20)
		if err != nil {
			return nil, NewError("rest_invalid_body", http.StatusBadRequest, "The multipart body could not be parsed.")
		}
		req.Form = url.Values(form.Value)
		req.Files = form.File
		return form, nil
	}
	return nil, nil
}

// normalizeJSON turns json.Number values into int64 (integral) or float64.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
	}
	return v
}
