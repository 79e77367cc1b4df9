package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// flatPNG encodes a w×h PNG of one colour at the given bit depth (8 or 16)
// and colour type (2: RGB), streaming its rows so that the test never
// holds the image: a 16-bit 7000×7000 one is a few hundred kilobytes that
// decode to 392 MB.
func flatPNG(t *testing.T, w, h int, depth byte) []byte {
	t.Helper()
	chunk := func(out *bytes.Buffer, typ string, data []byte) {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		b = append(append(b, typ...), data...)
		out.Write(binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:])))
	}
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	chunk(&out, "IHDR", append(ihdr, depth, 2, 0, 0, 0))
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]byte, 1+w*3*int(depth/8)) // filter byte 0, then the samples
	for i := 2; i < len(row); i += 3 {
		row[i] = 0x80
	}
	for y := 0; y < h; y++ {
		if _, err := zw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	chunk(&out, "IDAT", z.Bytes())
	chunk(&out, "IEND", nil)
	return out.Bytes()
}

// peakRSS reads a process's peak resident set size (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestImageUploadsKeepPeakRSSUnder300MiB is issue 16's measurement: four
// uploads of a 16-bit 7000×7000 PNG in flight at once (392 MB each once
// decoded), alongside four 8-bit 4000×4000 PNGs (64 MB each decoded, two
// of which fit the default 192 MiB image budget at a time), against a real
// `folio serve` with its default settings. The server's peak RSS stays
// under 300 MiB; the 16-bit ones are refused from their headers, the
// others are all processed.
func TestImageUploadsKeepPeakRSSUnder300MiB(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if testing.Short() {
		t.Skip("processes 64 megapixels of images")
	}
	dir := t.TempDir()
	pass := createAdmin(t, "--data", dir)
	p := startServe(t, nil, "--data", dir)
	huge := flatPNG(t, 7000, 7000, 16)
	big := flatPNG(t, 4000, 4000, 8)
	base := peakRSS(t, p.cmd.Process.Pid)

	type result struct {
		what   string
		status int
		body   string
	}
	results := make(chan result, 8)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < 8; i++ {
		data, what := huge, "16-bit 7000x7000"
		if i%2 == 1 {
			data, what = big, "8-bit 4000x4000"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", p.url+"/api/svc/v2/media", bytes.NewReader(data))
			req.SetBasicAuth(admin, pass)
			req.Header.Set("Content-Type", "image/png")
			req.Header.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="img%d.png"`, i))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			results <- result{what, res.StatusCode, string(b)}
		}()
	}
	wg.Wait()
	close(results)
	elapsed := time.Since(start)
	for r := range results {
		switch {
		case r.what == "16-bit 7000x7000" && (r.status != 500 || !strings.Contains(r.body, "more memory than the site allows")):
			t.Errorf("%s: %d %s", r.what, r.status, r.body)
		case r.what == "8-bit 4000x4000" && r.status != 201:
			t.Errorf("%s: %d %s", r.what, r.status, r.body)
		}
	}
	peak := peakRSS(t, p.cmd.Process.Pid)
	t.Logf("peak RSS %d MiB (%d MiB before the uploads); 8 uploads answered in %s", peak>>20, base>>20, elapsed.Round(time.Millisecond))
	if peak > 300<<20 {
		t.Fatalf("peak RSS %d MiB, want under 300 MiB", peak>>20)
	}
}
