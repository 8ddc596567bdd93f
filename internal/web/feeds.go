package web

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/arenabots/arena/internal/store"
)

// The Arena pages follow a game's match lists (docs/site.md). The lists are
// public, so every page that shows the same lists shares one feed: one
// goroutine reads them from the core once a second while anyone watches
// (the pages the API serves, cached until the lists change), and wakes its
// pages when a list changed. A thousand open pages cost what one does.

// feedTick is how often a feed reads its lists.
const feedTick = time.Second

// feedKey names the lists a feed follows: a game's matches, or one of its
// bots' (bot above 0).
type feedKey struct {
	game string
	bot  int64
}

// feedLists are a feed's lists as the core last gave them: the event name
// and its data (the API's JSON), in the order they are sent.
type feedLists [][2]string

type feeds struct {
	mu    sync.Mutex
	byKey map[feedKey]*feed
}

type feed struct {
	lists feedLists
	subs  map[chan struct{}]bool
	stop  context.CancelFunc
}

// follow subscribes to the feed of the lists q. The channel receives a token whenever the lists
// changed; lists reads them; leave ends the subscription.
func (s *Site) follow(q feedKey) (changed chan struct{}, lists func() feedLists, leave func()) {
	fs := &s.feeds
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.byKey == nil {
		fs.byKey = map[feedKey]*feed{}
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

// poll reads a feed's lists until the feed has no subscriber.
func (s *Site) poll(ctx context.Context, q feedKey, f *feed) {
	tick := time.NewTicker(feedTick)
	defer tick.Stop()
	var live, finished [2]string
	for n := 0; ; n++ {
		next := s.list(ctx, "live", store.MatchFilter{Game: q.game, BotID: q.bot, Live: true, Limit: 20})
		// A match leaves the live list when it ends; one that was queued
		// and ended between two looks shows up at the next full look.
		if next != live || n%5 == 0 {
			finished = s.list(ctx, "finished", store.MatchFilter{Game: q.game, BotID: q.bot, Limit: 25})
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

// list reads one public list, as an event: name and the API's JSON of it,
// or "failed" and why.
func (s *Site) list(ctx context.Context, name string, f store.MatchFilter) [2]string {
	p, err := s.platform().MatchesPage(ctx, f)
	if err != nil {
		if status(err) >= 500 && ctx.Err() == nil {
			s.log.Error("the Arena's lists", "game", f.Game, "bot", f.BotID, "err", err)
		}
		return [2]string{"failed", string(mustMarshal(map[string]string{"error": publicMessage(err)}))}
	}
	return [2]string{name, string(bytes.TrimSpace(p.Body))}
}
