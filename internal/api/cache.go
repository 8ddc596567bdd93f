package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// pageCache keeps the encoded answers of the public lists (leaderboards and
// match lists), which are read far more often than the store changes: a
// page is kept for the store generation it was read in (store.Generation)
// and dropped when any write moves the generation on, so a cached answer is
// never older than the database. At most maxCachedPages pages and
// maxCachedBytes bytes are kept, whatever queries strangers make up.
//
// While matches run back to back the generation moves several times a
// second, so pages are rebuilt often. A rebuild is shared (load): requests
// for the same page at the same generation that arrive while it is being
// built wait for it instead of each querying the store, which under a
// steady rate of requests turned every change of generation into a burst
// of identical queries.
type pageCache struct {
	mu      sync.Mutex
	gen     uint64
	pages   map[string][]byte
	bytes   int
	flights map[string]*flight // pages being built, by key
	shared  int                // requests that waited for another's build (tests)
}

// flight is one build of a page, shared by the requests that wait for it.
type flight struct {
	gen  uint64
	done chan struct{}
	page []byte
	err  error
}

const (
	buildTimeout   = 30 * time.Second
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

// load answers the page key at generation gen: from the cache, from a
// build of the same page at the same generation already under way, or by
// calling build and caching its answer. A build started at an older
// generation is never shared: it may not show a write the caller has seen.
// An error is shared with the requests that waited, and not cached.
func (c *pageCache) load(gen uint64, key string, build func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if gen == c.gen {
		if page, ok := c.pages[key]; ok {
			c.mu.Unlock()
			return page, nil
		}
	}
	if f := c.flights[key]; f != nil && f.gen == gen {
		c.shared++
		c.mu.Unlock()
		<-f.done
		return f.page, f.err
	}
	f := &flight{gen: gen, done: make(chan struct{})}
	if c.flights == nil {
		c.flights = map[string]*flight{}
	}
	c.flights[key] = f
	c.mu.Unlock()

	defer func() {
		c.mu.Lock()
		if c.flights[key] == f {
			delete(c.flights, key)
		}
		c.mu.Unlock()
		close(f.done)
	}()
	f.err = errors.New("building the page did not finish") // should build panic
	f.page, f.err = build()
	if f.err == nil {
		c.put(gen, key, f.page)
	}
	return f.page, f.err
}

// cached answers a GET of a public list from the cache, or by calling
// build (which reads the store) and caching its answer. The build is shared
// by the requests that wait for it, so it does not end when the request
// that started it goes away (only at buildTimeout).
func (a *API) cached(w http.ResponseWriter, r *http.Request, build func(context.Context) (any, error)) error {
	page, err := a.pages.load(a.st.Generation(), r.URL.Path+"?"+r.URL.RawQuery, func() ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), buildTimeout)
		defer cancel()
		v, err := build(ctx)
		if err != nil {
			return nil, err
		}
		return encodeJSON(v), nil
	})
	if err != nil {
		return err
	}
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
