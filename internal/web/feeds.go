package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// The Arena pages follow a game's match lists (docs/site.md). The lists are
// public, so every page that shows the same lists shares one feed: one
// goroutine asks the API in-process once a second while anyone watches, and
// wakes its pages when a list changed. A thousand open pages cost what one
// does.

// feedTick is how often a feed asks the API.
const feedTick = time.Second

// feedLists are a feed's lists as the API last gave them: the event name and
// its data, in the order they are sent.
type feedLists [][2]string

type feeds struct {
	mu    sync.Mutex
	byKey map[string]*feed
}

type feed struct {
	lists feedLists
	subs  map[chan struct{}]bool
	stop  context.CancelFunc
}

// follow subscribes to the feed of the API list query q (a path and query
// without state=, limit=). The channel receives a token whenever the lists
// changed; lists reads them; leave ends the subscription.
func (s *Site) follow(q string) (changed chan struct{}, lists func() feedLists, leave func()) {
	fs := &s.feeds
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.byKey == nil {
		fs.byKey = map[string]*feed{}
	}
	f := fs.byKey[q]
	if f == nil {
		ctx, cancel := context.WithCancel(context.Background())
		f = &feed{subs: map[chan struct{}]bool{}, stop: cancel}
		fs.byKey[q] = f
		go s.poll(ctx, q, f)
	}
	changed = make(chan struct{}, 1)
	f.subs[changed] = true
	if f.lists != nil {
		changed <- struct{}{}
	}
	lists = func() feedLists {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return f.lists
	}
	leave = func() {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		delete(f.subs, changed)
		if len(f.subs) == 0 {
			f.stop()
			delete(fs.byKey, q)
		}
	}
	return changed, lists, leave
}

// poll asks the API for a feed's lists until the feed has no subscriber.
func (s *Site) poll(ctx context.Context, q string, f *feed) {
	tick := time.NewTicker(feedTick)
	defer tick.Stop()
	var live, finished [2]string
	for n := 0; ; n++ {
		next := s.list("live", q+"&state=live&limit=20")
		// A match leaves the live list when it ends; one that was queued
		// and ended between two looks shows up at the next full look.
		if next != live || n%5 == 0 {
			finished = s.list("finished", q+"&state=finished&limit=25")
		}
		live = next
		lists := feedLists{live, finished}
		s.feeds.mu.Lock()
		if f.lists == nil || f.lists[0] != lists[0] || f.lists[1] != lists[1] {
			f.lists = lists
			for ch := range f.subs {
				select {
				case ch <- struct{}{}:
				default: // already woken
				}
			}
		}
		s.feeds.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// list asks the API for one public list, as an event: name and the API's
// answer, or "failed" and why.
func (s *Site) list(name, path string) [2]string {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.RemoteAddr = "127.0.0.1:0"
	var raw json.RawMessage
	if _, err := s.apiGet(r, path, &raw); err != nil {
		return [2]string{"failed", string(mustMarshal(map[string]string{"error": err.Error()}))}
	}
	return [2]string{name, string(raw)}
}
