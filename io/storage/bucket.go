package storage

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/memblob"   // mem://
	_ "gocloud.dev/blob/s3blob"    // s3://
	"gocloud.dev/gcerrors"
)

// bucket is an object store bucket, opened once per URL and settings: a mem://
// bucket lives as long as the process and is shared by every caller.
type bucket struct {
	b      *blob.Bucket
	scheme string
	prefix string // "scheme://host", what keys are appended to
	query  string // "?query" or ""
}

var buckets struct {
	sync.Mutex
	open map[string]*bucket
}

// credentials name, per scheme, the environment variables a store reads its
// credentials from, for errors that say what is missing.
var credentials = map[string]string{
	"s3":     "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), AWS_REGION, and AWS_ENDPOINT_URL for a store other than AWS",
	"gs":     "GOOGLE_APPLICATION_CREDENTIALS (a service account's key file)",
	"azblob": "AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN (or AZURE_STORAGE_CONNECTION_STRING)",
}

// settings name, per scheme, the environment variables that choose where a
// store's requests go and as whom: a bucket opened under other values of
// them is another bucket (a test's server on another port, another
// account).
var settings = map[string][]string{
	"s3":     {"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID"},
	"gs":     {"GOOGLE_APPLICATION_CREDENTIALS", "STORAGE_EMULATOR_HOST"},
	"azblob": {"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_DOMAIN"},
}

// openBucket opens (once per URL and settings) the bucket of the URL p.
func openBucket(ctx context.Context, p string) (*bucket, error) {
	u, err := url.Parse(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	switch u.Scheme {
	case "mem", "s3", "gs", "azblob":
	default:
		return nil, fmt.Errorf("%s: unknown URL scheme %q (Dusk reads and writes %s:// URLs and local paths)",
			p, u.Scheme, strings.Join(Schemes, "://, "))
	}
	q := u.Query()
	if u.Scheme == "s3" && !q.Has("use_path_style") && (q.Has("endpoint") || os.Getenv("AWS_ENDPOINT_URL") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != "") {
		// S3-compatible stores (MinIO, Ceph, a test server) are addressed
		// by path, not by a host name per bucket.
		q.Set("use_path_style", "true")
	}
	open := url.URL{Scheme: u.Scheme, Host: u.Host, RawQuery: q.Encode()}
	id := open.String()
	cacheKey := id
	for _, v := range settings[u.Scheme] {
		cacheKey += "\x00" + os.Getenv(v)
	}
	buckets.Lock()
	defer buckets.Unlock()
	if b := buckets.open[cacheKey]; b != nil {
		return b, nil
	}
	if u.Scheme == "azblob" && os.Getenv("AZURE_STORAGE_ACCOUNT") == "" && os.Getenv("AZURE_STORAGE_CONNECTION_STRING") == "" {
		return nil, fmt.Errorf("open %s: no Azure credentials: set %s", p, credentials["azblob"])
	}
	bb, err := blob.OpenBucket(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, withHint(u.Scheme, err))
	}
	b := &bucket{b: bb, scheme: u.Scheme, prefix: u.Scheme + "://" + u.Host}
	if u.RawQuery != "" {
		b.query = "?" + u.RawQuery
	}
	if buckets.open == nil {
		buckets.open = make(map[string]*bucket)
	}
	buckets.open[cacheKey] = b
	return b, nil
}

// withHint adds to a store's error which variables to set, when the error
// is about credentials.
func withHint(scheme string, err error) error {
	msg := strings.ToLower(err.Error())
	if gcerrors.Code(err) == gcerrors.PermissionDenied || strings.Contains(msg, "credential") ||
		strings.Contains(msg, "region") || strings.Contains(msg, "access key") {
		return fmt.Errorf("%w (check %s)", err, credentials[scheme])
	}
	return err
}

// key is the object key of the URL p in this bucket.
func (b *bucket) key(p string) (string, error) {
	u, err := url.Parse(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return strings.TrimPrefix(u.Path, "/"), nil
}

// path is the URL of key in this bucket.
func (b *bucket) path(key string) string { return b.prefix + "/" + key + b.query }

func (b *bucket) err(op, p string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%s %s: %w", op, p, os.ErrNotExist)
	}
	return fmt.Errorf("%s %s: %w", op, p, withHint(b.scheme, err))
}

