package media

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/HugoSmits86/nativewebp"
	"github.com/rwcarlsen/goexif/exif"
	_ "golang.org/x/image/webp" // registers the WebP decoder
	"golang.org/x/sync/semaphore"
)

// ErrTooManyPixels is returned for images above the pixel limit
// (decompression bombs).
var ErrTooManyPixels = errors.New("media: image has too many pixels")

// ErrOverBudget is returned for an image whose decoding would take more
// memory than the whole image memory budget.
var ErrOverBudget = errors.New("media: image needs more memory to decode than the site allows")

// ErrBusy is returned when the image queue is full: as many uploads as
// there are workers are being processed and as many as the queue holds are
// waiting.
var ErrBusy = errors.New("media: too many images waiting to be processed")

// ErrBadImage is returned when an image's content cannot be decoded.
var ErrBadImage = errors.New("media: image cannot be decoded")

// SizeSpec is one generated image size: a bounding box (0 = unbounded in
// that direction) and whether the image is cropped to fill it.
type SizeSpec struct {
	Name string
	W, H int
	Crop bool
}

// DefaultSizes are the original's default sizes, in its order.
var DefaultSizes = []SizeSpec{
	{Name: "thumbnail", W: 150, H: 150, Crop: true},
	{Name: "medium", W: 300, H: 300},
	{Name: "medium_large", W: 768},
	{Name: "large", W: 1024, H: 1024},
}

// Rendition is one generated size of an image.
type Rendition struct {
	Name          string
	Width, Height int
	Mime, Ext     string
	Data          []byte
}

// ImageMeta is the image_meta of media_details: what the file's EXIF and
// IPTC records say (IPTC taking precedence, as in the original).
// Values are strings as the original outputs them.
type ImageMeta struct {
	Aperture         string   `json:"aperture"`
	Credit           string   `json:"credit"`
	Camera           string   `json:"camera"`
	Caption          string   `json:"caption"`
	CreatedTimestamp string   `json:"created_timestamp"`
	Copyright        string   `json:"copyright"`
	FocalLength      string   `json:"focal_length"`
	ISO              string   `json:"iso"`
	ShutterSpeed     string   `json:"shutter_speed"`
	Title            string   `json:"title"`
	Orientation      string   `json:"orientation"`
	Keywords         []string `json:"keywords"`
}

// ImageInfo is what processing an image found and made.
type ImageInfo struct {
	// Width and Height are the displayed dimensions (after the EXIF
	// orientation).
	Width, Height int
	Meta          ImageMeta
	Sizes         []Rendition
}

// ProcessorConfig bounds the image work of a Processor.
type ProcessorConfig struct {
	// MaxPixels refuses images with more pixels (0: no limit).
	MaxPixels int64
	// Workers is how many images are decoded and resized at once (at
	// least 1).
	Workers int
	// MemoryBudget is how many bytes the images being worked on may take
	// together by their estimate (see DecodeCost); an image needing more
	// than the whole budget is refused with ErrOverBudget, others wait
	// until enough of it is free. 0 means no budget.
	MemoryBudget int64
	// Queue is how many uploads (ProcessFile) may wait for a worker or
	// for budget; one more is refused with ErrBusy.
	Queue int
}

// Processor decodes images and generates their sizes. Its work is bounded
// three ways: a pixel limit and a memory estimate checked from the image's
// header before anything is decoded (decompression bombs, 16-bit images
// that would decode to hundreds of megabytes), a pool of workers sharing a
// memory budget, and a bounded queue of uploads waiting for them.
type Processor struct {
	workers   chan struct{}
	budget    *semaphore.Weighted
	limit     int64
	maxPixels int64
	// admitted counts uploads waiting or being worked on; maxAdmitted is
	// Workers + Queue.
	admitted    atomic.Int64
	maxAdmitted int64
	sizes       []SizeSpec
}

