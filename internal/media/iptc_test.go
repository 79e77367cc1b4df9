package media_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/folio-server/folio/internal/media"
)

// iptcDataset encodes one IPTC-NAA record-2 dataset.
func iptcDataset(dataset byte, val string) []byte {
	b := []byte{0x1C, 2, dataset, 0, 0}
	binary.BigEndian.PutUint16(b[3:], uint16(len(val)))
	return append(b, val...)
}

// app13 builds a JPEG APP13 segment: the "Photoshop 3.0" header, a
// resource block that is not IPTC (to be skipped, with an odd-length
// name and odd-length data to exercise the padding), then the IPTC-NAA
// resource 0x0404 holding the datasets.
func app13(datasets ...[]byte) []byte {
	var iptc []byte
	for _, d := range datasets {
		iptc = append(iptc, d...)
	}
	var p bytes.Buffer
	p.WriteString("Photoshop 3.0\x00")
	// Resource 0x03ED named "ab" (length byte + 2 = 3, padded to 4),
	// three bytes of data padded to four.
	p.WriteString("8BIM")
	_ = binary.Write(&p, binary.BigEndian, uint16(0x03ED))
	p.Write([]byte{2, 'a', 'b', 0})
	_ = binary.Write(&p, binary.BigEndian, uint32(3))
	p.Write([]byte{1, 2, 3, 0})
	// The IPTC resource with an empty name (length byte + pad).
	p.WriteString("8BIM")
	_ = binary.Write(&p, binary.BigEndian, uint16(0x0404))
	p.Write([]byte{0, 0})
	_ = binary.Write(&p, binary.BigEndian, uint32(len(iptc)))
	p.Write(iptc)
	if len(iptc)%2 == 1 {
		p.WriteByte(0)
	}
	seg := []byte{0xFF, 0xED, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(p.Len()+2))
	return append(seg, p.Bytes()...)
}

// withSegment inserts seg right after a JPEG's SOI marker.
func withSegment(jpg, seg []byte) []byte {
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

func TestReadIPTCFromAPP13(t *testing.T) {
	seg := app13(
		iptcDataset(5, "Harbour at dawn"),
		iptcDataset(120, "Boats leaving the harbour\nat first light."),
		iptcDataset(25, "harbour"),
		iptcDataset(25, "boats"),
		iptcDataset(110, "Folio Press"),
		iptcDataset(116, "\xa9 2024 Jane Doe"), // ISO-8859-1 ©
		iptcDataset(55, "20240517"),
		iptcDataset(60, "063000+0000"),
	)
	x, ok := media.ReadIPTC(withSegment(jpegBytes(t, 8, 8), seg))
	if !ok {
		t.Fatal("no IPTC found")
	}
	if x.ObjectName != "Harbour at dawn" || x.Caption != "Boats leaving the harbour\nat first light." ||
		x.Credit != "Folio Press" || x.Copyright != "© 2024 Jane Doe" || x.Date != "20240517" || x.Time != "063000+0000" {
		t.Errorf("IPTC = %+v", x)
	}
	if len(x.Keywords) != 2 || x.Keywords[0] != "harbour" || x.Keywords[1] != "boats" {
		t.Errorf("keywords = %q", x.Keywords)
	}
	// No APP13, a non-JPEG, a truncated segment: nothing, no panic.
	if _, ok := media.ReadIPTC(jpegBytes(t, 8, 8)); ok {
		t.Error("plain JPEG has IPTC")
	}
	if _, ok := media.ReadIPTC(pngBytes(t, 8, 8)); ok {
		t.Error("PNG has IPTC")
	}
	full := withSegment(jpegBytes(t, 8, 8), seg)
	for n := 0; n < len(seg)+2; n++ {
		media.ReadIPTC(full[:n])
	}
	// A dataset length running past the block ends the walk.
	bad := app13(iptcDataset(5, "ok"), []byte{0x1C, 2, 120, 0x7F, 0xFF, 'x'})
	if x, ok := media.ReadIPTC(withSegment(jpegBytes(t, 8, 8), bad)); !ok || x.ObjectName != "ok" || x.Caption != "" {
		t.Errorf("overlong dataset: %+v %v", x, ok)
	}
}

func TestProcessReadsIPTCIntoImageMeta(t *testing.T) {
	p := media.NewProcessor(media.ProcessorConfig{MaxPixels: 50_000_000, Workers: 1})
	seg := app13(
		iptcDataset(5, "Harbour at dawn"),
		iptcDataset(120, "Boats leaving the harbour."),
		iptcDataset(25, "harbour"),
		iptcDataset(25, "boats"),
		iptcDataset(110, "Folio Press"),
		iptcDataset(116, "2024 Jane Doe"),
		iptcDataset(55, "20240517"),
		iptcDataset(60, "063000+0000"),
	)
	info, err := p.Process(context.Background(), withSegment(jpegBytes(t, 40, 30), seg), "image/jpeg")
	if err != nil {
		t.Fatal(err)
	}
	m := info.Meta
	if m.Title != "Harbour at dawn" || m.Caption != "Boats leaving the harbour." || m.Credit != "Folio Press" ||
		m.Copyright != "2024 Jane Doe" || m.CreatedTimestamp != "1715927400" {
		t.Errorf("image_meta = %+v", m)
	}
	if len(m.Keywords) != 2 || m.Keywords[0] != "harbour" || m.Keywords[1] != "boats" {
		t.Errorf("keywords = %q", m.Keywords)
	}
	// The headline wins over the object name; a short caption is the
	// title when neither is there; the by-line is the fallback credit.
	info, err = p.Process(context.Background(), withSegment(jpegBytes(t, 40, 30), app13(
		iptcDataset(5, "object"), iptcDataset(105, "Headline"), iptcDataset(80, "Byline"))), "image/jpeg")
	if err != nil || info.Meta.Title != "Headline" || info.Meta.Credit != "Byline" {
		t.Errorf("headline: %+v %v", info.Meta, err)
	}
	info, err = p.Process(context.Background(), withSegment(jpegBytes(t, 40, 30), app13(
		iptcDataset(120, "Short caption"))), "image/jpeg")
	if err != nil || info.Meta.Title != "Short caption" || info.Meta.Caption != "Short caption" {
		t.Errorf("caption as title: %+v %v", info.Meta, err)
	}
}
