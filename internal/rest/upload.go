package rest

import (
	"crypto/md5"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"time"
)

// UploadHeadSize is how many leading bytes of an upload UploadFile.Head
// keeps for content sniffing.
const UploadHeadSize = 1024

// maxUploadParts bounds the parts of a multipart upload body, as Go's
// multipart.Reader.ReadForm does by default.
const maxUploadParts = 1000

// UploadFile is the file of a request to a Route.Upload route: the raw
// body, or the multipart part "file", streamed into a temporary file while
// the body was read, so that memory does not grow with the file's size.
// The server removes the temporary file when the request ends, unless it
// was moved away (renamed) meanwhile.
type UploadFile struct {
	// Header is the MIME header of the multipart part; nil for a raw body.
	Header textproto.MIMEHeader
	// Filename is the part's file name as mime/multipart gives it (its
	// base name); "" for a raw body.
	Filename string
	// File is the temporary file holding the bytes.
	File *os.File
	// Size is the number of bytes.
	Size int64
	// MD5 is the MD5 digest of the bytes.
	MD5 [md5.Size]byte
	// Head is the first UploadHeadSize bytes (all of them when fewer).
	Head []byte

	info os.FileInfo // of File when written, to recognise it at removal
}

// errUploadWrite marks a failure to write the temporary file (as opposed
// to reading the request).
type errUploadWrite struct{ err error }

func (e *errUploadWrite) Error() string { return "write upload: " + e.err.Error() }
func (e *errUploadWrite) Unwrap() error { return e.err }

// SpoolUpload copies r into the empty file f, computing the MD5 digest and
// keeping the head on the way, and returns the result. A failure to write
// f is reported apart from a failure to read r (see uploadError). f is
// left open either way.
func SpoolUpload(f *os.File, r io.Reader) (*UploadFile, error) {
	u := &UploadFile{File: f, Head: make([]byte, 0, UploadHeadSize)}
	h := md5.New()
	if err := u.copy(h, r); err != nil {
		return nil, err
	}
	copy(u.MD5[:], h.Sum(nil))
	info, err := f.Stat()
	if err != nil {
		return nil, &errUploadWrite{err}
	}
	u.info = info
	return u, nil
}

func (u *UploadFile) copy(h hash.Hash, r io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			b := buf[:n]
			if room := UploadHeadSize - len(u.Head); room > 0 {
				u.Head = append(u.Head, b[:min(room, n)]...)
			}
			h.Write(b)
			if _, err := u.File.Write(b); err != nil {
				return &errUploadWrite{err}
			}
			u.Size += int64(n)
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// Remove closes the temporary file and deletes it, unless it was moved
// away: a file now at its old name is left alone.
func (u *UploadFile) Remove() error {
	name := u.File.Name()
	err := u.File.Close()
	if cur, serr := os.Lstat(name); serr == nil && u.info != nil && os.SameFile(u.info, cur) {
		if rerr := os.Remove(name); rerr != nil {
			err = rerr
		}
	}
	return err
}

// removeTemp discards a temporary file that never became an UploadFile.
func removeTemp(f *os.File) {
	_ = f.Close()
	_ = os.Remove(f.Name())
}

// uploadTemp creates the temporary file of an upload of req's route.
func (s *Server) uploadTemp(req *Request) (*os.File, error) {
	if create := req.rt.def.UploadTemp; create != nil {
		return create()
	}
	return os.CreateTemp("", ".upload-*")
}

// uploadError turns a failure while streaming an upload body into the
// API error: 413 past the size limit, 408 when the body came slower than
// the minimum rate (see uploadDeadline), 500 when the temporary file
// could not be written, else 400 (a body that broke off or does not
// parse).
func (s *Server) uploadError(req *Request, err error, parse string) *Error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return NewError("rest_request_too_large", http.StatusRequestEntityTooLarge, msgTooLarge)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return NewError("rest_upload_timeout", http.StatusRequestTimeout, fmt.Sprintf(
			"The upload was too slow: a file must arrive within %s plus one second per %d bytes.", s.cfg.UploadGrace, s.cfg.UploadMinRate))
	}
	var we *errUploadWrite
	if errors.As(err, &we) {
		s.log.ErrorContext(req.Context(), "rest: storing upload", "path", req.Path, "err", err)
		return NewError("rest_upload_file_error", http.StatusInternalServerError, "Could not write the uploaded file.")
	}
	return NewError("rest_invalid_body", http.StatusBadRequest, parse)
}

// spool streams body into a new temporary file for req.
func (s *Server) spool(req *Request, body io.Reader, parse string) (*UploadFile, *Error) {
	f, err := s.uploadTemp(req)
	if err != nil {
		return nil, s.uploadError(req, &errUploadWrite{err}, parse)
	}
	up, err := SpoolUpload(f, body)
	if err != nil {
		removeTemp(f)
		return nil, s.uploadError(req, err, parse)
	}
	return up, nil
}

