// Package visitors tells the site's and the API's visitors apart: the
// address that rate limits count (behind trusted reverse proxies, the one
// the outermost proxy saw), and bounds on the long-lived streams each
// address may hold open.
package visitors

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Addr is the client address of r that limits count against. With
// trustedProxies zero it is the connection's; behind that many reverse
// proxies, each appending the address it was called from to
// X-Forwarded-For, it is the entry that many from the right: the entries
// left of it are whatever the client sent, and a client must not choose
// its own address.
func Addr(r *http.Request, trustedProxies int) string {
	if trustedProxies > 0 {
		var hops []string
		for _, h := range r.Header.Values("X-Forwarded-For") {
			hops = append(hops, strings.Split(h, ",")...)
		}
		if len(hops) > 0 {
			i := max(len(hops)-trustedProxies, 0)
			if a, err := netip.ParseAddr(strings.TrimSpace(hops[i])); err == nil {
				return a.Unmap().String()
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Streams bounds open streams (server-sent events): in all, and per address.
type Streams struct {
	max, perAddr int

	mu     sync.Mutex
	open   int
	byAddr map[string]int
}

// NewStreams bounds streams to max in all and perAddr per address.
func NewStreams(max, perAddr int) *Streams {
	return &Streams{max: max, perAddr: perAddr, byAddr: map[string]int{}}
}

// Open counts a stream of addr, or says no when a bound is reached; close
// ends it.
func (s *Streams) Open(addr string) (close func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open >= s.max || s.byAddr[addr] >= s.perAddr {
		return nil, false
	}
	s.open++
	s.byAddr[addr]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.open--
			if s.byAddr[addr]--; s.byAddr[addr] == 0 {
				delete(s.byAddr, addr)
			}
		})
	}, true
}

// Rate counts events per key (an address, an account) in fixed windows: a
// key gets n per window. Its memory is bounded by the keys of one window.
type Rate struct {
	n      int
	window time.Duration

	mu     sync.Mutex
	start  time.Time
	counts map[string]int
}

// NewRate allows n events per window to each key.
func NewRate(n int, window time.Duration) *Rate {
	return &Rate{n: n, window: window, counts: map[string]int{}}
}

// Allow counts one event of key and reports whether it is within the rate.
func (l *Rate) Allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(l.start) >= l.window {
		l.start = now
		clear(l.counts)
	}
	l.counts[key]++
	return l.counts[key] <= l.n
}

// WriteDeadline gives every response of h a write deadline d from the
// request's start: a client that stops reading must not pin a response (a
// replay of megabytes) in the server for good. Streams renew theirs with a
// DeadlineWriter.
func WriteDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
		h.ServeHTTP(w, r)
	})
}

// DeadlineWriter writes a stream (server-sent events), renewing the
// connection's write deadline before every write and flush: a visitor who
// reads keeps the stream for as long as it lasts, one who stops reading
// loses it Wait after the first write that blocks.
type DeadlineWriter struct {
	http.ResponseWriter                          // what the stream writes to (it may compress)
	Conn                *http.ResponseController // of the server's own ResponseWriter
	Wait                time.Duration
}

func (d *DeadlineWriter) renew() { _ = d.Conn.SetWriteDeadline(time.Now().Add(d.Wait)) }

func (d *DeadlineWriter) Write(b []byte) (int, error) {
	d.renew()
	return d.ResponseWriter.Write(b)
}

// Flush renews the deadline and flushes.
func (d *DeadlineWriter) Flush() {
	d.renew()
	if f, ok := d.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
