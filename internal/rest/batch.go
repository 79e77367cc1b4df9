package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Batch requests: POST {api_root}batch/v1 runs several write requests in
// one HTTP request, as WordPress 5.6 and later serve them
// (WP_REST_Server::serve_batch_request_v1):
//
//	{"validation": "require-all-validate" | "normal",
//	 "requests": [{"method": "POST", "path": "/svc/v2/posts?context=edit",
//	               "body": {...}, "headers": {...}}, ...]}
//
// Every sub-request is matched, checked against its route's AllowBatch and
// validated first; with "require-all-validate", one failure answers 207
// with each validation result and runs nothing. Otherwise each
// sub-request runs in turn through the same pipeline as a request of its
// own (validation, permission check, handler, registered fields), as the
// batch's caller, and the answer is 207 with one {body, status, headers}
// per sub-request, in order.

// MaxBatchRequests is the most sub-requests one batch may hold (WordPress's
// rest_get_max_batch_size default).
const MaxBatchRequests = 25

// BatchPath is the route of batch requests under the API root.
const BatchPath = "/batch/v1"

// The values of the batch's validation parameter. WordPress spells the
// all-or-nothing mode "require-all-validate"; "require-all-valid" is
// accepted for it too.
const (
	BatchRequireAllValid = "require-all-validate"
	BatchNormal          = "normal"
	batchRequireAlias    = "require-all-valid"
)

// batchMethods are the methods a sub-request may use.
var batchMethods = []string{"POST", "PUT", "PATCH", "DELETE"}

// registerBatch adds the batch route.
func (s *Server) registerBatch() {
	s.add("", BatchPath, &Route{Endpoints: []*Endpoint{{
		Methods: Creatable,
		Handler: s.serveBatch,
		Returns: ShapeOther,
		Args: []*Arg{
			{
				Name:        "validation",
				Description: "Whether every request must pass validation before any runs (require-all-validate) or each runs on its own (normal).",
				Type:        "string",
				Enum:        []string{BatchRequireAllValid, BatchNormal},
				Default:     BatchNormal,
				Sanitize:    sanitizeBatchValidation,
			},
			{
				Name:        "requests",
				Description: fmt.Sprintf("The requests to run, at most %d, each {method, path, body, headers}.", MaxBatchRequests),
				Type:        "array",
				Items:       "object",
				MaxItems:    MaxBatchRequests,
				Required:    true,
				Validate:    validateBatchRequests,
			},
		},
	}}})
}

func sanitizeBatchValidation(_ *Request, _ string, v any) (any, error) {
	if s, ok := v.(string); ok && strings.EqualFold(s, batchRequireAlias) {
		return BatchRequireAllValid, nil
	}
	return v, nil
}

// validateBatchRequests checks the requests parameter against its schema:
// an array of at most MaxBatchRequests objects, each with a string path,
// an optional method among batchMethods, an optional object body and
// optional headers whose values are strings or lists of strings.
func validateBatchRequests(_ *Request, name string, v any) error {
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s is not of type array", name)
	}
	if len(items) > MaxBatchRequests {
		return fmt.Errorf("%s must contain at most %d items", name, MaxBatchRequests)
	}
	for i, it := range items {
		at := name + "[" + strconv.Itoa(i) + "]"
		m, ok := it.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not of type object", at)
		}
		if mv, ok := m["method"]; ok && mv != nil {
			ms, ok := mv.(string)
			if !ok || !batchMethod(ms) {
				return fmt.Errorf("%s[method] is not one of %s", at, strings.Join(batchMethods, ", "))
			}
		}
		p, ok := m["path"]
		if !ok || p == nil {
			return fmt.Errorf("path is a required property of %s", at)
		}
		if _, ok := p.(string); !ok {
			return fmt.Errorf("%s[path] is not of type string", at)
		}
		if b, ok := m["body"]; ok && b != nil {
			if _, ok := batchBody(b); !ok {
				return fmt.Errorf("%s[body] is not of type object", at)
			}
		}
		if h, ok := m["headers"]; ok && h != nil {
			if _, bad := batchHeaders(h); bad != "" {
				return fmt.Errorf("%s[headers]%s", at, bad)
			}
		}
	}
	return nil
}

func batchMethod(m string) bool {
	for _, x := range batchMethods {
		if strings.EqualFold(m, x) {
			return true
		}
	}
	return false
}

// batchBody returns a sub-request's body as an object. An empty JSON
// array counts as an empty object, as PHP clients send one.
func batchBody(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case []any:
		if len(x) == 0 {
			return map[string]any{}, true
		}
	}
	return nil, false
}

