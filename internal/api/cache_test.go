package api

import (
	"fmt"
	"testing"
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
