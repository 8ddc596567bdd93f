// Package visitors tells the site's and the API's visitors apart and bounds
// what each may hold: the address that limits count (behind trusted reverse
// proxies, the one the outermost proxy saw), rates per address or account,
// the long-lived streams each address may hold open, and deadlines on
// writing to a client that stops reading.
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
// X-Forwarded-For (on its line, or a line of its own), it is the entry that
// many from the right: the entries left of it are whatever the client sent,
// and a client must not choose its own address. An IPv6 address counts by
// its /64, which one host usually holds whole.
func Addr(r *http.Request, trustedProxies int) string {
	if trustedProxies > 0 {
		if a, ok := forwardedFor(r.Header.Values("X-Forwarded-For"), trustedProxies); ok {
			return key(a)
		}
	}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return key(ap.Addr())
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// forwardedFor is the entry n from the right of X-Forwarded-For's lines,
// or the leftmost when there are fewer. It scans from the right, so a long
// header costs only the entries it passes.
func forwardedFor(lines []string, n int) (netip.Addr, bool) {
	var entry string
	for i := len(lines) - 1; i >= 0 && n > 0; i-- {
		line := lines[i]
		for n > 0 {
			k := strings.LastIndexByte(line, ',')
			entry, line = line[k+1:], line[:max(k, 0)]
			n--
			if k < 0 {
				break
			}
		}
	}
	entry = strings.TrimSpace(entry)
	if a, err := netip.ParseAddr(entry); err == nil {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(entry); err == nil { // a proxy that adds the port
		return ap.Addr(), true
	}
	return netip.Addr{}, false
}

// key is how an address is counted: IPv4 as itself, IPv6 by its /64.
func key(a netip.Addr) string {
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// Streams bounds open streams (server-sent events): in all, and per address.
type Streams struct {
	max, perAddr int

	mu     sync.Mutex
	open   int
	byAddr map[string]int
}

// NewStreams bounds streams to most in all and perAddr per address.
func NewStreams(most, perAddr int) *Streams {
	return &Streams{max: most, perAddr: perAddr, byAddr: map[string]int{}}
}

// Open counts a stream of addr, or says no when a bound is reached; done
// ends it.
func (s *Streams) Open(addr string) (done func(), ok bool) {
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
func (rt *Rate) Allow(key string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	now := time.Now()
	if now.Sub(rt.start) >= rt.window {
		rt.start = now
		rt.counts = map[string]int{} // a new map: clear would keep the buckets of the busiest window
	}
	rt.counts[key]++
	return rt.counts[key] <= rt.n
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

// Write writes b in pieces, renewing the deadline before each: a large
// event (a whole match's first snapshot) needs progress every Wait, not
// all of it within one.
func (d *DeadlineWriter) Write(b []byte) (int, error) {
	const piece = 32 << 10
	n := 0
	for len(b) > 0 {
		d.renew()
		k, err := d.ResponseWriter.Write(b[:min(len(b), piece)])
		n += k
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// Flush renews the deadline and flushes.
func (d *DeadlineWriter) Flush() {
	d.renew()
	if f, ok := d.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
