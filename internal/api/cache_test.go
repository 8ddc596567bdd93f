package api

import (
	"fmt"
	"testing"
	"time"
)

// TestPageCache pins the cache's rule: a page is served only for the
// generation it was read in, a page read before a newer write is never
// kept, and the cache holds at most maxCachedPages.
func TestPageCache(t *testing.T) {
	var c pageCache
	if _, ok := c.get(0, "a"); ok {
		t.Fatal("empty cache answered")
	}
	c.put(3, "a", []byte("A3"))
	if b, ok := c.get(3, "a"); !ok || string(b) != "A3" {
		t.Fatalf("get(3, a) = %q, %v", b, ok)
	}
	if _, ok := c.get(4, "a"); ok {
		t.Fatal("a page of generation 3 served at generation 4")
	}
	c.put(5, "b", []byte("B5"))
	if _, ok := c.get(5, "a"); ok {
		t.Fatal("a page of generation 3 survived a put at generation 5")
	}
	c.put(4, "a", []byte("A4")) // read before the write of generation 5
	if _, ok := c.get(5, "a"); ok {
		t.Fatal("a page read at generation 4 kept at generation 5")
	}
	for i := range 2 * maxCachedPages {
		c.put(5, fmt.Sprint(i), []byte("x"))
		if len(c.pages) > maxCachedPages {
			t.Fatalf("%d pages cached, more than %d", len(c.pages), maxCachedPages)
		}
	}
	big := make([]byte, maxCachedBytes/3)
	for i := range 10 {
		c.put(5, fmt.Sprint("big", i), big)
		if c.bytes > maxCachedBytes {
			t.Fatalf("%d bytes cached, more than %d", c.bytes, maxCachedBytes)
		}
	}
	c.put(5, "huge", make([]byte, maxCachedBytes+1))
	if _, ok := c.get(5, "huge"); ok {
		t.Fatal("a page over the whole bound was cached")
	}
}

// TestPageCacheSharesBuilds pins load's sharing: requests for a page at the
// generation of a build under way wait for it and get its page (one query
// for all of them); a request at a newer generation never takes an older
// build's page; an error reaches the waiters and is not cached.
func TestPageCacheSharesBuilds(t *testing.T) {
	var c pageCache
	release := make(chan struct{})
	builds := 0
	first := make(chan []byte)
	go func() {
		page, _ := c.load(7, "k", func() ([]byte, error) {
			builds++ // only this goroutine builds at generation 7
			<-release
			return []byte("page7"), nil
		})
		first <- page
	}()
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.flights["k"] != nil })
	const waiters = 5
	got := make(chan []byte, waiters)
	for range waiters {
		go func() {
			page, err := c.load(7, "k", func() ([]byte, error) {
				t.Error("a second build of the same page at the same generation")
				return nil, nil
			})
			if err != nil {
				t.Error(err)
			}
			got <- page
		}()
	}
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.shared == waiters })

	// A newer generation builds its own page even while the old build runs.
	page, err := c.load(8, "k", func() ([]byte, error) { return []byte("page8"), nil })
	if err != nil || string(page) != "page8" {
		t.Fatalf("load at generation 8 = %q, %v", page, err)
	}
	close(release)
	if p := <-first; string(p) != "page7" {
		t.Fatalf("the builder got %q", p)
	}
	for range waiters {
		if p := <-got; string(p) != "page7" {
			t.Fatalf("a waiter got %q, want page7", p)
		}
	}
	if builds != 1 {
		t.Fatalf("%d builds at generation 7, want 1", builds)
	}
	// The generation-7 page, finished after generation 8's, is not kept.
	if p, ok := c.get(8, "k"); !ok || string(p) != "page8" {
		t.Fatalf("cache at generation 8 holds %q, %v", p, ok)
	}

	// Errors: shared with the waiters, never cached.
	boom := fmt.Errorf("store down")
	for i, want := range []error{boom, nil} {
		page, err := c.load(9, "e", func() ([]byte, error) {
			if i == 0 {
				return nil, boom
			}
			return []byte("ok"), nil
		})
		if err != want || (err == nil && string(page) != "ok") {
			t.Fatalf("load %d = %q, %v; want error %v", i, page, err, want)
		}
	}
}

// TestPageCacheBuildPanics: a build that panics does not leave its waiters
// with an empty page and no error.
func TestPageCacheBuildPanics(t *testing.T) {
	var c pageCache
	release := make(chan struct{})
	go func() {
		defer func() { recover() }()
		c.load(1, "p", func() ([]byte, error) { <-release; panic("bug") })
	}()
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.flights["p"] != nil })
	res := make(chan error, 1)
	go func() {
		_, err := c.load(1, "p", func() ([]byte, error) { return []byte("x"), nil })
		res <- err
	}()
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.shared == 1 })
	close(release)
	if err := <-res; err == nil {
		t.Fatal("a waiter of a build that panicked got no error")
	}
	if _, ok := c.get(1, "p"); ok {
		t.Fatal("a page was cached from a build that panicked")
	}
}

// waitFor waits for cond (which takes the cache's lock), with a generous
// deadline.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within a minute")
		}
		time.Sleep(time.Millisecond)
	}
}
