package media

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// ErrTypeNotAllowed is returned for files whose extension is not on the
// allowlist or whose content is of a refused kind (HTML, SVG, programs).
var ErrTypeNotAllowed = errors.New("media: file type not permitted")

// ErrEmptyFile is returned for an upload without bytes.
var ErrEmptyFile = errors.New("media: file is empty")

// defaultTypes is the original's default allowlist (reference §10.3) plus
// WebP, without HTML (which needs a configured opt-in here), SWF and
// executables. Extensions sharing a type are joined with "|".
var defaultTypes = [][2]string{
	{"jpg|jpeg|jpe", "image/jpeg"},
	{"gif", "image/gif"},
	{"png", "image/png"},
	{"webp", "image/webp"},
	{"bmp", "image/bmp"},
	{"tiff|tif", "image/tiff"},
	{"ico", "image/x-icon"},
	{"asf|asx", "video/x-ms-asf"},
	{"wmv", "video/x-ms-wmv"},
	{"wmx", "video/x-ms-wmx"},
	{"wm", "video/x-ms-wm"},
	{"avi", "video/avi"},
	{"divx", "video/divx"},
	{"flv", "video/x-flv"},
	{"mov|qt", "video/quicktime"},
	{"mpeg|mpg|mpe", "video/mpeg"},
	{"mp4|m4v", "video/mp4"},
	{"ogv", "video/ogg"},
	{"webm", "video/webm"},
	{"mkv", "video/x-matroska"},
	{"3gp|3gpp", "video/3gpp"},
	{"3g2|3gp2", "video/3gpp2"},
	{"txt|asc|c|cc|h|srt", "text/plain"},
	{"csv", "text/csv"},
	{"tsv", "text/tab-separated-values"},
	{"ics", "text/calendar"},
	{"rtx", "text/richtext"},
	{"css", "text/css"},
	{"vtt", "text/vtt"},
	{"dfxp", "application/ttaf+xml"},
	{"mp3|m4a|m4b", "audio/mpeg"},
	{"ra|ram", "audio/x-realaudio"},
	{"wav", "audio/wav"},
	{"ogg|oga", "audio/ogg"},
	{"mid|midi", "audio/midi"},
	{"wma", "audio/x-ms-wma"},
	{"wax", "audio/x-ms-wax"},
	{"mka", "audio/x-matroska"},
	{"rtf", "application/rtf"},
	{"js", "application/javascript"},
	{"pdf", "application/pdf"},
	{"class", "application/java"},
	{"tar", "application/x-tar"},
	{"zip", "application/zip"},
	{"gz|gzip", "application/x-gzip"},
	{"rar", "application/rar"},
	{"7z", "application/x-7z-compressed"},
	{"psd", "application/octet-stream"},
	{"xcf", "application/octet-stream"},
	{"doc", "application/msword"},
	{"pot|pps|ppt", "application/vnd.ms-powerpoint"},
	{"wri", "application/vnd.ms-write"},
	{"xla|xls|xlt|xlw", "application/vnd.ms-excel"},
	{"mdb", "application/vnd.ms-access"},
	{"mpp", "application/vnd.ms-project"},
	{"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	{"docm", "application/vnd.ms-word.document.macroEnabled.12"},
	{"dotx", "application/vnd.openxmlformats-officedocument.wordprocessingml.template"},
	{"dotm", "application/vnd.ms-word.template.macroEnabled.12"},
	{"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	{"xlsm", "application/vnd.ms-excel.sheet.macroEnabled.12"},
	{"xlsb", "application/vnd.ms-excel.sheet.binary.macroEnabled.12"},
	{"xltx", "application/vnd.openxmlformats-officedocument.spreadsheetml.template"},
	{"xltm", "application/vnd.ms-excel.template.macroEnabled.12"},
	{"xlam", "application/vnd.ms-excel.addin.macroEnabled.12"},
	{"pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	{"pptm", "application/vnd.ms-powerpoint.presentation.macroEnabled.12"},
	{"ppsx", "application/vnd.openxmlformats-officedocument.presentationml.slideshow"},
	{"ppsm", "application/vnd.ms-powerpoint.slideshow.macroEnabled.12"},
	{"potx", "application/vnd.openxmlformats-officedocument.presentationml.template"},
	{"potm", "application/vnd.ms-powerpoint.template.macroEnabled.12"},
	{"ppam", "application/vnd.ms-powerpoint.addin.macroEnabled.12"},
	{"sldx", "application/vnd.openxmlformats-officedocument.presentationml.slide"},
	{"sldm", "application/vnd.ms-powerpoint.slide.macroEnabled.12"},
	{"onetoc|onetoc2|onetmp|onepkg", "application/onenote"},
	{"oxps", "application/oxps"},
	{"xps", "application/vnd.ms-xpsdocument"},
	{"odt", "application/vnd.oasis.opendocument.text"},
	{"odp", "application/vnd.oasis.opendocument.presentation"},
	{"ods", "application/vnd.oasis.opendocument.spreadsheet"},
	{"odg", "application/vnd.oasis.opendocument.graphics"},
	{"odc", "application/vnd.oasis.opendocument.chart"},
	{"odb", "application/vnd.oasis.opendocument.database"},
	{"odf", "application/vnd.oasis.opendocument.formula"},
	{"wp|wpd", "application/wordperfect"},
	{"key", "application/vnd.apple.keynote"},
	{"numbers", "application/vnd.apple.numbers"},
	{"pages", "application/vnd.apple.pages"},
}

// knownTypes maps extensions Folio knows but does not allow by default to
// their types, so that an allowed_types entry may name just the extension.
var knownTypes = map[string]string{
	"htm": "text/html", "html": "text/html", "svg": "image/svg+xml", "svgz": "image/svg+xml",
	"swf": "application/x-shockwave-flash", "exe": "application/x-msdownload",
	"xml": "application/xml", "json": "application/json", "avif": "image/avif",
	"heic": "image/heic", "flac": "audio/flac", "md": "text/markdown",
}

// Types is an allowlist of file extensions with their MIME types.
type Types struct {
	byExt map[string]string
}

// DefaultTypes returns the default allowlist.
func DefaultTypes() *Types {
	t := &Types{byExt: map[string]string{}}
	for _, e := range defaultTypes {
		for _, ext := range strings.Split(e[0], "|") {
			t.byExt[ext] = e[1]
		}
	}
	return t
}

// ParseTypes builds an allowlist from config entries ("ext" or
// "ext=mime/type"); an empty list gives DefaultTypes.
func ParseTypes(entries []string) (*Types, error) {
	if len(entries) == 0 {
		return DefaultTypes(), nil
	}
	def := DefaultTypes()
	t := &Types{byExt: map[string]string{}}
	for _, e := range entries {
		ext, mt, hasMime := strings.Cut(strings.TrimSpace(e), "=")
		ext = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(ext), "."))
		if ext == "" || strings.ContainsAny(ext, "/\\. ") {
			return nil, fmt.Errorf("media type %q: want ext or ext=type/subtype", e)
		}
		if !hasMime {
			mt = def.byExt[ext]
			if mt == "" {
				mt = knownTypes[ext]
			}
			if mt == "" {
				return nil, fmt.Errorf("media type %q: unknown extension, give it as %s=type/subtype", e, ext)
			}
		}
		mt = strings.ToLower(strings.TrimSpace(mt))
		if top, sub, ok := strings.Cut(mt, "/"); !ok || top == "" || sub == "" {
			return nil, fmt.Errorf("media type %q: %q is not a MIME type", e, mt)
		}
		t.byExt[ext] = mt
	}
	return t, nil
}

// MimeOf returns the type of a file name's extension and whether it is
// allowed.
func (t *Types) MimeOf(name string) (string, bool) {
	mt, ok := t.byExt[Ext(name)]
	return mt, ok
}

// Categories returns the sorted top-level categories of the allowed types
// ("application", "audio", "image", ...), the media_type filter's enum.
func (t *Types) Categories() []string {
	seen := map[string]bool{}
	var out []string
	for _, mt := range t.byExt {
		top, _, _ := strings.Cut(mt, "/")
		if !seen[top] {
			seen[top] = true
			out = append(out, top)
		}
	}
	sort.Strings(out)
	return out
}

// Allows reports whether the type mt is allowed (for the mime_type filter).
func (t *Types) Allows(mt string) bool {
	for _, v := range t.byExt {
		if v == mt {
			return true
		}
	}
	return false
}

// Ext returns the lower-case extension of name without the dot.
func Ext(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || i == len(name)-1 {
		return ""
	}
	return strings.ToLower(name[i+1:])
}

// imageExt maps a sniffed image type to the extension it is stored with
// when the name's extension claims another image type.
var imageExt = map[string]string{
	"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp", "image/bmp": "bmp",
}

// Check decides whether a file called name with content data may be
// stored. It returns the name to store it under (with the extension
// corrected when the content is another image type than the name says, as
// the original does) and its MIME type, which comes from that extension,
// never from the client. Content that sniffs as HTML, SVG or a program is
// refused unless its own type is on the allowlist.
func (t *Types) Check(name string, data []byte) (string, string, error) {
	if len(data) == 0 {
		return "", "", ErrEmptyFile
	}
	mt, ok := t.MimeOf(name)
	if !ok {
		return "", "", ErrTypeNotAllowed
	}
	sniffed := Sniff(data)
	switch sniffed {
	case "text/html", "image/svg+xml", "application/x-executable":
		if mt != sniffed {
			return "", "", ErrTypeNotAllowed
		}
	}
	if strings.HasPrefix(mt, "image/") {
		if ext, isImage := imageExt[sniffed]; isImage && sniffed != mt {
			real, allowed := t.byExt[ext]
			if !allowed {
				return "", "", ErrTypeNotAllowed
			}
			base := name[:len(name)-len(Ext(name))]
			return base + ext, real, nil
		}
	}
	return name, mt, nil
}

// Sniff returns the detected type of data: net/http's content sniffing,
// extended with SVG, WebP and program (executable and script) detection.
func Sniff(data []byte) string {
	head := data
	if len(head) > 1024 {
		head = head[:1024]
	}
	switch {
	case bytes.HasPrefix(head, []byte("MZ")), bytes.HasPrefix(head, []byte("\x7fELF")),
		bytes.HasPrefix(head, []byte("\xfe\xed\xfa\xce")), bytes.HasPrefix(head, []byte("\xfe\xed\xfa\xcf")),
		bytes.HasPrefix(head, []byte("\xce\xfa\xed\xfe")), bytes.HasPrefix(head, []byte("\xcf\xfa\xed\xfe")),
		bytes.HasPrefix(head, []byte("\xca\xfe\xba\xbe")), bytes.HasPrefix(head, []byte("#!")):
		return "application/x-executable"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "image/webp"
	}
	ct := http.DetectContentType(head)
	mt, _, _ := strings.Cut(ct, ";")
	lower := bytes.ToLower(head)
	if mt == "text/html" {
		return "text/html"
	}
	if strings.HasPrefix(mt, "text/") || mt == "application/octet-stream" {
		trimmed := bytes.TrimLeft(lower, "\xef\xbb\xbf \t\r\n")
		if bytes.Contains(lower, []byte("<svg")) && (bytes.HasPrefix(trimmed, []byte("<svg")) || bytes.HasPrefix(trimmed, []byte("<?xml")) || bytes.HasPrefix(trimmed, []byte("<!doctype svg"))) {
			return "image/svg+xml"
		}
		if bytes.HasPrefix(trimmed, []byte("<?xml")) && bytes.Contains(lower, []byte("http://www.w3.org/1999/xhtml")) {
			return "text/html"
		}
	}
	return mt
}
