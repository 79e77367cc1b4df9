package rest_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"os"
	"testing"
)

// multipartSeed builds a well-formed multipart body with the given
// boundary: a field, the file part and a part after it.
func multipartSeed(boundary, disposition string, file []byte) []byte {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.SetBoundary(boundary)
	_ = mw.WriteField("title", "Hello")
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", disposition)
	h.Set("Content-Type", "application/octet-stream")
	pw, _ := mw.CreatePart(h)
	_, _ = pw.Write(file)
	_ = mw.WriteField("caption", "After")
	_ = mw.Close()
	return b.Bytes()
}

// FuzzMultipartUpload sends arbitrary multipart bodies (and boundary
// parameters) to an Upload route. Whatever the body, the answer is 201, 400
// or 413 with a JSON body (never a 5xx or a panic), a received file is
// whole (its digest matches what the handler reads), and no temporary file
// is left behind.
func FuzzMultipartUpload(f *testing.F) {
	f.Add("XyZ", multipartSeed("XyZ", `form-data; name="file"; filename="a.png"`, []byte("\x89PNG data")))
	f.Add("XyZ", multipartSeed("XyZ", `form-data; name="file"; filename*=UTF-8''%e2%82%ac.png`, []byte("euro")))
	f.Add("XyZ", multipartSeed("XyZ", `form-data; name="file"`, []byte("no file name")))
	f.Add("XyZ", multipartSeed("XyZ", `form-data; name="file"; filename="../../etc/passwd"`, bytes.Repeat([]byte("A"), 5000)))
	f.Add("XyZ", []byte("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\ntruncated"))
	f.Add("XyZ", []byte("--XyZ--\r\n"))
	f.Add("", []byte("--\r\n\r\n"))
	f.Add("XyZ\"; x=\"", []byte("--XyZ\r\n\r\n--XyZ--"))
	dir := f.TempDir()
	s := uploadServer(f, dir)
	f.Fuzz(func(t *testing.T, boundary string, body []byte) {
		req := httptest.NewRequest("POST", "http://example.test/api/svc/v2/files", bytes.NewReader(body))
		req.Header.Set("Content-Type", `multipart/form-data; boundary="`+boundary+`"`)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		switch w.Code {
		case 201, 400, 413:
		default:
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("status %d with a body that is not JSON: %q", w.Code, w.Body)
		}
		if w.Code == 201 && out["multipart"] == true && out["md5ok"] != true {
			t.Fatalf("the received file does not match its digest: %v", out)
		}
		if es, err := os.ReadDir(dir); err != nil || len(es) != 0 {
			t.Fatalf("temporary files left: %v %v", es, err)
		}
	})
}