// NewProcessor returns a processor bounded by c.
func NewProcessor(c ProcessorConfig) *Processor {
	c.Workers = max(c.Workers, 1)
	c.Queue = max(c.Queue, 0)
	p := &Processor{workers: make(chan struct{}, c.Workers), maxPixels: c.MaxPixels, limit: c.MemoryBudget,
		maxAdmitted: int64(c.Workers + c.Queue), sizes: DefaultSizes}
	if c.MemoryBudget > 0 {
		p.budget = semaphore.NewWeighted(c.MemoryBudget)
	}
	return p
}

// Pending returns how many uploads (ProcessFile calls) are waiting for a
// worker or being processed.
func (p *Processor) Pending() int { return int(p.admitted.Load()) }

// IsImage reports whether mt is a type the processor handles.
func IsImage(mt string) bool {
	switch mt {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

// metaHeadSize bounds the leading bytes of a JPEG read for its EXIF and
// IPTC records (which come before the image data).
const metaHeadSize = 1 << 20

// ProcessFile is Process for the size bytes of r (an upload's temporary
// file), with admission control: the image's dimensions and decoding cost
// are read from its header first (refusing it with ErrTooManyPixels or
// ErrOverBudget), then it takes a place in the queue (ErrBusy when the
// queue is full), waits for a worker and its share of the memory budget
// (or ctx's end), and is decoded straight from r: the file is never read
// into memory whole.
func (p *Processor) ProcessFile(ctx context.Context, r io.ReaderAt, size int64, mt string) (*ImageInfo, error) {
	cost, err := p.admit(r, size)
	if err != nil {
		return nil, err
	}
	if p.admitted.Add(1) > p.maxAdmitted {
		p.admitted.Add(-1)
		return nil, ErrBusy
	}
	defer p.admitted.Add(-1)
	release, err := p.acquire(ctx, cost)
	if err != nil {
		return nil, err
	}
	defer release()
	return p.process(ctx, r, size, mt)
}

// Process decodes data (of type mt, see IsImage), reads its metadata and
// makes its sizes. It applies the limits of ProcessFile but, not being an
// upload, is never refused for a full queue: it waits for a worker and
// budget or ctx's end.
func (p *Processor) Process(ctx context.Context, data []byte, mt string) (*ImageInfo, error) {
	r := bytes.NewReader(data)
	cost, err := p.admit(r, int64(len(data)))
	if err != nil {
		return nil, err
	}
	release, err := p.acquire(ctx, cost)
	if err != nil {
		return nil, err
	}
	defer release()
	return p.process(ctx, r, int64(len(data)), mt)
}

// admit reads the image's header and returns its estimated decoding cost,
// or why it is refused.
func (p *Processor) admit(r io.ReaderAt, size int64) (int64, error) {
	cfg, format, err := image.DecodeConfig(bufio.NewReader(io.NewSectionReader(r, 0, size)))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBadImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, ErrBadImage
	}
	if p.maxPixels > 0 && int64(cfg.Width)*int64(cfg.Height) > p.maxPixels {
		return 0, fmt.Errorf("%w: %dx%d is more than %d pixels", ErrTooManyPixels, cfg.Width, cfg.Height, p.maxPixels)
	}
	cost := DecodeCost(r, size, cfg, format)
	if p.limit > 0 && cost > p.limit {
		return 0, fmt.Errorf("%w: %dx%d needs about %d MiB, the budget is %d MiB", ErrOverBudget, cfg.Width, cfg.Height, cost>>20, p.limit>>20)
	}
	return cost, nil
}

// acquire waits for a worker and cost bytes of the budget, or ctx's end;
// release gives both back.
func (p *Processor) acquire(ctx context.Context, cost int64) (release func(), err error) {
	select {
	case p.workers <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.budget != nil {
		if err := p.budget.Acquire(ctx, cost); err != nil {
			<-p.workers
			return nil, err
		}
	}
	return func() {
		if p.budget != nil {
			p.budget.Release(cost)
		}
		<-p.workers
	}, nil
}

// process decodes the size bytes of r once a worker and budget are held.
func (p *Processor) process(ctx context.Context, r io.ReaderAt, size int64, mt string) (*ImageInfo, error) {
	info := &ImageInfo{Meta: ImageMeta{Aperture: "0", CreatedTimestamp: "0", FocalLength: "0", ISO: "0", ShutterSpeed: "0", Orientation: "0", Keywords: []string{}}}
	orientation := 1
	if mt == "image/jpeg" {
		head := make([]byte, min(size, metaHeadSize))
		n, _ := r.ReadAt(head, 0)
		head = head[:n]
		if x, err := exif.Decode(bytes.NewReader(head)); err == nil {
			orientation = readExif(x, &info.Meta)
		}
		if x, ok := ReadIPTC(head); ok {
			applyIPTC(x, &info.Meta)
		}
	}
	img, _, err := image.Decode(bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadImage, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Sizes are scaled from the stored pixels and then turned, which is far
	// cheaper than turning the whole original first.
	b := img.Bounds()
	info.Width, info.Height = b.Dx(), b.Dy()
	turned := orientation >= 5
	if turned {
		info.Width, info.Height = b.Dy(), b.Dx()
	}

	outMime, outExt := mt, ""
	switch mt {
	case "image/jpeg":
		outExt = "jpg"
	case "image/png":
		outExt = "png"
	case "image/gif":
		outExt = "gif"
	case "image/webp":
		// Sizes stay WebP, encoded lossless by a pure-Go encoder.
		outExt = "webp"
	}
	made := map[[2]int]*Rendition{}
	for _, s := range p.sizes {
		w, h, src, ok := resizeDims(info.Width, info.Height, s)
		if !ok {
			continue
		}
		if prev, ok := made[[2]int{w, h}]; ok {
			r := *prev
			r.Name = s.Name
			info.Sizes = append(info.Sizes, r)
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rw, rh, cw, ch := w, h, src.Dx(), src.Dy()
		if turned {
			rw, rh, cw, ch = h, w, ch, cw
		}
		// src is centred (the whole image or a centre crop), so it maps to
		// the centred rectangle of the same size in stored coordinates.
		sx, sy := (b.Dx()-cw)/2, (b.Dy()-ch)/2
		rawSrc := image.Rect(sx, sy, sx+cw, sy+ch).Add(b.Min)
		scaled := image.NewRGBA(image.Rect(0, 0, rw, rh))
		Scale(scaled, img, rawSrc)
		enc, err := encode(orient(scaled, orientation), outMime)
		if err != nil {
			return nil, fmt.Errorf("media: encode %s size: %w", s.Name, err)
		}
		r := Rendition{Name: s.Name, Width: w, Height: h, Mime: outMime, Ext: outExt, Data: enc}
		made[[2]int{w, h}] = &r
		info.Sizes = append(info.Sizes, r)
	}
	return info, nil
}

// resizeDims computes a size's dimensions and source rectangle the way
// the original does (image_resize_dimensions): never larger than the
// original; a crop takes the centre; ok is false when the size would not
// differ from the original.
func resizeDims(ow, oh int, s SizeSpec) (w, h int, src image.Rectangle, ok bool) {
	full := image.Rect(0, 0, ow, oh)
	if s.Crop {
		w, h = min(s.W, ow), min(s.H, oh)
		if w == ow && h == oh {
			return 0, 0, full, false
		}
		ratio := math.Max(float64(w)/float64(ow), float64(h)/float64(oh))
		cw := int(math.Round(float64(w) / ratio))
		ch := int(math.Round(float64(h) / ratio))
		sx := (ow - cw) / 2
		sy := (oh - ch) / 2
		return w, h, image.Rect(sx, sy, sx+cw, sy+ch), true
	}
	w, h = constrain(ow, oh, s.W, s.H)
	if w == ow && h == oh {
		return 0, 0, full, false
	}
	return w, h, full, true
}

// constrain scales (ow, oh) down to fit in (maxW, maxH), 0 meaning no
// bound, as wp_constrain_dimensions does.
func constrain(ow, oh, maxW, maxH int) (int, int) {
	if maxW == 0 && maxH == 0 {
		return ow, oh
	}
	wr, hr := 1.0, 1.0
	if maxW > 0 && ow > maxW {
		wr = float64(maxW) / float64(ow)
	}
	if maxH > 0 && oh > maxH {
		hr = float64(maxH) / float64(oh)
	}
	ratio := math.Min(wr, hr)
	w := int(math.Max(1, math.Round(float64(ow)*ratio)))
	h := int(math.Max(1, math.Round(float64(oh)*ratio)))
	if maxW > 0 && w > maxW {
		w = maxW
	}
	if maxH > 0 && h > maxH {
		h = maxH
	}
	return w, h
}

func encode(img image.Image, mt string) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch mt {
	case "image/jpeg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 82})
	case "image/png":
		err = (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&buf, img)
	case "image/gif":
		err = gif.Encode(&buf, img, nil)
	case "image/webp":
		err = nativewebp.Encode(&buf, img, nil)
	default:
		err = fmt.Errorf("no encoder for %s", mt)
	}
	return buf.Bytes(), err
}

// orient applies an EXIF orientation (1-8) to img (a generated size, so
// the per-pixel copy stays small).
func orient(img image.Image, o int) image.Image {
	if o < 2 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var dx, dy int
			switch o {
			case 2:
				dx, dy = w-1-x, y
			case 3:
				dx, dy = w-1-x, h-1-y
			case 4:
				dx, dy = x, h-1-y
			case 5:
				dx, dy = y, x
			case 6:
				dx, dy = h-1-y, x
			case 7:
				dx, dy = h-1-y, w-1-x
			case 8:
				dx, dy = y, w-1-x
			}
			dst.Set(dx, dy, color.RGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)))
		}
	}
	return dst
}

