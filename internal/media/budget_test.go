package media_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/folio-server/folio/internal/media"
)

// pngChunk encodes one PNG chunk with its checksum.
func pngChunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}

// pngHeader returns a PNG that declares w×h pixels of the given bit depth,
// colour type and interlace method (with a palette for colour type 3 and
// a tRNS chunk when asked) and holds a few bytes of image data: enough for
// the header checks, which never decode it.
func pngHeader(w, h uint32, depth, ctype, interlace byte, trns bool) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, depth, ctype, 0, 0, interlace)
	out := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
	if ctype == 3 {
		out = append(out, pngChunk("PLTE", []byte{0, 0, 0, 255, 255, 255})...)
	}
	if trns {
		out = append(out, pngChunk("tRNS", []byte{0, 0})...)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(make([]byte, 64))
	_ = zw.Close()
	out = append(out, pngChunk("IDAT", z.Bytes())...)
	return append(out, pngChunk("IEND", nil)...)
}

func costOf(t *testing.T, data []byte) int64 {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return media.DecodeCost(bytes.NewReader(data), int64(len(data)), cfg, format)
}

// progressive turns a baseline JPEG's SOF0 marker into SOF2, which is all
// the header checks look at.
func progressive(t *testing.T, jpg []byte) []byte {
	out := bytes.Clone(jpg)
	i := bytes.Index(out, []byte{0xFF, 0xC0})
	if i < 0 {
		t.Fatal("no SOF0")
	}
	out[i+1] = 0xC2
	return out
}

func TestDecodeCostCountsBytesPerPixelNotPixels(t *testing.T) {
	const mp = 1000 * 1000
	const over = 16 << 20 // processing overhead
	var grey bytes.Buffer
	if err := jpeg.Encode(&grey, image.NewGray(image.Rect(0, 0, 200, 200)), nil); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		what string
		data []byte
		want int64
	}{
		{"png 16-bit RGBA", pngHeader(1000, 1000, 16, 6, 0, false), 8*mp + over},
		{"png 16-bit RGB", pngHeader(1000, 1000, 16, 2, 0, false), 8*mp + over},
		{"png 8-bit RGBA", pngHeader(1000, 1000, 8, 6, 0, false), 4*mp + over},
		{"png 8-bit grey", pngHeader(1000, 1000, 8, 0, 0, false), 1*mp + over},
		{"png 8-bit grey with tRNS", pngHeader(1000, 1000, 8, 0, 0, true), 4*mp + over},
		{"png 16-bit grey", pngHeader(1000, 1000, 16, 0, 0, false), 2*mp + over},
		{"png paletted", pngHeader(1000, 1000, 8, 3, 0, false), 1*mp + over},
		{"png interlaced 8-bit RGBA", pngHeader(1000, 1000, 8, 6, 1, false), 6*mp + over},
		// 4:2:0: a full luma plane and two quarter chroma planes, padded
		// to 16-pixel MCUs (208×208).
		{"jpeg 4:2:0", jpegBytes(t, 200, 200), 208*208*3/2 + over},
		{"jpeg progressive 4:2:0", progressive(t, jpegBytes(t, 200, 200)), 208*208*3/2*5 + over},
		{"jpeg grey", grey.Bytes(), 200*200 + over},
		{"gif", gifBytes(t, 100, 100), 100*100 + over},
		{"webp lossless", webpLossless, 8 + over},
		{"webp lossy", webpLossy, 2 + over},
	}
	for _, tc := range cases {
		if got := costOf(t, tc.data); got != tc.want {
			t.Errorf("%s: cost %d, want %d", tc.what, got, tc.want)
		}
	}
}

func TestProcessRefusesImagesOverTheMemoryBudget(t *testing.T) {
	p := media.NewProcessor(media.ProcessorConfig{MaxPixels: 50_000_000, Workers: 2, MemoryBudget: 18 << 20})
	// The attack image: a 16-bit 7000×7000 PNG passes the pixel limit
	// but would decode to 392 MB. It is refused from its header.
	bomb := pngHeader(7000, 7000, 16, 2, 0, false)
	start := time.Now()
	_, err := p.ProcessFile(context.Background(), bytes.NewReader(bomb), int64(len(bomb)), "image/png")
	if !errors.Is(err, media.ErrOverBudget) {
		t.Fatalf("16-bit 7000x7000: err = %v, want ErrOverBudget", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusing took %s: it was decoded", d)
	}
	// Same pixel count, different bytes per pixel (with the 16 MiB for the
	// sizes): 800×800 16-bit RGBA (5.1 MB) is refused, 8-bit grey
	// (0.6 MB) is processed.
	wide := pngHeader(800, 800, 16, 6, 0, false)
	if _, err := p.ProcessFile(context.Background(), bytes.NewReader(wide), int64(len(wide)), "image/png"); !errors.Is(err, media.ErrOverBudget) {
		t.Fatalf("16-bit 800x800: err = %v, want ErrOverBudget", err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 800, 800))); err != nil {
		t.Fatal(err)
	}
	info, err := p.ProcessFile(context.Background(), bytes.NewReader(b.Bytes()), int64(b.Len()), "image/png")
	if err != nil || info.Width != 800 || len(info.Sizes) != 3 {
		t.Fatalf("8-bit grey 800x800: %v", err)
	}
}

