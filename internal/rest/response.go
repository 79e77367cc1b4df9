package rest

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Response is what a handler returns: a status, extra headers and the
// data to encode. Data may be a *Resource, a []*Resource, a *Keyed, an
// *Error or any value encoding/json handles.
type Response struct {
	Status int
	Header http.Header
	Data   any
}

// NewResponse returns a response with the given status and data.
func NewResponse(status int, data any) *Response {
	return &Response{Status: status, Data: data}
}

// SetHeader sets a response header, replacing earlier values.
func (r *Response) SetHeader(k, v string) {
	if r.Header == nil {
		r.Header = make(http.Header, 4)
	}
	r.Header.Set(k, v)
}

// AddLinkHeader appends an entry to the Link header (entries are joined
// with ", " on one line).
func (r *Response) AddLinkHeader(value string) {
	if r.Header == nil {
		r.Header = make(http.Header, 4)
	}
	if old := r.Header.Get("Link"); old != "" {
		value = old + ", " + value
	}
	r.Header.Set("Link", value)
}

// Paginate sets the total headers (Names.TotalHeader and
// Names.TotalPagesHeader) and the Link header with rel="prev" and
// rel="next" for a paged collection. The link base is the collection URL
// with all the request's query parameters (filter[posts_per_page] and
// filter[paged] removed) and page set to the target page.
func (r *Response) Paginate(req *Request, total int64, page, perPage int) {
	if req.embedded {
		return // an embedded body carries no headers
	}
	names := DefaultNames()
	if req.srv != nil {
		names = req.srv.cfg.Names
	}
	var totalPages int64
	if perPage > 0 {
		totalPages = (total + int64(perPage) - 1) / int64(perPage)
	}
	if total < 0 {
		total = 0
	}
	r.SetHeader(names.TotalHeader(), strconv.FormatInt(total, 10))
	r.SetHeader(names.TotalPagesHeader(), strconv.FormatInt(totalPages, 10))
	if page < 1 {
		page = 1
	}
	var links []string
	if page > 1 {
		prev := int64(page - 1)
		if prev > totalPages {
			prev = totalPages
		}
		if prev < 1 {
			prev = 1
		}
		links = append(links, "<"+req.pageURL(prev)+`>; rel="prev"`)
	}
	if totalPages > int64(page) {
		links = append(links, "<"+req.pageURL(int64(page)+1)+`>; rel="next"`)
	}
	if len(links) > 0 {
		r.AddLinkHeader(strings.Join(links, ", "))
	}
}

// pageURL returns the collection URL with the request's query and page
// set to p, keeping the original parameter order.
func (req *Request) pageURL(p int64) string {
	var raw string
	if req.HTTP != nil {
		raw = req.HTTP.URL.RawQuery
	} else {
		raw = req.Query.Encode()
	}
	var b strings.Builder
	b.WriteString(req.URL(strings.TrimPrefix(req.Path, "/")))
	sep := byte('?')
	pageDone := false
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		if key == "filter[posts_per_page]" || key == "filter[paged]" {
			continue
		}
		b.WriteByte(sep)
		sep = '&'
		if key == "page" {
			if pageDone {
				continue
			}
			pageDone = true
			b.WriteString("page=")
			b.WriteString(strconv.FormatInt(p, 10))
			continue
		}
		b.WriteString(url.QueryEscape(key))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(val))
	}
	if !pageDone {
		b.WriteByte(sep)
		b.WriteString("page=")
		b.WriteString(strconv.FormatInt(p, 10))
	}
	return b.String()
}

// Error is an API error: {"code", "message", "data": {"status", ...}}.
type Error struct {
	Code    string
	Message string
	Status  int
	// Data holds extra keys written beside "status" in data.
	Data map[string]any
	// RawData, when set, is written as data instead of the status object.
	RawData any
	// RetryAfter, when positive, is sent as the Retry-After header (in
	// seconds).
	RetryAfter int
	// Cause is the internal error behind the answer: logged once by the
	// error boundary, never sent to the client.
	Cause error
}

// Error returns the code and message.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the cause, so that errors.Is sees through the answer to
// it (a store outage under a rest_cannot_delete becomes a 503).
func (e *Error) Unwrap() error { return e.Cause }

// WithCause returns e with its internal cause set.
func (e *Error) WithCause(err error) *Error {
	e.Cause = err
	return e
}

// HTTPStatus returns the HTTP status of the error (500 when unset).
func (e *Error) HTTPStatus() int {
	if e.Status == 0 {
		return http.StatusInternalServerError
	}
	return e.Status
}

// NewError returns an API error.
func NewError(code string, status int, message string) *Error {
	return &Error{Code: code, Message: message, Status: status}
}

// WithData returns e with key set in its data.
func (e *Error) WithData(key string, v any) *Error {
	if e.Data == nil {
		e.Data = map[string]any{}
	}
	e.Data[key] = v
	return e
}

// AuthError returns an error with the authorization-required status: 401
// when nobody is signed in for r, 403 when someone is.
func AuthError(r *Request, code, message string) *Error {
	status := http.StatusForbidden
	if r == nil || r.User == nil {
		status = http.StatusUnauthorized
	}
	return NewError(code, status, message)
}

// ErrForbidden is the plain "no" of a permission check; it becomes
// rest_forbidden with the authorization-required status (decisions #1).
var ErrForbidden = errors.New("forbidden")

// Messages of the errors the server produces itself.
const (
	msgNoRoute      = "No route was found matching the URL and request method"
	msgForbidden    = "You don't have permission to do this."
	msgInternal     = "An internal error occurred."
	msgTooLarge     = "Request body is too large."
	msgInvalidParam = "Invalid parameter."
)

func errorResponse(e *Error) *Response {
	r := &Response{Status: e.HTTPStatus(), Data: e}
	if e.RetryAfter > 0 {
		r.SetHeader("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	return r
}