func (b *bucket) file(key string, o *blob.ListObject) File {
	return File{Path: b.path(key), Size: o.Size, ModTime: o.ModTime, MD5: hex.EncodeToString(o.MD5)}
}

// list returns the object named prefix, or every object under prefix as a
// directory.
func (b *bucket) list(ctx context.Context, p string) ([]File, error) {
	root, err := b.key(p)
	if err != nil {
		return nil, err
	}
	dir := strings.TrimSuffix(root, "/")
	if dir != "" {
		dir += "/"
	}
	var files []File
	it := b.b.List(&blob.ListOptions{Prefix: strings.TrimSuffix(root, "/")})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, withHint(b.scheme, err)
		}
		if o.IsDir || (o.Key != root && !strings.HasPrefix(o.Key, dir)) {
			continue // a longer name that shares the prefix
		}
		if hiddenIn(strings.TrimPrefix(o.Key, dir)) {
			continue
		}
		files = append(files, b.file(o.Key, o))
	}
	sortFiles(files)
	return files, nil
}

// hiddenIn reports whether any segment of the relative key rel is hidden.
func hiddenIn(rel string) bool {
	for _, s := range strings.Split(rel, "/") {
		if isHidden(s) {
			return true
		}
	}
	return false
}

func (b *bucket) stat(ctx context.Context, p string) (File, error) {
	key, err := b.key(p)
	if err != nil {
		return File{}, err
	}
	a, err := b.b.Attributes(ctx, key)
	if err != nil {
		return File{}, b.err("stat", p, err)
	}
	return File{Path: p, Size: a.Size, ModTime: a.ModTime, MD5: hex.EncodeToString(a.MD5)}, nil
}

// object reads ranges of an object, one request each.
type object struct {
	ctx  context.Context
	b    *bucket
	p    string
	key  string
	size int64
}

func (o *object) Size() int64  { return o.size }
func (o *object) Close() error { return nil }

func (o *object) ReadAt(buf []byte, off int64) (int, error) {
	if off >= o.size {
		return 0, io.EOF
	}
	n := min(int64(len(buf)), o.size-off)
	r, err := o.b.b.NewRangeReader(o.ctx, o.key, off, n, nil)
	if err != nil {
		return 0, o.b.err("read", o.p, err)
	}
	defer r.Close()
	got, err := io.ReadFull(r, buf[:n])
	if err != nil {
		return got, o.b.err("read", o.p, err)
	}
	if int(n) < len(buf) {
		return got, io.EOF
	}
	return got, nil
}

func (b *bucket) open(ctx context.Context, p string) (ReaderAt, error) {
	f, err := b.stat(ctx, p)
	if err != nil {
		return nil, err
	}
	key, _ := b.key(p)
	return &object{ctx: ctx, b: b, p: p, key: key, size: f.Size}, nil
}

// create uploads to the key; the object appears when the upload completes
// (Commit), and an aborted upload leaves nothing.
func (b *bucket) create(ctx context.Context, p string, overwrite bool) (*Writer, error) {
	key, err := b.key(p)
	if err != nil {
		return nil, err
	}
	if !overwrite {
		ok, err := b.b.Exists(ctx, key)
		if err != nil {
			return nil, b.err("write", p, err)
		}
		if ok {
			return nil, fmt.Errorf("%w (pass overwrite to replace it)", ErrExist)
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	w, err := b.b.NewWriter(wctx, key, &blob.WriterOptions{ContentType: "application/octet-stream"})
	if err != nil {
		cancel()
		return nil, b.err("write", p, err)
	}
	abort := func() {
		cancel() // a cancelled context makes Close discard the upload
		w.Close()
	}
	commit := func() error {
		defer cancel()
		if err := w.Close(); err != nil {
			return b.err("write", p, err)
		}
		return nil
	}
	return &Writer{w: w, commit: commit, abort: abort}, nil
}

func (b *bucket) remove(ctx context.Context, p string) error {
	key, err := b.key(p)
	if err != nil {
		return err
	}
	if err := b.b.Delete(ctx, key); err != nil {
		return b.err("remove", p, err)
	}
	return nil
}
