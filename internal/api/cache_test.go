package api

import "testing"

// TestETagMatches: the forms of If-None-Match a client sends.
func TestETagMatches(t *testing.T) {
	const tag = `"abc"`
	for h, want := range map[string]bool{
		`"abc"`: true, `W/"abc"`: true, `*`: true, `"x", "abc"`: true, ` "x" ,"abc" `: true,
		``: false, `"abd"`: false, `abc`: false, `"abc`: false,
	} {
		if got := etagMatches(h, tag); got != want {
			t.Errorf("etagMatches(%q) = %v, want %v", h, got, want)
		}
	}
}