// readExif fills m from x and returns the orientation (1 when unknown).
func readExif(x *exif.Exif, m *ImageMeta) int {
	str := func(f exif.FieldName) string {
		t, err := x.Get(f)
		if err != nil {
			return ""
		}
		s, err := t.StringVal()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(strings.TrimRight(s, "\x00"))
	}
	num := func(f exif.FieldName) (float64, bool) {
		t, err := x.Get(f)
		if err != nil {
			return 0, false
		}
		if r, err := t.Rat(0); err == nil {
			v, _ := r.Float64()
			return v, true
		}
		if n, err := t.Int(0); err == nil {
			return float64(n), true
		}
		return 0, false
	}
	fmtNum := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	if v, ok := num(exif.FNumber); ok {
		m.Aperture = fmtNum(math.Round(v*100) / 100)
	}
	m.Credit = str(exif.Artist)
	m.Camera = str(exif.Model)
	if d := str(exif.ImageDescription); d != "" {
		// As the original: a short single-line description is the title,
		// a longer one the caption.
		if len(d) < 80 && !strings.ContainsAny(d, "\r\n") {
			m.Title = d
		} else {
			m.Caption = d
		}
	}
	if t, err := x.DateTime(); err == nil {
		m.CreatedTimestamp = strconv.FormatInt(t.Unix(), 10)
	}
	m.Copyright = str(exif.Copyright)
	if v, ok := num(exif.FocalLength); ok {
		m.FocalLength = fmtNum(v)
	}
	if v, ok := num(exif.ISOSpeedRatings); ok {
		m.ISO = fmtNum(v)
	}
	if v, ok := num(exif.ExposureTime); ok {
		m.ShutterSpeed = fmtNum(v)
	}
	o := 1
	if v, ok := num(exif.Orientation); ok && v >= 1 && v <= 8 {
		o = int(v)
		m.Orientation = strconv.Itoa(o)
	}
	return o
}
