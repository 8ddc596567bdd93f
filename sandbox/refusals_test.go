package sandbox

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/arenabots/arena/internal/hashing"
)

// The refusal cache keeps the most recently used refusals and no more than
// its capacity.
func TestRefusalCacheIsBounded(t *testing.T) {
	c := newRefusalCache(3)
	for i := range 5 {
		c.put(fmt.Sprint(i), fmt.Errorf("refusal %d", i))
	}
	if c.len() != 3 {
		t.Fatalf("%d entries, want 3", c.len())
	}
	for _, gone := range []string{"0", "1"} {
		if _, ok := c.get(gone); ok {
			t.Errorf("entry %s survived, past the capacity", gone)
		}
	}
	// A lookup makes "2" the most recent: the next put forgets "3".
	if err, ok := c.get("2"); !ok || err.Error() != "refusal 2" {
		t.Fatalf("entry 2 = %v, %v", err, ok)
	}
	c.put("5", errors.New("refusal 5"))
	if _, ok := c.get("3"); ok {
		t.Error("entry 3 survived, though least recently used")
	}
	for _, kept := range []string{"2", "4", "5"} {
		if _, ok := c.get(kept); !ok {
			t.Errorf("entry %s forgotten", kept)
		}
	}
}

// A stranger offering ever new bad modules does not grow the Runtime's
// memory of them past maxRefusals, and a refusal still in it is answered
// from it.
func TestRuntimeRefusalsBounded(t *testing.T) {
	ctx := context.Background()
	for i := range maxRefusals + 50 {
		if _, err := testRT.Compile(ctx, fmt.Appendf(nil, "not wasm %d", i)); !IsRefused(err) {
			t.Fatalf("module %d: %v, want a refusal", i, err)
		}
	}
	testRT.mu.Lock()
	n := testRT.refused.len()
	_, first := testRT.refused.get(hashing.SHA256Hex([]byte("not wasm 0")))
	_, last := testRT.refused.get(hashing.SHA256Hex(fmt.Appendf(nil, "not wasm %d", maxRefusals+49)))
	testRT.mu.Unlock()
	if n > maxRefusals {
		t.Errorf("%d refusals remembered, more than %d", n, maxRefusals)
	}
	if first || !last {
		t.Errorf("oldest remembered %v (want false), newest %v (want true)", first, last)
	}
}
