package media_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/HugoSmits86/nativewebp"
)

// gradient returns a w×h image whose left half is red and right half blue,
// so that orientation can be checked on a generated size.
func gradient(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x < w/2 {
				img.Set(x, y, color.RGBA{255, 0, 0, 255})
			} else {
				img.Set(x, y, color.RGBA{0, 0, 255, 255})
			}
		}
	}
	return img
}

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, gradient(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, gradient(w, h), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gifBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gif.Encode(&b, gradient(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func webpBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := nativewebp.Encode(&b, gradient(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jpegWithOrientation inserts an EXIF APP1 segment carrying the given
// orientation (and a camera model) right after the SOI marker.
func jpegWithOrientation(t testing.TB, w, h int, orientation uint16) []byte {
	t.Helper()
	plain := jpegBytes(t, w, h)
	var tiff bytes.Buffer
	le := binary.LittleEndian
	tiff.WriteString("II")
	_ = binary.Write(&tiff, le, uint16(42))
	_ = binary.Write(&tiff, le, uint32(8))
	// IFD0 with two entries: Model (ASCII) and Orientation (SHORT).
	_ = binary.Write(&tiff, le, uint16(2))
	model := "FolioCam\x00"
	modelOffset := uint32(8 + 2 + 2*12 + 4)
	_ = binary.Write(&tiff, le, []uint16{0x0110, 2})
	_ = binary.Write(&tiff, le, uint32(len(model)))
	_ = binary.Write(&tiff, le, modelOffset)
	_ = binary.Write(&tiff, le, []uint16{0x0112, 3})
	_ = binary.Write(&tiff, le, uint32(1))
	_ = binary.Write(&tiff, le, []uint16{orientation, 0})
	_ = binary.Write(&tiff, le, uint32(0))
	tiff.WriteString(model)
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, plain[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, plain[2:]...)
}

// pngClaiming returns a small PNG whose header claims w×h pixels (a
// decompression bomb's header), with a valid header checksum.
func pngClaiming(t testing.TB, w, h uint32) []byte {
	t.Helper()
	b := pngBytes(t, 4, 4)
	// IHDR data starts at byte 16 (8 signature + 4 length + 4 type).
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	crc := crc32.ChecksumIEEE(b[12:29])
	binary.BigEndian.PutUint32(b[29:], crc)
	return b
}
