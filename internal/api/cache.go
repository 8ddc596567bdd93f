package api

import (
	"net/http"
	"strings"

	"github.com/arenabots/arena/internal/core"
)

// servePage answers a GET of a public list with its page (cached by the
// core until the list changes): a request that names the page's ETag in
// If-None-Match is answered 304 without a body.
func servePage(w http.ResponseWriter, r *http.Request, p core.Page) {
	w.Header().Set("ETag", p.ETag)
	w.Header().Set("Cache-Control", "no-cache") // revalidate: the lists change with every match
	if etagMatches(r.Header.Get("If-None-Match"), p.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, http.StatusOK, p.Body)
}

// etagMatches reports whether an If-None-Match header names etag (or is *).
func etagMatches(header, etag string) bool {
	for header != "" {
		var tag string
		tag, header, _ = strings.Cut(header, ",")
		tag = strings.TrimSpace(tag)
		if tag == "*" || tag == etag || tag == "W/"+etag {
			return true
		}
	}
	return false
}