// noisePNG is a w×h PNG of random pixels: it does not compress, so it is
// larger than the 4096 bytes the header checks read.
func noisePNG(t *testing.T, w, h int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gatedReader serves data, but a read past the first 4096 bytes (the
// decoder's, not the header checks') waits for open to be closed; hit is
// closed at the first such read.
type gatedReader struct {
	data []byte
	open chan struct{}
	hit  chan struct{}
	once sync.Once
}

func newGated(data []byte) *gatedReader {
	return &gatedReader{data: data, open: make(chan struct{}), hit: make(chan struct{})}
}

func (g *gatedReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > 4096 {
		g.once.Do(func() { close(g.hit) })
		select {
		case <-g.open:
		case <-time.After(10 * time.Second):
		}
	}
	return bytes.NewReader(g.data).ReadAt(p, off)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestProcessFileQueueIsBounded(t *testing.T) {
	p := media.NewProcessor(media.ProcessorConfig{MaxPixels: 50_000_000, Workers: 1, Queue: 1})
	data := noisePNG(t, 300, 200)
	ctx := context.Background()
	first := newGated(data)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); _, errs[0] = p.ProcessFile(ctx, first, int64(len(data)), "image/png") }()
	<-first.hit // the only worker is busy
	go func() {
		defer wg.Done()
		_, errs[1] = p.ProcessFile(ctx, bytes.NewReader(data), int64(len(data)), "image/png")
	}()
	waitFor(t, "the second upload to queue", func() bool { return p.Pending() == 2 })
	// Worker and queue are full: the next upload is refused at once.
	if _, err := p.ProcessFile(ctx, bytes.NewReader(data), int64(len(data)), "image/png"); !errors.Is(err, media.ErrBusy) {
		t.Fatalf("third upload: err = %v, want ErrBusy", err)
	}
	// Process (not an upload) waits instead of being refused.
	waitCtx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := p.Process(waitCtx, data, "image/png"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Process while busy: err = %v, want it to wait", err)
	}
	close(first.open)
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("queued uploads: %v", errs)
	}
	if p.Pending() != 0 {
		t.Fatalf("pending = %d after all finished", p.Pending())
	}
	if _, err := p.ProcessFile(ctx, bytes.NewReader(data), int64(len(data)), "image/png"); err != nil {
		t.Fatalf("after the queue drained: %v", err)
	}
}

func TestProcessBudgetKeepsLargeImagesApart(t *testing.T) {
	// Two workers, but a budget that holds one of these images at a time.
	data := noisePNG(t, 200, 200)
	cost := costOf(t, data)
	p := media.NewProcessor(media.ProcessorConfig{Workers: 2, Queue: 4, MemoryBudget: cost + cost/2})
	ctx := context.Background()
	first, second := newGated(data), newGated(data)
	close(second.open)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = p.ProcessFile(ctx, first, int64(len(data)), "image/png") }()
	<-first.hit
	go func() { defer wg.Done(); _, _ = p.ProcessFile(ctx, second, int64(len(data)), "image/png") }()
	waitFor(t, "the second upload to queue", func() bool { return p.Pending() == 2 })
	select {
	case <-second.hit:
		t.Fatal("the second image was decoded while the first held the budget")
	case <-time.After(100 * time.Millisecond):
	}
	close(first.open)
	select {
	case <-second.hit:
	case <-time.After(5 * time.Second):
		t.Fatal("the second image never got the budget")
	}
	wg.Wait()
}

func TestScaleMatchesCatmullRom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := image.NewNRGBA(image.Rect(0, 0, 640, 480))
	for y := 0; y < 480; y++ {
		for x := 0; x < 640; x++ {
			// Smooth gradients with some noise and a translucent band.
			a := uint8(255)
			if y > 200 && y < 260 {
				a = 128
			}
			src.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / 640), uint8(y * 255 / 480), uint8(rng.IntN(32) + 100), a})
		}
	}
	for _, sr := range []image.Rectangle{src.Bounds(), image.Rect(80, 0, 560, 480)} {
		for _, size := range [][2]int{{150, 150}, {300, 225}, {620, 470}} {
			want := image.NewRGBA(image.Rect(0, 0, size[0], size[1]))
			draw.CatmullRom.Scale(want, want.Bounds(), src, sr, draw.Src, nil)
			got := image.NewRGBA(want.Bounds())
			media.Scale(got, src, sr)
			// Edge pixels differ in how taps past the border count; the
			// inside must agree to rounding.
			worst := 0
			for y := 2; y < size[1]-2; y++ {
				for x := 2; x < size[0]-2; x++ {
					i := want.PixOffset(x, y)
					for c := 0; c < 4; c++ {
						worst = max(worst, abs(int(want.Pix[i+c])-int(got.Pix[i+c])))
					}
				}
			}
			if worst > 2 {
				t.Errorf("%v -> %v: channels differ by up to %d from x/image/draw's Catmull-Rom", sr, size, worst)
			}
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestScaleStreamsOverSourceRows(t *testing.T) {
	// A tall source: x/image/draw would keep dw×sh float64×4 (256 × 20000
	// × 32 bytes = 164 MB); Scale keeps the rows one output row spans.
	src := image.NewGray(image.Rect(0, 0, 512, 20000))
	dst := image.NewRGBA(image.Rect(0, 0, 256, 250))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	media.Scale(dst, src, src.Bounds())
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Fatalf("Scale allocated %d bytes for a 512x20000 source", got)
	}
}
