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
// allowlist.
var ErrTypeNotAllowed = errors.New("media: file type not permitted")

// ErrActiveType is returned for a file of an active type (one a browser
// runs or renders as a document: HTML, SVG, XML, JavaScript, CSS, Flash, or
// a server-side script) uploaded by a caller who may not post unfiltered
// HTML.
var ErrActiveType = errors.New("media: file type not permitted for this user")

// ErrSniffedType is returned for a file whose content is of an active kind
// (HTML, SVG, XML, Flash or a program) that its name's type does not
// declare, such as an HTML page named photo.jpg.
var ErrSniffedType = errors.New("media: file content does not match its type")

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
	"htm": "text/html", "html": "text/html", "xhtml": "application/xhtml+xml", "xht": "application/xhtml+xml",
	"svg": "image/svg+xml", "svgz": "image/svg+xml",
	"swf": "application/x-shockwave-flash", "exe": "application/x-msdownload",
	"xml": "application/xml", "xsl": "application/xslt+xml", "xslt": "application/xslt+xml",
	"json": "application/json", "avif": "image/avif", "mjs": "text/javascript",
	"heic": "image/heic", "flac": "audio/flac", "md": "text/markdown",
}

// activeExts are the extensions of files a browser runs or renders as a
// document, and of scripts a web server might run: only callers who may
// post unfiltered HTML may upload them (when the allowlist has them).
var activeExts = map[string]bool{
	"js": true, "mjs": true, "cjs": true, "css": true,
	"htm": true, "html": true, "xhtml": true, "xht": true, "shtml": true, "shtm": true, "mht": true, "mhtml": true,
	"svg": true, "svgz": true, "xml": true, "xsl": true, "xslt": true, "swf": true, "hta": true,
}

// serverScriptExts are extensions a web server in front of the uploads
// directory might execute. They are never allowed, whatever the allowlist
// says.
var serverScriptExts = map[string]bool{
	"php": true, "phtml": true, "pht": true, "phps": true, "phar": true,
	"php3": true, "php4": true, "php5": true, "php6": true, "php7": true, "php8": true,
	"shtml": true, "shtm": true, "cgi": true, "asp": true, "aspx": true, "jsp": true,
}

// activeMimes are the MIME types a browser runs or renders as a document.
var activeMimes = map[string]bool{
	"text/html": true, "application/xhtml+xml": true, "image/svg+xml": true,
	"text/xml": true, "application/xml": true, "text/xsl": true, "application/xslt+xml": true,
	"text/javascript": true, "application/javascript": true, "application/x-javascript": true,
	"application/ecmascript": true, "text/ecmascript": true, "text/css": true,
	"application/x-shockwave-flash": true, "application/x-httpd-php": true, "application/x-php": true,
	"text/x-php": true, "multipart/x-mixed-replace": true, "message/rfc822": true, "application/hta": true,
}

// IsActiveType reports whether files of type mt are active content: a type
// a browser executes or renders as a document (HTML, XHTML, SVG, any XML,
// JavaScript, CSS, Flash) or a server-side script.
func IsActiveType(mt string) bool {
	mt = strings.ToLower(mt)
	return activeMimes[mt] || strings.HasSuffix(mt, "+xml")
}

// ServedInline reports whether an upload of type mt may be shown by the
// browser in place (images other than SVG, audio, video and PDF); every
// other type is served as an attachment, to be downloaded.
func ServedInline(mt string) bool {
	mt = strings.ToLower(mt)
	if IsActiveType(mt) {
		return false
	}
	top, _, _ := strings.Cut(mt, "/")
	return top == "image" || top == "audio" || top == "video" || mt == "application/pdf"
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
		if serverScriptExts[ext] {
			return nil, fmt.Errorf("media type %q: server-side scripts are never accepted", e)
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

// Check decides whether a file called name with content data (at least its
// first 1024 bytes) may be stored. It returns the name to store it under
// (with the extension corrected when the content is another image type
// than the name says, as the original does) and its MIME type, which comes
// from that extension, never from the client. trusted says whether the
// uploader may post unfiltered HTML.
//
// The rules, in order: an empty file is ErrEmptyFile; a server-side script
// extension (php, phtml, phar, ...) is never allowed, and an active type
// (see IsActiveType: HTML, SVG, XML, JavaScript, CSS, Flash) only for
// trusted callers: ErrActiveType; an extension not on the allowlist is
// ErrTypeNotAllowed; content that sniffs as HTML, SVG, XML, Flash or a
// program when the type does not declare that kind is ErrSniffedType.
func (t *Types) Check(name string, data []byte, trusted bool) (string, string, error) {
	if len(data) == 0 {
		return "", "", ErrEmptyFile
	}
	ext := Ext(name)
	mt, ok := t.MimeOf(name)
	if serverScriptExts[ext] || (!trusted && (activeExts[ext] || (ok && IsActiveType(mt)))) {
		return "", "", ErrActiveType
	}
	if !ok {
		return "", "", ErrTypeNotAllowed
	}
	sniffed := Sniff(data)
	if kind := activeKind(sniffed); kind != "" && !declares(mt, kind) {
		return "", "", ErrSniffedType
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

// activeKind classifies a sniffed type: "html", "svg", "xml", "flash" or
// "program" for content a browser or a system would run or render, "" for
// anything else.
func activeKind(sniffed string) string {
	switch sniffed {
	case "text/html":
		return "html"
	case "image/svg+xml":
		return "svg"
	case "text/xml", "application/xml":
		return "xml"
	case "application/x-shockwave-flash":
		return "flash"
	case "application/x-executable":
		return "program"
	}
	return ""
}

// declares reports whether content of the active kind may be stored under
// the type mt: HTML as an HTML type, SVG as SVG, XML as any XML type,
// Flash and programs only under their own types.
func declares(mt, kind string) bool {
	switch kind {
	case "html":
		return mt == "text/html" || mt == "application/xhtml+xml"
	case "svg":
		return mt == "image/svg+xml"
	case "xml":
		return mt == "text/xml" || mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "text/xsl"
	case "flash":
		return mt == "application/x-shockwave-flash"
	case "program":
		return mt == "application/x-executable" || mt == "application/x-msdownload"
	}
	return false
}

// Sniff returns the detected type of data: net/http's content sniffing,
// extended with SVG, WebP, Flash and program (executable and script)
// detection.
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
	case len(head) >= 8 && (string(head[:3]) == "FWS" || string(head[:3]) == "CWS" || string(head[:3]) == "ZWS") && head[3] < 64 && head[7] == 0:
		// A signature, a version byte and a little-endian file length
		// under 16 MiB.
		return "application/x-shockwave-flash"
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
		if bytes.HasPrefix(trimmed, []byte("<?xml")) {
			return "text/xml"
		}
	}
	return mt
}
