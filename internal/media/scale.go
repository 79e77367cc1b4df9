package media

import (
	"image"
	"image/color"
	"math"
)

// Scale resamples the rectangle sr of src into the whole of dst with the
// Catmull-Rom cubic (the kernel of golang.org/x/image/draw.CatmullRom),
// widened by the reduction factor when shrinking so that every source
// pixel counts. A source more than twice the destination's size is first
// box-averaged by a whole factor down to between two and four times it
// (as image libraries' shrink-then-reduce does): every source pixel is
// read once and the cubic works on the small image, several times faster
// than filtering the whole source with a wide kernel and just as smooth.
//
// It works separably and streams over the source rows: each (averaged)
// row is resampled horizontally once and kept in a ring of as many rows as
// one destination row's kernel spans, so its memory is a few rows of the
// destination's width whatever the source's size (x/image/draw keeps a
// float64 buffer of the destination's width times the source's height,
// over 200 MiB for a 7000-pixel-high image).
func Scale(dst *image.RGBA, src image.Image, sr image.Rectangle) {
	sr = sr.Intersect(src.Bounds())
	db := dst.Bounds()
	dw, dh, sw, sh := db.Dx(), db.Dy(), sr.Dx(), sr.Dy()
	if dw <= 0 || dh <= 0 || sw <= 0 || sh <= 0 {
		return
	}
	kx, ky := max(sw/(2*dw), 1), max(sh/(2*dh), 1)
	rw, rh := (sw+kx-1)/kx, (sh+ky-1)/ky // the box-averaged size
	hw, vw := kernelWeights(dw, rw), kernelWeights(dh, rh)
	span := 1
	for _, c := range vw {
		span = max(span, len(c.w))
	}
	ring := make([][]float32, span)
	for i := range ring {
		ring[i] = make([]float32, dw*4)
	}
	line := make([]float32, sw*4)
	box := line
	if kx > 1 || ky > 1 {
		box = make([]float32, rw*4)
	}
	pal := paletteOf(src)
	// readBox fills box with row r of the box-averaged source.
	readBox := func(r int) {
		if kx == 1 && ky == 1 {
			readRow(src, pal, sr.Min.Y+r, sr.Min.X, sr.Max.X, line)
			return
		}
		clear(box)
		y0, y1 := r*ky, min((r+1)*ky, sh)
		for y := y0; y < y1; y++ {
			readRow(src, pal, sr.Min.Y+y, sr.Min.X, sr.Max.X, line)
			for j := 0; j < rw; j++ {
				b := box[j*4 : j*4+4]
				for x := j * kx; x < min((j+1)*kx, sw); x++ {
					p := line[x*4 : x*4+4]
					b[0] += p[0]
					b[1] += p[1]
					b[2] += p[2]
					b[3] += p[3]
				}
			}
		}
		rows := float32(y1 - y0)
		for j := 0; j < rw; j++ {
			n := rows * float32(min((j+1)*kx, sw)-j*kx)
			b := box[j*4 : j*4+4]
			b[0] /= n
			b[1] /= n
			b[2] /= n
			b[3] /= n
		}
	}
	next := 0 // the next averaged row to resample horizontally
	for dy := 0; dy < dh; dy++ {
		c := vw[dy]
		for last := c.first + len(c.w) - 1; next <= last; next++ {
			readBox(next)
			out := ring[next%span]
			for dx, hc := range hw {
				var r, g, b, a float32
				for k, w := range hc.w {
					p := box[(hc.first+k)*4:]
					r += w * p[0]
					g += w * p[1]
					b += w * p[2]
					a += w * p[3]
				}
				o := out[dx*4:]
				o[0], o[1], o[2], o[3] = r, g, b, a
			}
		}
		pix := dst.Pix[dst.PixOffset(db.Min.X, db.Min.Y+dy):]
		for dx := 0; dx < dw; dx++ {
			var r, g, b, a float32
			for k, w := range c.w {
				p := ring[(c.first+k)%span][dx*4:]
				r += w * p[0]
				g += w * p[1]
				b += w * p[2]
				a += w * p[3]
			}
			av := clamp8(a)
			pix[dx*4+0] = min(clamp8(r), av)
			pix[dx*4+1] = min(clamp8(g), av)
			pix[dx*4+2] = min(clamp8(b), av)
			pix[dx*4+3] = av
		}
	}
}

// clamp8 turns a 16-bit channel value into 8 bits, rounded and clamped.
func clamp8(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 65535:
		return 255
	}
	return uint8((v + 128.5) / 257)
}

// kernelSpan holds the weights of one destination pixel: source pixels
// first, first+1, ... get w[0], w[1], ...
type kernelSpan struct {
	first int
	w     []float32
}

