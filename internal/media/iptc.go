package media

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// IPTC holds the IPTC-NAA fields Folio reads from a JPEG's APP13 segment
// (Photoshop 3.0 image resource 0x0404), record 2 (application record).
type IPTC struct {
	// Headline is dataset 2:105, ObjectName 2:05.
	Headline, ObjectName string
	// Caption is dataset 2:120 (caption/abstract).
	Caption string
	// Keywords are the repeated dataset 2:25.
	Keywords []string
	// Credit is dataset 2:110, Byline 2:80.
	Credit, Byline string
	// Copyright is dataset 2:116.
	Copyright string
	// Date is dataset 2:55 (CCYYMMDD), Time 2:60 (HHMMSS±HHMM).
	Date, Time string
}

const (
	jpegSOI       = 0xD8
	jpegSOS       = 0xDA
	jpegEOI       = 0xD9
	jpegAPP13     = 0xED
	photoshopSig  = "Photoshop 3.0\x00"
	resourceSig   = "8BIM"
	iptcResource  = 0x0404
	iptcTagMarker = 0x1C
)

// ReadIPTC finds the IPTC-NAA records of a JPEG file: it walks the marker
// segments up to the start of the scan, joins the payloads of every APP13
// segment carrying a "Photoshop 3.0" header, and decodes resource 0x0404.
// ok is false when data is not a JPEG or holds no IPTC record. Malformed
// lengths end the walk instead of failing: what was read so far is kept.
// Values are trimmed; text that is not valid UTF-8 is taken as ISO-8859-1.
func ReadIPTC(data []byte) (IPTC, bool) {
	var out IPTC
	if len(data) < 4 || data[0] != 0xFF || data[1] != jpegSOI {
		return out, false
	}
	var res []byte
	i := 2
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			break
		}
		marker := data[i+1]
		if marker == 0xFF { // fill byte
			i++
			continue
		}
		if marker == jpegSOS || marker == jpegEOI {
			break
		}
		if marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) {
			i += 2
			continue
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			break
		}
		seg := data[i+4 : i+2+n]
		if marker == jpegAPP13 && bytes.HasPrefix(seg, []byte(photoshopSig)) {
			res = append(res, seg[len(photoshopSig):]...)
		}
		i += 2 + n
	}
	block, found := photoshopResource(res, iptcResource)
	if !found {
		return out, false
	}
	return out, parseIPTC(block, &out)
}

// photoshopResource returns the data of resource id in a sequence of
// Photoshop image resource blocks ("8BIM", id, padded Pascal name, size,
// data padded to an even length).
func photoshopResource(b []byte, id uint16) ([]byte, bool) {
	for len(b) >= 12 && string(b[:4]) == resourceSig {
		rid := binary.BigEndian.Uint16(b[4:])
		nameLen := int(b[6])
		// The Pascal string (length byte + name) is padded to even.
		p := 6 + 1 + nameLen
		if (1+nameLen)%2 == 1 {
			p++
		}
		if p+4 > len(b) {
			return nil, false
		}
		size := int(binary.BigEndian.Uint32(b[p:]))
		p += 4
		if size < 0 || size > len(b)-p {
			return nil, false
		}
		if rid == id {
			return b[p : p+size], true
		}
		p += size
		if size%2 == 1 && p < len(b) {
			p++
		}
		b = b[p:]
	}
	return nil, false
}

// parseIPTC decodes IPTC-NAA datasets (0x1C, record, dataset, length)
// into out and reports whether any record-2 field was found.
func parseIPTC(b []byte, out *IPTC) bool {
	found := false
	for len(b) >= 5 && b[0] == iptcTagMarker {
		record, dataset := b[1], b[2]
		n := int(binary.BigEndian.Uint16(b[3:]))
		p := 5
		if n&0x8000 != 0 {
			// Extended dataset: the low bits give how many bytes hold
			// the length.
			k := n & 0x7FFF
			if k > 4 || p+k > len(b) {
				return found
			}
			n = 0
			for _, c := range b[p : p+k] {
				n = n<<8 | int(c)
			}
			p += k
		}
		if n < 0 || n > len(b)-p {
			return found
		}
		val := iptcText(b[p : p+n])
		b = b[p+n:]
		if record != 2 || val == "" {
			continue
		}
		found = true
		switch dataset {
		case 5:
			out.ObjectName = val
		case 105:
			out.Headline = val
		case 120:
			out.Caption = val
		case 25:
			out.Keywords = append(out.Keywords, val)
		case 110:
			out.Credit = val
		case 80:
			out.Byline = val
		case 116:
			out.Copyright = val
		case 55:
			out.Date = val
		case 60:
			out.Time = val
		}
	}
	return found
}

// iptcText trims a dataset value and converts ISO-8859-1 to UTF-8 when the
// bytes are not valid UTF-8.
func iptcText(b []byte) string {
	b = bytes.Trim(b, " \t\r\n\x00")
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for _, c := range b {
		s.WriteRune(rune(c))
	}
	return s.String()
}

// applyIPTC fills m from the IPTC fields the way the original's
// wp_read_image_metadata does, IPTC taking precedence over EXIF: the
// title is the headline, else the object name, else a caption shorter
// than 80 bytes; the credit is the credit, else the by-line; the created
// timestamp comes from the date and time unless EXIF gave one.
func applyIPTC(x IPTC, m *ImageMeta) {
	switch {
	case x.Headline != "":
		m.Title = x.Headline
	case x.ObjectName != "":
		m.Title = x.ObjectName
	case x.Caption != "" && len(x.Caption) < 80:
		m.Title = x.Caption
	}
	if x.Caption != "" {
		m.Caption = x.Caption
	}
	switch {
	case x.Credit != "":
		m.Credit = x.Credit
	case x.Byline != "":
		m.Credit = x.Byline
	}
	if x.Copyright != "" {
		m.Copyright = x.Copyright
	}
	if len(x.Keywords) > 0 {
		m.Keywords = append([]string{}, x.Keywords...)
	}
	if x.Date != "" && (m.CreatedTimestamp == "" || m.CreatedTimestamp == "0") {
		if t, ok := iptcTime(x.Date, x.Time); ok {
			m.CreatedTimestamp = strconv.FormatInt(t.Unix(), 10)
		}
	}
}

// iptcTime parses an IPTC date (CCYYMMDD) and optional time (HHMMSS with
// an optional ±HHMM offset; UTC without one).
func iptcTime(date, clock string) (time.Time, bool) {
	if clock == "" {
		t, err := time.Parse("20060102", date)
		return t, err == nil
	}
	for _, layout := range []string{"20060102 150405-0700", "20060102 150405"} {
		if t, err := time.Parse(layout, date+" "+clock); err == nil {
			return t, true
		}
	}
	t, err := time.Parse("20060102", date)
	return t, err == nil
}
