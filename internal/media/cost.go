package media

import (
	"encoding/binary"
	"image"
	"image/color"
	"io"
)

// processOverhead is what processing an image takes beside its decoded
// pixels: the metadata head, the generated sizes (at most 1024×1024 RGBA
// each, with their turned copies and encodings) and the resampler's rows.
const processOverhead = 16 << 20

// DecodeCost estimates the bytes of memory processing the image in the
// size bytes of r takes, from its header (cfg and format as
// image.DecodeConfig read them): its pixels times the bytes per pixel of
// the image the Go decoder builds for it, plus what the decoder needs
// beside it, plus processOverhead. The estimate is an upper bound for the
// decoders used:
//
//   - PNG: 1 byte per pixel for grey (up to 8 bits) and paletted images, 2
//     for 16-bit grey, 4 for 8-bit colour or grey with alpha (or with a
//     tRNS chunk), 8 for 16-bit colour or grey with alpha; interlaced
//     images half as much again (a pass is decoded beside the image).
//   - JPEG: one byte per sample of every component at its sampling
//     factors; progressive images keep 4 bytes of coefficients per sample
//     too; 4-component (CMYK) images are converted to 4 bytes per pixel.
//   - GIF: 1 byte per pixel (the first frame).
//   - WebP: 2 bytes per pixel for lossy images, 11 for lossy ones with an
//     alpha plane, 8 for lossless ones.
//   - Anything else: 8 bytes per pixel.
func DecodeCost(r io.ReaderAt, size int64, cfg image.Config, format string) int64 {
	px := int64(cfg.Width) * int64(cfg.Height)
	var bytes int64
	switch format {
	case "png":
		bytes = pngCost(r, size, px, cfg.ColorModel)
	case "jpeg":
		bytes = jpegCost(r, size, cfg)
	case "gif":
		bytes = px
	case "webp":
		switch cfg.ColorModel {
		case color.YCbCrModel:
			bytes = px * 2
		case color.NRGBAModel:
			bytes = px * 8
		default:
			bytes = px * 11
		}
	default:
		bytes = px * 8
	}
	return bytes + processOverhead
}

// pngCost is the decoding cost of a PNG of px pixels: it reads the bit
// depth, colour type and interlace method from IHDR and looks for a tRNS
// chunk before the image data.
func pngCost(r io.ReaderAt, size, px int64, cm color.Model) int64 {
	var ihdr [29]byte
	if _, err := r.ReadAt(ihdr[:], 0); err != nil {
		return px * 8
	}
	depth, ctype, interlaced := ihdr[24], ihdr[25], ihdr[28] == 1
	trns := false
	off := int64(8)
	for i := 0; i < 1000 && off+8 <= size; i++ {
		var h [8]byte
		if _, err := r.ReadAt(h[:], off); err != nil {
			break
		}
		n, typ := int64(binary.BigEndian.Uint32(h[:4])), string(h[4:])
		if typ == "IDAT" {
			break
		}
		if typ == "tRNS" {
			trns = true
		}
		off += 12 + n
	}
	var bpp int64
	switch {
	case ctype == 3 || (ctype == 0 && depth <= 8 && !trns):
		bpp = 1 // Paletted, Gray
	case ctype == 0 && depth == 16 && !trns:
		bpp = 2 // Gray16
	case depth == 16:
		bpp = 8 // RGBA64, NRGBA64
	default:
		bpp = 4 // RGBA, NRGBA
	}
	if _, paletted := cm.(color.Palette); paletted {
		bpp = 1
	}
	cost := px * bpp
	if interlaced {
		cost += cost / 2
	}
	return cost
}

// jpegCost is the decoding cost of a JPEG from its frame header.
func jpegCost(r io.ReaderAt, size int64, cfg image.Config) int64 {
	px := int64(cfg.Width) * int64(cfg.Height)
	f, ok := readJPEGFrame(r, size)
	if !ok || len(f.sampling) == 0 {
		// Unknown layout: the worst Go decodes (progressive CMYK).
		return px * 24
	}
	hmax, vmax := 1, 1
	for _, s := range f.sampling {
		hmax, vmax = max(hmax, s[0]), max(vmax, s[1])
	}
	// Planes are padded to whole MCUs (8 samples per factor).
	mw := (int64(cfg.Width) + int64(8*hmax) - 1) / int64(8*hmax)
	mh := (int64(cfg.Height) + int64(8*vmax) - 1) / int64(8*vmax)
	var samples int64
	for _, s := range f.sampling {
		samples += mw * int64(8*s[0]) * mh * int64(8*s[1])
	}
	cost := samples
	if f.progressive {
		cost += samples * 4
	}
	if len(f.sampling) == 4 {
		cost += mw * int64(8*hmax) * mh * int64(8*vmax) * 4
	}
	return cost
}

// jpegFrame is what readJPEGFrame found: the sampling factors (h, v) of
// each component and whether the coding is progressive.
type jpegFrame struct {
	sampling    [][2]int
	progressive bool
}

// readJPEGFrame walks a JPEG's marker segments to its start-of-frame
// segment and reads it.
func readJPEGFrame(r io.ReaderAt, size int64) (jpegFrame, bool) {
	var f jpegFrame
	var h [4]byte
	off := int64(2)
	for i := 0; i < 10000 && off+4 <= size; i++ {
		if _, err := r.ReadAt(h[:], off); err != nil {
			return f, false
		}
		if h[0] != 0xFF {
			return f, false
		}
		marker := h[1]
		switch {
		case marker == 0xFF: // fill byte
			off++
			continue
		case marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7):
			off += 2
			continue
		case marker == jpegSOS || marker == jpegEOI:
			return f, false
		}
		n := int64(binary.BigEndian.Uint16(h[2:]))
		if n < 2 {
			return f, false
		}
		if marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
			seg := make([]byte, min(n-2, 6+3*255))
			if _, err := r.ReadAt(seg, off+4); err != nil || len(seg) < 6 {
				return f, false
			}
			nc := int(seg[5])
			if nc == 0 || len(seg) < 6+3*nc {
				return f, false
			}
			for c := 0; c < nc; c++ {
				hv := seg[6+3*c+1]
				f.sampling = append(f.sampling, [2]int{max(int(hv>>4), 1), max(int(hv&15), 1)})
			}
			f.progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE
			return f, true
		}
		off += 2 + n
	}
	return f, false
}
