// Package media holds what Folio does with uploaded files: blob storage (a
// local directory or an S3-compatible bucket), the file-type allowlist with
// content sniffing, Content-Disposition parsing, safe unique file names,
// and image decoding, metadata and resized sizes.
package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/config"
)

// ErrNotExist is returned by Blobs.Open for a key that holds nothing.
var ErrNotExist = errors.New("media: blob does not exist")

// ErrUnavailable wraps a failure of the storage itself: the server cannot
// be reached, the connection broke, or it answered that it is unavailable
// (a 5xx). Trying again later may succeed, unlike a refused credential or
// a missing bucket, which need the operator.
var ErrUnavailable = errors.New("media: upload storage is unavailable")

// Blobs stores upload files under slash-separated keys such as
// "2024/05/photo.jpg". A Put becomes visible only once complete: readers
// never see a partial file.
type Blobs interface {
	// Put stores size bytes from r under key, replacing what was there.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Open returns the blob under key for reading; ErrNotExist when none.
	Open(ctx context.Context, key string) (Object, error)
	// Exists reports whether key holds a blob.
	Exists(ctx context.Context, key string) (bool, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// Object is an open blob: seekable (for range requests), with its size and
// modification time.
type Object interface {
	io.ReadSeekCloser
	Size() int64
	ModTime() time.Time
}

// OpenBlobs builds the blob storage cfg selects: an S3-compatible bucket
// for an s3:// media URL, otherwise a local directory (cfg.UploadsDir()).
func OpenBlobs(ctx context.Context, cfg *config.Config) (Blobs, error) {
	if strings.HasPrefix(cfg.Media.URL, "s3://") {
		u, err := url.Parse(cfg.Media.URL)
		if err != nil {
			return nil, fmt.Errorf("media url: %w", err)
		}
		access, secret := cfg.Media.AccessKey, cfg.Media.SecretKey
		if access == "" {
			access = os.Getenv("AWS_ACCESS_KEY_ID")
		}
		if secret == "" {
			secret = os.Getenv("AWS_SECRET_ACCESS_KEY")
		}
		q := u.Query()
		return NewS3(ctx, S3Options{
			Endpoint:  q.Get("endpoint"),
			Region:    q.Get("region"),
			Bucket:    u.Host,
			Prefix:    strings.Trim(u.Path, "/"),
			Secure:    q.Get("secure") != "false" && q.Get("secure") != "0",
			AccessKey: access,
			SecretKey: secret,
		})
	}
	return NewLocal(cfg.UploadsDir())
}

// validKey reports whether key is a clean relative slash path without
// empty, "." or ".." segments.
func validKey(key string) bool {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") || strings.ContainsRune(key, 0) {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
