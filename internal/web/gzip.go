package web

import (
	"compress/gzip"
	"net/http"
	"strings"
)

// gzipWriter compresses a response whose client accepts gzip. The viewer's
// data is repetitive JSON (a 400-turn, 4-player match of the largest game
// is about 1.5 MB, a tenth of that compressed), and event streams stay flushable.
type gzipWriter struct {
	http.ResponseWriter
	gz *gzip.Writer
}

// compress wraps w when r accepts gzip; the caller must call the returned
// close function.
func compress(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	return compressLevel(w, r, gzip.DefaultCompression)
}

// compressLevel is compress at a gzip level: event streams, which stay open
// for minutes, use BestSpeed, whose compressor keeps less memory.
func compressLevel(w http.ResponseWriter, r *http.Request, level int) (http.ResponseWriter, func()) {
	if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		return w, func() {}
	}
	gz, err := gzip.NewWriterLevel(w, level)
	if err != nil { // a level out of range: the program's mistake
		panic(err)
	}
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Add("Vary", "Accept-Encoding")
	w.Header().Del("Content-Length")
	g := &gzipWriter{ResponseWriter: w, gz: gz}
	return g, func() { g.gz.Close() }
}

func (g *gzipWriter) Write(b []byte) (int, error) { return g.gz.Write(b) }

func (g *gzipWriter) Flush() {
	g.gz.Flush()
	if f, ok := g.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
