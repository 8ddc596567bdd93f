package visitors

import (
	"net/http"
	"testing"
)

func TestAddr(t *testing.T) {
	for _, c := range []struct {
		name    string
		remote  string
		xff     []string
		proxies int
		want    string
	}{
		{"no proxy: the connection", "203.0.113.9:5000", []string{"1.2.3.4"}, 0, "203.0.113.9"},
		{"one proxy: what it appended", "127.0.0.1:5000", []string{"198.51.100.7"}, 1, "198.51.100.7"},
		{"one proxy, the client's own header left of it", "127.0.0.1:5000", []string{"1.2.3.4, 198.51.100.7"}, 1, "198.51.100.7"},
		{"one proxy, headers on two lines", "127.0.0.1:5000", []string{"1.2.3.4", "198.51.100.7"}, 1, "198.51.100.7"},
		{"two proxies", "127.0.0.1:5000", []string{"9.9.9.9, 198.51.100.7, 10.0.0.2"}, 2, "198.51.100.7"},
		{"fewer hops than proxies: the leftmost", "127.0.0.1:5000", []string{"198.51.100.7"}, 2, "198.51.100.7"},
		{"proxy, no header: the connection", "127.0.0.1:5000", nil, 1, "127.0.0.1"},
		{"garbage: the connection", "127.0.0.1:5000", []string{"1.2.3.4, <script>"}, 1, "127.0.0.1"},
		{"IPv6", "[::1]:5000", []string{"2001:db8::1"}, 1, "2001:db8::1"},
		{"IPv4 in IPv6", "[::1]:5000", []string{"::ffff:198.51.100.7"}, 1, "198.51.100.7"},
	} {
		r, _ := http.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		for _, h := range c.xff {
			r.Header.Add("X-Forwarded-For", h)
		}
		if got := Addr(r, c.proxies); got != c.want {
			t.Errorf("%s: Addr = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestStreams(t *testing.T) {
	s := NewStreams(3, 2)
	a1, ok1 := s.Open("a")
	_, ok2 := s.Open("a")
	if _, ok := s.Open("a"); !ok1 || !ok2 || ok {
		t.Fatalf("a's streams: %v %v, then a third %v; want two and no third", ok1, ok2, ok)
	}
	b1, ok := s.Open("b")
	if !ok {
		t.Fatal("b's first stream refused")
	}
	if _, ok := s.Open("c"); ok {
		t.Fatal("a fourth stream in all opened; the bound is 3")
	}
	a1()
	a1() // closing twice counts once
	if _, ok := s.Open("c"); !ok {
		t.Fatal("c refused after a closed one")
	}
	if _, ok := s.Open("d"); ok {
		t.Fatal("past the bound after a double close")
	}
	b1()
	if s.byAddr["b"] != 0 || len(s.byAddr) != 2 {
		t.Fatalf("counts after closing: %v", s.byAddr)
	}
}
