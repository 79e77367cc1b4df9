package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Options configure an S3-compatible bucket.
type S3Options struct {
	// Endpoint is host[:port] of the S3 API (e.g. "s3.amazonaws.com",
	// "127.0.0.1:9000").
	Endpoint string
	Region   string
	Bucket   string
	// Prefix is prepended to every key ("site1" stores "site1/2024/...").
	Prefix    string
	Secure    bool
	AccessKey string
	SecretKey string
}

// S3 keeps blobs in an S3-compatible bucket, so several nodes share the
// uploads. A PutObject becomes visible only when the whole object has been
// received (single and multipart uploads alike), so a reader never sees a
// partial file and a failed upload leaves nothing behind.
type S3 struct {
	client *minio.Client
	bucket string
	prefix string
}

var _ Blobs = (*S3)(nil)

// s3MaxRetries is how many times an S3 request is tried.
const s3MaxRetries = 3

// NewS3 connects to the bucket described by o. It does not check that the
// bucket exists: a missing bucket fails the first write.
func NewS3(_ context.Context, o S3Options) (*S3, error) {
	if o.Endpoint == "" {
		o.Endpoint = "s3.amazonaws.com"
	}
	if o.Bucket == "" {
		return nil, errors.New("media: s3 bucket name is empty")
	}
	client, err := minio.New(o.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(o.AccessKey, o.SecretKey, ""),
		Secure: o.Secure,
		Region: o.Region,
		// A request waits for its upload: three tries (about half a
		// second of backoff) before a storage outage becomes a 503, not
		// the client's ten (several seconds).
		MaxRetries: s3MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("media: s3 client for %s: %w", o.Endpoint, err)
	}
	return &S3{client: client, bucket: o.Bucket, prefix: o.Prefix}, nil
}

func (s *S3) key(key string) (string, error) {
	if !validKey(key) {
		return "", fmt.Errorf("media: invalid key %q", key)
	}
	if s.prefix == "" {
		return key, nil
	}
	return path.Join(s.prefix, key), nil
}

// Put uploads r as one object. An object of a type that is not shown in
// place (see ServedInline) is stored with Content-Disposition: attachment,
// so a bucket or CDN serving it directly makes browsers download it.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	opts := minio.PutObjectOptions{ContentType: contentType}
	if !ServedInline(contentType) {
		opts.ContentDisposition = "attachment"
	}
	_, err = s.client.PutObject(ctx, s.bucket, k, r, size, opts)
	if err != nil {
		return s.failed(ctx, "put", key, err)
	}
	return nil
}

type s3Object struct {
	*minio.Object
	size int64
	mod  time.Time
}

func (o *s3Object) Size() int64        { return o.size }
func (o *s3Object) ModTime() time.Time { return o.mod }

// Open returns the object for reading; seeks turn into range requests.
func (s *S3) Open(ctx context.Context, key string) (Object, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, ErrNotExist
	}
	obj, err := s.client.GetObject(ctx, s.bucket, k, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.failed(ctx, "get", key, err)
	}
	st, err := obj.Stat()
	if err != nil {
		obj.Close()
		if isS3NotFound(err) {
			return nil, ErrNotExist
		}
		return nil, s.failed(ctx, "stat", key, err)
	}
	return &s3Object{Object: obj, size: st.Size, mod: st.LastModified}, nil
}

// Exists reports whether the object exists.
func (s *S3) Exists(ctx context.Context, key string) (bool, error) {
	k, err := s.key(key)
	if err != nil {
		return false, err
	}
	_, err = s.client.StatObject(ctx, s.bucket, k, minio.StatObjectOptions{})
	if err == nil {
		return true, nil
	}
	if isS3NotFound(err) {
		return false, nil
	}
	return false, s.failed(ctx, "stat", key, err)
}

// Delete removes the object.
func (s *S3) Delete(ctx context.Context, key string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.bucket, k, minio.RemoveObjectOptions{}); err != nil && !isS3NotFound(err) {
		return s.failed(ctx, "delete", key, err)
	}
	return nil
}

func isS3NotFound(err error) bool {
	resp := minio.ToErrorResponse(err)
	return resp.Code == "NoSuchKey" || resp.StatusCode == 404
}

// failed describes a failed operation on key, wrapping ErrUnavailable
// too when the storage itself failed (see s3Unavailable). Some servers
// (SeaweedFS) answer a write into a missing bucket with a 500: when the
// server answered a 5xx, the bucket is looked up before the failure is
// called an outage.
func (s *S3) failed(ctx context.Context, op, key string, err error) error {
	unavailable := s3Unavailable(err)
	if unavailable && minio.ToErrorResponse(err).StatusCode >= 500 {
		if ok, berr := s.client.BucketExists(ctx, s.bucket); berr == nil && !ok {
			return fmt.Errorf("media: s3 %s %s: bucket %q does not exist: %w", op, key, s.bucket, err)
		}
	}
	if unavailable {
		return fmt.Errorf("media: s3 %s %s: %w: %w", op, key, ErrUnavailable, err)
	}
	return fmt.Errorf("media: s3 %s %s: %w", op, key, err)
}

// s3Unavailable reports whether err means the storage could not be
// reached or answered that it is unavailable, rather than refusing the
// request (credentials, bucket, key). A cancelled or expired context is
// the caller's, not the storage's.
func s3Unavailable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	return minio.ToErrorResponse(err).StatusCode >= 500
}