// uploadDeadline enforces the minimum-rate rule on an upload body. The
// HTTP server reads a whole request within its read timeout (60 s), which
// would cut off any upload slower than max_upload_bytes per minute. While
// an upload body is read, the connection's read deadline is instead
// grace plus one second per rate bytes received so far, counted from the
// start of the body: a client may pause or start slowly, but must keep an
// average of rate bytes per second over the body, and the body can never
// take longer than grace + limit/rate. The write deadline follows, grace
// later, so that the answer (413, 408, or the upload's) can still be sent.
// A ResponseWriter that cannot set deadlines (a test recorder) leaves the
// server's timeouts as they are.
type uploadDeadline struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  int64
	// end is the latest deadline, set is the one set last.
	end, set time.Time
	n        int64
	ok       bool
}

// limitUploadRate puts the minimum-rate rule on r's body, bounded by limit
// bytes.
func (s *Server) limitUploadRate(w http.ResponseWriter, r *http.Request, limit int64) *uploadDeadline {
	d := &uploadDeadline{body: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: s.cfg.UploadGrace, rate: s.cfg.UploadMinRate}
	d.end = d.start.Add(d.grace + d.allowance(limit))
	d.ok = d.extend(d.start.Add(d.grace)) == nil
	r.Body = d
	return d
}

// allowance is the time n bytes may take at the minimum rate.
func (d *uploadDeadline) allowance(n int64) time.Duration {
	return time.Duration(float64(n) / float64(d.rate) * float64(time.Second))
}

// extend sets the read deadline to t and the write deadline grace later.
func (d *uploadDeadline) extend(t time.Time) error {
	d.set = t
	if err := d.rc.SetReadDeadline(t); err != nil {
		return err
	}
	return d.rc.SetWriteDeadline(t.Add(d.grace))
}

// Read reads from the body and moves the deadline by what arrived (in
// steps of at least a second, or a quarter of grace when that is shorter,
// to keep timer updates rare).
func (d *uploadDeadline) Read(p []byte) (int, error) {
	n, err := d.body.Read(p)
	if n > 0 && d.ok {
		d.n += int64(n)
		t := d.start.Add(d.grace + d.allowance(d.n))
		if t.After(d.end) {
			t = d.end
		}
		if t.Sub(d.set) >= min(time.Second, d.grace/4) {
			_ = d.extend(t)
		}
	}
	return n, err
}

// Close closes the body.
func (d *uploadDeadline) Close() error { return d.body.Close() }

// done gives the handler grace to process the received upload and answer.
func (d *uploadDeadline) done() {
	if d.ok {
		_ = d.rc.SetWriteDeadline(time.Now().Add(d.grace))
	}
}

// streamRawUpload streams the raw body of an upload request (bounded by
// limit) into req.Upload.
func (s *Server) streamRawUpload(w http.ResponseWriter, r *http.Request, req *Request, limit int64) *Error {
	defer s.limitUploadRate(w, r, limit).done()
	up, e := s.spool(req, http.MaxBytesReader(w, r.Body, limit), "The request body could not be read.")
	if e != nil {
		return e
	}
	req.Upload = up
	return nil
}

// streamMultipartUpload reads a multipart/form-data upload body (bounded
// by limit) part by part: fields without a file name go to req.Form (at
// most MaxBodyBytes of them), the first file part named "file" is streamed
// into req.Upload, other file parts are skipped.
func (s *Server) streamMultipartUpload(w http.ResponseWriter, r *http.Request, req *Request, limit int64) *Error {
	const parse = "The multipart body could not be parsed."
	defer s.limitUploadRate(w, r, limit).done()
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := r.MultipartReader()
	if err != nil {
		return NewError("rest_invalid_body", http.StatusBadRequest, "The multipart body has no boundary.")
	}
	form := url.Values{}
	room := s.cfg.MaxBodyBytes
	for parts := 0; ; parts++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.uploadError(req, err, parse)
		}
		if parts >= maxUploadParts {
			return NewError("rest_invalid_body", http.StatusBadRequest, parse)
		}
		name := p.FormName()
		if name == "" {
			continue
		}
		if p.FileName() == "" {
			v, err := io.ReadAll(io.LimitReader(p, room+1))
			if err != nil {
				return s.uploadError(req, err, parse)
			}
			if int64(len(v)) > room {
				return NewError("rest_invalid_body", http.StatusBadRequest, parse)
			}
			room -= int64(len(v))
			form.Add(name, string(v))
			continue
		}
		if name != "file" || req.Upload != nil {
			continue // NextPart skips what is left of it
		}
		up, e := s.spool(req, p, parse)
		if e != nil {
			return e
		}
		up.Header, up.Filename = p.Header, p.FileName()
		req.Upload = up
	}
	req.Form = form
	return nil
}