// batchHeaders returns a sub-request's headers, or the reason they are
// invalid (" is not of type object", "[Name] is not of type string,array").
func batchHeaders(v any) (http.Header, string) {
	m, ok := v.(map[string]any)
	if !ok {
		if a, ok := v.([]any); ok && len(a) == 0 {
			return http.Header{}, ""
		}
		return nil, " is not of type object"
	}
	h := make(http.Header, len(m))
	for k, hv := range m {
		switch x := hv.(type) {
		case string:
			h.Add(k, x)
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, "[" + k + "] is not of type string,array"
				}
				h.Add(k, s)
			}
		default:
			return nil, "[" + k + "] is not of type string,array"
		}
	}
	return h, ""
}

// serveBatch answers a batch request.
func (s *Server) serveBatch(r *Request) (*Response, error) {
	v, _ := r.Get("requests")
	items, _ := v.([]any)
	subs := make([]*Request, len(items))
	fails := make([]*Error, len(items))
	failed := false
	for i, it := range items {
		m, _ := it.(map[string]any)
		sub, e := s.batchRequest(r, m)
		if e == nil {
			e = s.prepareBatched(sub)
		}
		subs[i], fails[i] = sub, e
		failed = failed || e != nil
	}
	responses := make([]any, len(items))
	if failed && r.String("validation") == BatchRequireAllValid {
		for i, e := range fails {
			if e != nil {
				responses[i] = s.batchEnvelope(subs[i], errorResponse(e))
			}
		}
		out := NewKeyed()
		out.Add("failed", "validation")
		out.Add("responses", responses)
		return NewResponse(http.StatusMultiStatus, out), nil
	}
	for i, sub := range subs {
		if fails[i] != nil {
			responses[i] = s.batchEnvelope(sub, errorResponse(fails[i]))
			continue
		}
		resp := s.execute(sub)
		s.addAllow(sub, resp)
		responses[i] = s.batchEnvelope(sub, resp)
	}
	out := NewKeyed()
	out.Add("responses", responses)
	return NewResponse(http.StatusMultiStatus, out), nil
}

// batchRequest builds the sub-request an item describes. It runs as the
// batch's caller, under the batch's base URL and context; its HTTP request
// is the batch's own with the sub-request's method and URL, so that what
// handlers read from it (the caller's address, user agent and session)
// stays the caller's.
func (s *Server) batchRequest(parent *Request, item map[string]any) (*Request, *Error) {
	method := http.MethodPost
	if m, ok := item["method"].(string); ok && m != "" {
		method = strings.ToUpper(m)
	}
	raw, _ := item["path"].(string)
	u, err := url.Parse(raw)
	if err != nil {
		return nil, NewError("parse_path_failed", http.StatusBadRequest, "Could not parse the path.")
	}
	sub := &Request{
		Method: method,
		Path:   cleanPath(u.Path),
		User:   parent.User,
		Header: http.Header{},
		Query:  u.Query(),
		ctx:    parent.Context(),
		srv:    s,
		base:   parent.baseURL(),
	}
	if b, ok := batchBody(item["body"]); ok {
		sub.JSON = b
	}
	if h, bad := batchHeaders(item["headers"]); bad == "" && h != nil {
		sub.Header = h
	}
	if parent.HTTP != nil {
		hr := parent.HTTP.Clone(parent.Context())
		hr.Method = method
		hr.URL = &url.URL{Path: s.cfg.Names.Prefix + sub.Path, RawQuery: u.RawQuery}
		hr.RequestURI = hr.URL.RequestURI()
		hr.Body = http.NoBody
		hr.ContentLength = 0
		sub.HTTP = hr
	}
	return sub, nil
}

// prepareBatched matches a sub-request to its route, refuses routes that
// do not allow batching and validates its parameters.
func (s *Server) prepareBatched(sub *Request) *Error {
	if !s.bind(sub) {
		return noRoute()
	}
	if !sub.rt.def.AllowBatch {
		return NewError("rest_batch_not_allowed", http.StatusBadRequest, "The requested route does not support batch requests.")
	}
	if e := sub.checkText(); e != nil {
		return e
	}
	if e := sub.validate(); e != nil {
		return e
	}
	sub.validated = true
	return nil
}

// batchEnvelope is a sub-request's entry in the batch response: its body
// (encoded now, with the sub-request's _fields), status and headers.
func (s *Server) batchEnvelope(sub *Request, resp *Response) *Keyed {
	var mask *fieldMask
	if sub != nil {
		mask = sub.fields()
	}
	e := encoder{c: s.comp}
	e.masked(resp.Data, mask)
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	headers := make(map[string]string, len(resp.Header))
	for k, v := range resp.Header {
		headers[s.headerName(k)] = strings.Join(v, ", ")
	}
	out := NewKeyed()
	out.Add("body", json.RawMessage(e.buf))
	out.Add("status", status)
	out.Add("headers", headers)
	return out
}