// catmullRom is the Catmull-Rom cubic (B = 0, C = 0.5), with support 2.
func catmullRom(t float64) float64 {
	t = math.Abs(t)
	switch {
	case t < 1:
		return (1.5*t-2.5)*t*t + 1
	case t < 2:
		return ((-0.5*t+2.5)*t-4)*t + 2
	}
	return 0
}

// kernelWeights returns the normalised weights mapping sn source pixels
// onto dn destination pixels. Taps past either edge fold onto the edge
// pixel.
func kernelWeights(dn, sn int) []kernelSpan {
	scale := float64(sn) / float64(dn)
	widen := math.Max(scale, 1)
	radius := 2 * widen
	out := make([]kernelSpan, dn)
	for i := range out {
		center := (float64(i)+0.5)*scale - 0.5
		lo := int(math.Floor(center - radius))
		hi := int(math.Ceil(center + radius))
		first, last := max(lo, 0), min(hi, sn-1)
		if first > last {
			first, last = min(max(int(center), 0), sn-1), min(max(int(center), 0), sn-1)
		}
		w := make([]float32, last-first+1)
		var sum float64
		for j := lo; j <= hi; j++ {
			k := catmullRom((float64(j) - center) / widen)
			if k == 0 {
				continue
			}
			jj := min(max(j, first), last)
			w[jj-first] += float32(k)
			sum += k
		}
		if sum == 0 {
			w[min(max(int(math.Round(center)), first), last)-first] = 1
		} else {
			for k := range w {
				w[k] = float32(float64(w[k]) / sum)
			}
		}
		out[i] = kernelSpan{first: first, w: w}
	}
	return out
}

// paletteOf returns the premultiplied 16-bit colours of a paletted image's
// palette, nil for other images.
func paletteOf(src image.Image) [][4]float32 {
	p, ok := src.(*image.Paletted)
	if !ok {
		return nil
	}
	out := make([][4]float32, 256)
	for i, c := range p.Palette {
		r, g, b, a := c.RGBA()
		out[i] = [4]float32{float32(r), float32(g), float32(b), float32(a)}
	}
	return out
}

// readRow writes the premultiplied 16-bit RGBA values of the pixels
// x0..x1-1 of row y of src into line, with fast paths for the image types
// the decoders make.
func readRow(src image.Image, pal [][4]float32, y, x0, x1 int, line []float32) {
	switch s := src.(type) {
	case *image.YCbCr:
		for x := x0; x < x1; x++ {
			yi, ci := s.YOffset(x, y), s.COffset(x, y)
			r, g, b := color.YCbCrToRGB(s.Y[yi], s.Cb[ci], s.Cr[ci])
			o := line[(x-x0)*4:]
			o[0], o[1], o[2], o[3] = float32(r)*257, float32(g)*257, float32(b)*257, 65535
		}
	case *image.RGBA:
		pix := s.Pix[s.PixOffset(x0, y):]
		for i := 0; i < x1-x0; i++ {
			o, p := line[i*4:], pix[i*4:]
			o[0], o[1], o[2], o[3] = float32(p[0])*257, float32(p[1])*257, float32(p[2])*257, float32(p[3])*257
		}
	case *image.NRGBA:
		pix := s.Pix[s.PixOffset(x0, y):]
		for i := 0; i < x1-x0; i++ {
			o, p := line[i*4:], pix[i*4:]
			a := float32(p[3]) / 255
			o[0], o[1], o[2], o[3] = float32(p[0])*257*a, float32(p[1])*257*a, float32(p[2])*257*a, float32(p[3])*257
		}
	case *image.Gray:
		pix := s.Pix[s.PixOffset(x0, y):]
		for i := 0; i < x1-x0; i++ {
			v := float32(pix[i]) * 257
			o := line[i*4:]
			o[0], o[1], o[2], o[3] = v, v, v, 65535
		}
	case *image.Paletted:
		pix := s.Pix[s.PixOffset(x0, y):]
		for i := 0; i < x1-x0; i++ {
			c := pal[pix[i]]
			copy(line[i*4:i*4+4], c[:])
		}
	case image.RGBA64Image:
		for x := x0; x < x1; x++ {
			c := s.RGBA64At(x, y)
			o := line[(x-x0)*4:]
			o[0], o[1], o[2], o[3] = float32(c.R), float32(c.G), float32(c.B), float32(c.A)
		}
	default:
		for x := x0; x < x1; x++ {
			r, g, b, a := src.At(x, y).RGBA()
			o := line[(x-x0)*4:]
			o[0], o[1], o[2], o[3] = float32(r), float32(g), float32(b), float32(a)
		}
	}
}
