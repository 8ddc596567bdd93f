package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/arenabots/arena/internal/store"
)

// pageCache keeps the encoded answers of the public lists (leaderboards and
// match lists), which are read far more often than the store changes. Each
// page is kept with the generation of the lists it shows
// (store.ListGeneration: a game's, or all games' for a list that spans
// them) and served while that generation stands, so a cached answer is
// never older than the database, and a match recorded in one game leaves
// the other games' pages in place. At most maxCachedPages pages and
// maxCachedBytes bytes are kept, whatever queries strangers make up.
//
// While matches run back to back a game's generation moves several times a
// second, so its pages are rebuilt often. A rebuild is shared (load): the
// requests for the same page at the same generation that arrive while it is
// being built wait for it instead of each querying the store, which under a
// steady rate of requests turned every change of generation into a burst
// of identical queries.
type pageCache struct {
	mu     sync.Mutex
	pages  map[string]page
	bytes  int
	builds singleflight.Group // keyed by page and generation
}

// page is one encoded answer, the generation it was read at, and its ETag.
type page struct {
	gen  uint64
	body []byte
	etag string
}

const (
	buildTimeout   = 30 * time.Second
	maxCachedPages = 256
	maxCachedBytes = 8 << 20
)

func (c *pageCache) get(gen uint64, key string) (page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pages[key]
	return p, ok && p.gen == gen
}

// put keeps p, read at generation p.gen (taken before the query ran),
// unless the cache already has the page from a later generation.
func (c *pageCache) put(key string, p page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, had := c.pages[key]
	if had && old.gen > p.gen {
		return // read before a write the cached page already shows
	}
	if len(p.body) > maxCachedBytes {
		return
	}
	if c.pages == nil || (!had && len(c.pages) >= maxCachedPages) || c.bytes-len(old.body)+len(p.body) > maxCachedBytes {
		c.pages, c.bytes, old = map[string]page{}, 0, page{}
	}
	c.bytes += len(p.body) - len(old.body)
	c.pages[key] = p
}

// load answers the page key at generation gen: from the cache, from a
// build of the same page at the same generation already under way, or by
// calling build and caching its answer. A build started at another
// generation is never shared: it may not show a write the caller has
// seen. An error (a panic in build too) is shared with the requests that
// waited, and not cached.
func (c *pageCache) load(gen uint64, key string, build func() ([]byte, error)) (page, error) {
	if p, ok := c.get(gen, key); ok {
		return p, nil
	}
	v, err, _ := c.builds.Do(strconv.FormatUint(gen, 10)+" "+key, func() (v any, err error) {
		defer func() {
			if r := recover(); r != nil {
				v, err = nil, fmt.Errorf("building the page: %v", r)
			}
		}()
		body, err := build()
		if err != nil {
			return nil, err
		}
		p := page{gen: gen, body: body, etag: etagOf(body)}
		c.put(key, p)
		return p, nil
	})
	if err != nil {
		return page{}, err
	}
	return v.(page), nil
}

// etagOf is a strong validator of an encoded page: a hash of its bytes, so
// that a rebuild at a newer generation that shows the same thing keeps it.
func etagOf(body []byte) string {
	h := fnv.New128a()
	h.Write(body)
	return fmt.Sprintf(`"%x"`, h.Sum(nil))
}

// Page is an encoded answer of a public list and its ETag (a hash of its
// bytes): the API serves it as is, the site streams it to its pages.
type Page struct {
	Body []byte
	ETag string
}

// cachedPage answers the page key of a public list of game ("" for a list
// that spans games) from the cache, or by calling build (which reads the
// store) and caching its answer. The build is shared by the callers that
// wait for it, so it does not end when the one that started it goes away
// (only at buildTimeout).
func (c *Core) cachedPage(ctx context.Context, game, key string, build func(context.Context) (any, error)) (Page, error) {
	p, err := c.pages.load(c.st.ListGeneration(game), key, func() ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), buildTimeout)
		defer cancel()
		v, err := build(ctx)
		if err != nil {
			return nil, err
		}
		return Encode(v), nil
	})
	return Page{Body: p.body, ETag: p.etag}, err
}

// botGames remembers the game of each bot a list was asked for: a bot's
// game never changes, and the bot lists are cached by that game's
// generation. It holds at most maxBotGames bots (then starts again), and
// only bots that exist.
type botGames struct {
	mu    sync.Mutex
	games map[int64]string
}

const maxBotGames = 10_000

// of is the game of bot id, or "" (every game) when it cannot be read.
func (b *botGames) of(ctx context.Context, st *store.Store, id int64) string {
	b.mu.Lock()
	g, ok := b.games[id]
	b.mu.Unlock()
	if ok {
		return g
	}
	bot, err := st.Bot(ctx, id)
	if err != nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.games == nil || len(b.games) >= maxBotGames {
		b.games = map[int64]string{}
	}
	b.games[id] = bot.Game
	return bot.Game
}

// Encode is v as the API writes JSON: HTML-escaped, one line.
func Encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
	return buf.Bytes()
}
