package core

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestPageCache pins the cache's rule: a page is served only at the
// generation it was read at, a page read before a newer one of the same
// key is never kept, pages of other keys (other games) stay whatever the
// generation of one key does, and the cache holds at most maxCachedPages
// and maxCachedBytes.
func TestPageCache(t *testing.T) {
	var c pageCache
	if _, ok := c.get(0, "a"); ok {
		t.Fatal("empty cache answered")
	}
	c.put("a", page{gen: 3, body: []byte("A3")})
	if p, ok := c.get(3, "a"); !ok || string(p.body) != "A3" {
		t.Fatalf("get(3, a) = %q, %v", p.body, ok)
	}
	if _, ok := c.get(4, "a"); ok {
		t.Fatal("a page of generation 3 served at generation 4")
	}
	// Another game's page at its own, later generation leaves a in place.
	c.put("b", page{gen: 5, body: []byte("B5")})
	if p, ok := c.get(3, "a"); !ok || string(p.body) != "A3" {
		t.Fatalf("a page of another key dropped by a put of b: %q, %v", p.body, ok)
	}
	c.put("a", page{gen: 6, body: []byte("A6")})
	c.put("a", page{gen: 4, body: []byte("A4")}) // read before the write of generation 6
	if p, ok := c.get(6, "a"); !ok || string(p.body) != "A6" {
		t.Fatalf("a page read at generation 4 replaced generation 6's: %q, %v", p.body, ok)
	}
	for i := range 2 * maxCachedPages {
		c.put(fmt.Sprint(i), page{gen: 5, body: []byte("x")})
		if len(c.pages) > maxCachedPages {
			t.Fatalf("%d pages cached, more than %d", len(c.pages), maxCachedPages)
		}
	}
	big := make([]byte, maxCachedBytes/3)
	for i := range 10 {
		c.put(fmt.Sprint("big", i), page{gen: 5, body: big})
		if c.bytes > maxCachedBytes {
			t.Fatalf("%d bytes cached, more than %d", c.bytes, maxCachedBytes)
		}
	}
	c.put("huge", page{gen: 5, body: make([]byte, maxCachedBytes+1)})
	if _, ok := c.get(5, "huge"); ok {
		t.Fatal("a page over the whole bound was cached")
	}
	// The count of bytes follows replacements of one key.
	var d pageCache
	d.put("k", page{gen: 1, body: make([]byte, 100)})
	d.put("k", page{gen: 2, body: make([]byte, 30)})
	if d.bytes != 30 {
		t.Fatalf("%d bytes counted after replacing a page of 100 by one of 30", d.bytes)
	}
}

// sharedWaiters counts the goroutines waiting in singleflight for another
// goroutine's build (their stacks hold Group.Do and a WaitGroup wait).
func sharedWaiters() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("singleflight.(*Group).Do(")) && bytes.Contains(g, []byte("sync.(*WaitGroup).Wait")) {
			n++
		}
	}
	return n
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
	building := make(chan struct{})
	go func() {
		p, _ := c.load(7, "k", func() ([]byte, error) {
			builds++ // only this goroutine builds at generation 7
			close(building)
			<-release
			return []byte("page7"), nil
		})
		first <- p.body
	}()
	<-building
	const waiters = 5
	got := make(chan []byte, waiters)
	for range waiters {
		go func() {
			p, err := c.load(7, "k", func() ([]byte, error) {
				t.Error("a second build of the same page at the same generation")
				return nil, nil
			})
			if err != nil {
				t.Error(err)
			}
			got <- p.body
		}()
	}
	// Every waiter is inside the build's flight before it ends.
	waitFor(t, func() bool { return sharedWaiters() == waiters })

	// A newer generation builds its own page even while the old build runs.
	p, err := c.load(8, "k", func() ([]byte, error) { return []byte("page8"), nil })
	if err != nil || string(p.body) != "page8" {
		t.Fatalf("load at generation 8 = %q, %v", p.body, err)
	}
	close(release)
	if b := <-first; string(b) != "page7" {
		t.Fatalf("the builder got %q", b)
	}
	for range waiters {
		if b := <-got; string(b) != "page7" {
			t.Fatalf("a waiter got %q, want page7", b)
		}
	}
	if builds != 1 {
		t.Fatalf("%d builds at generation 7, want 1", builds)
	}
	// The generation-7 page, finished after generation 8's, is not kept.
	if p, ok := c.get(8, "k"); !ok || string(p.body) != "page8" {
		t.Fatalf("cache at generation 8 holds %q, %v", p.body, ok)
	}

	// Errors: shared with the waiters, never cached.
	boom := fmt.Errorf("store down")
	for i, want := range []error{boom, nil} {
		p, err := c.load(9, "e", func() ([]byte, error) {
			if i == 0 {
				return nil, boom
			}
			return []byte("ok"), nil
		})
		if err != want || (err == nil && string(p.body) != "ok") {
			t.Fatalf("load %d = %q, %v; want error %v", i, p.body, err, want)
		}
	}
}

// TestPageCacheBuildPanics: a build that panics gives its builder and its
// waiters an error (no empty page, no crash) and caches nothing.
func TestPageCacheBuildPanics(t *testing.T) {
	var c pageCache
	release := make(chan struct{})
	res := make(chan error, 2)
	building := make(chan struct{})
	go func() {
		_, err := c.load(1, "p", func() ([]byte, error) { close(building); <-release; panic("bug") })
		res <- err
	}()
	<-building
	go func() {
		_, err := c.load(1, "p", func() ([]byte, error) { return []byte("x"), nil })
		res <- err
	}()
	waitFor(t, func() bool { return sharedWaiters() == 1 })
	close(release)
	for range 2 {
		if err := <-res; err == nil {
			t.Fatal("a load of a build that panicked got no error")
		}
	}
	if _, ok := c.get(1, "p"); ok {
		t.Fatal("a page was cached from a build that panicked")
	}
}

// TestETagOf: a page's ETag follows its bytes alone.
func TestETagOf(t *testing.T) {
	if a, b := etagOf([]byte("one")), etagOf([]byte("two")); a == b || a != etagOf([]byte("one")) {
		t.Fatalf("etagOf: %s and %s", a, b)
	}
}

// waitFor waits for cond, with a generous deadline.
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
