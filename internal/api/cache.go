package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
)

// pageCache keeps the encoded answers of the public lists (leaderboards and
// match lists), which are read far more often than the store changes: a
// page is kept for the store generation it was read in (store.Generation)
// and dropped when any write moves the generation on, so a cached answer is
// never older than the database. At most maxCachedPages pages and
// maxCachedBytes bytes are kept, whatever queries strangers make up.
type pageCache struct {
	mu    sync.Mutex
	gen   uint64
	pages map[string][]byte
	bytes int
}

const (
	maxCachedPages = 256
	maxCachedBytes = 8 << 20
)

func (c *pageCache) get(gen uint64, key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return nil, false
	}
	b, ok := c.pages[key]
	return b, ok
}

// put stores a page read at generation gen, read before the query ran.
func (c *pageCache) put(gen uint64, key string, page []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.gen:
		return // read before a write this cache already saw
	case gen > c.gen || c.pages == nil || len(c.pages) >= maxCachedPages || c.bytes+len(page) > maxCachedBytes:
		c.gen, c.pages, c.bytes = gen, map[string][]byte{}, 0
	}
	if len(page) > maxCachedBytes {
		return
	}
	c.bytes += len(page) - len(c.pages[key])
	c.pages[key] = page
}

// cached answers a GET of a public list from the cache, or by calling
// build (which reads the store) and caching its answer.
func (a *API) cached(w http.ResponseWriter, r *http.Request, build func() (any, error)) error {
	gen := a.st.Generation()
	key := r.URL.Path + "?" + r.URL.RawQuery
	if page, ok := a.pages.get(gen, key); ok {
		writeBody(w, http.StatusOK, page)
		return nil
	}
	v, err := build()
	if err != nil {
		return err
	}
	page := encodeJSON(v)
	a.pages.put(gen, key, page)
	writeBody(w, http.StatusOK, page)
	return nil
}

func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
	return buf.Bytes()
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}
