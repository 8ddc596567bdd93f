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
