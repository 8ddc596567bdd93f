package visitors

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
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
		{"IPv6: by its /64", "[::1]:5000", []string{"2001:db8::1"}, 1, "2001:db8::/64"},
		{"IPv6 connection: by its /64", "[2001:db8:0:7::5]:5000", nil, 0, "2001:db8:0:7::/64"},
		{"a proxy that adds the port", "127.0.0.1:5000", []string{"1.2.3.4, 198.51.100.7:4711"}, 1, "198.51.100.7"},
		{"IPv6 with a port", "127.0.0.1:5000", []string{"[2001:db8::1]:443"}, 1, "2001:db8::/64"},
		{"unknown: the connection", "127.0.0.1:5000", []string{"unknown"}, 1, "127.0.0.1"},
		{"empty entries", "127.0.0.1:5000", []string{"1.2.3.4,,198.51.100.7"}, 1, "198.51.100.7"},
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

// TestWriteDeadlines: a response to a client that never reads fails its
// writes once the deadline passes, rather than block for good; a stream
// whose client reads goes on past the deadline, renewed at every write.
func TestWriteDeadlines(t *testing.T) {
	const wait = 300 * time.Millisecond
	blocked := make(chan error, 1)
	streamed := make(chan error, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<20)
		for range 256 { // far more than the sockets' buffers
			if _, err := w.Write(chunk); err != nil {
				blocked <- err
				return
			}
		}
		blocked <- nil
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		sw := &DeadlineWriter{ResponseWriter: w, Conn: http.NewResponseController(w), Wait: wait}
		for i := range 20 { // 1 s of events, past the request's own deadline
			if _, err := fmt.Fprintf(sw, "data: %d\n\n", i); err != nil {
				streamed <- err
				return
			}
			sw.Flush()
			time.Sleep(50 * time.Millisecond)
		}
		streamed <- nil
	})
	srv := httptest.NewServer(WriteDeadline(mux, wait))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/big") // and never read
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	select {
	case err := <-blocked:
		if err == nil {
			t.Error("256 MiB written to a client that reads nothing")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write to a client that reads nothing still blocks after 10 s")
	}

	resp, err = http.Get(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := <-streamed; err != nil || n == 0 {
		t.Errorf("a stream read as it came: %v after %d bytes; want all of it", err, n)
	}
}
