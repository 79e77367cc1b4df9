package media

import (
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

	"github.com/HugoSmits86/nativewebp"
	"github.com/rwcarlsen/goexif/exif"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers the WebP decoder
)

// ErrTooManyPixels is returned for images above the pixel limit
// (decompression bombs).
var ErrTooManyPixels = errors.New("media: image has too many pixels")

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

// Processor decodes images and generates their sizes. A semaphore bounds
// how many images are worked on at once, so a burst of uploads cannot
// exhaust memory, and a pixel limit checked from the header before decoding
// refuses decompression bombs.
type Processor struct {
	sem       chan struct{}
	maxPixels int64
	sizes     []SizeSpec
}

// NewProcessor returns a processor running at most workers images at once
// and refusing images of more than maxPixels pixels.
func NewProcessor(maxPixels int64, workers int) *Processor {
	if workers < 1 {
		workers = 1
	}
	return &Processor{sem: make(chan struct{}, workers), maxPixels: maxPixels, sizes: DefaultSizes}
}

// IsImage reports whether mt is a type the processor handles.
func IsImage(mt string) bool {
	switch mt {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

// ProcessFile is Process for the size bytes of r (an upload's temporary
// file). Once it has a worker slot it checks the image's dimensions
// against the pixel limit from its header, and reads the file into memory
// only when they pass, so that at most one image per worker is in memory.
func (p *Processor) ProcessFile(ctx context.Context, r io.ReaderAt, size int64, mt string) (*ImageInfo, error) {
	if err := p.acquire(ctx); err != nil {
		return nil, err
	}
	defer p.release()
	cfg, _, err := image.DecodeConfig(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadImage, err)
	}
	if p.maxPixels > 0 && int64(cfg.Width)*int64(cfg.Height) > p.maxPixels {
		return nil, fmt.Errorf("%w: %dx%d is more than %d pixels", ErrTooManyPixels, cfg.Width, cfg.Height, p.maxPixels)
	}
	data := make([]byte, size)
	if n, err := r.ReadAt(data, 0); n < len(data) {
		return nil, fmt.Errorf("media: read image: %w", err)
	}
	return p.process(ctx, data, mt)
}

// acquire waits for a free worker slot or ctx's end.
func (p *Processor) acquire(ctx context.Context) error {
	select {
	case p.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Processor) release() { <-p.sem }

// Process decodes data (of type mt, see IsImage), reads its metadata and
// makes its sizes. It waits for a free worker slot or ctx's end.
func (p *Processor) Process(ctx context.Context, data []byte, mt string) (*ImageInfo, error) {
	if err := p.acquire(ctx); err != nil {
		return nil, err
	}
	defer p.release()
	return p.process(ctx, data, mt)
}

// process is Process once a worker slot is held.
func (p *Processor) process(ctx context.Context, data []byte, mt string) (*ImageInfo, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, ErrBadImage
	}
	if p.maxPixels > 0 && int64(cfg.Width)*int64(cfg.Height) > p.maxPixels {
		return nil, fmt.Errorf("%w: %dx%d is more than %d pixels", ErrTooManyPixels, cfg.Width, cfg.Height, p.maxPixels)
	}
	info := &ImageInfo{Meta: ImageMeta{Aperture: "0", CreatedTimestamp: "0", FocalLength: "0", ISO: "0", ShutterSpeed: "0", Orientation: "0", Keywords: []string{}}}
	orientation := 1
	if mt == "image/jpeg" {
		if x, err := exif.Decode(bytes.NewReader(data)); err == nil {
			orientation = readExif(x, &info.Meta)
		}
		if x, ok := ReadIPTC(data); ok {
			applyIPTC(x, &info.Meta)
		}
	}
	img, _, err := image.Decode(bytes.NewReader(data))
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
		draw.CatmullRom.Scale(scaled, scaled.Bounds(), img, rawSrc, draw.Src, nil)
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
