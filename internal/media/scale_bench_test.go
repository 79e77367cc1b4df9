package media_test

import (
	"image"
	"testing"

	"golang.org/x/image/draw"

	"github.com/folio-server/folio/internal/media"
)

// The Scale benchmarks shrink a 4000×4000 image to the large (1024) and
// thumbnail (150) sizes with Scale and, for comparison, with
// x/image/draw's Catmull-Rom.
func benchScale(b *testing.B, size int, scale func(dst *image.RGBA, src image.Image)) {
	src := image.NewRGBA(image.Rect(0, 0, 4000, 4000))
	dst := image.NewRGBA(image.Rect(0, 0, size, size))
	b.ReportAllocs()
	for b.Loop() {
		scale(dst, src)
	}
}

func ours(dst *image.RGBA, src image.Image) { media.Scale(dst, src, src.Bounds()) }

func xdraw(dst *image.RGBA, src image.Image) {
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
}

func BenchmarkScaleLarge(b *testing.B)          { benchScale(b, 1024, ours) }
func BenchmarkScaleLargeXDraw(b *testing.B)     { benchScale(b, 1024, xdraw) }
func BenchmarkScaleThumbnail(b *testing.B)      { benchScale(b, 150, ours) }
func BenchmarkScaleThumbnailXDraw(b *testing.B) { benchScale(b, 150, xdraw) }
