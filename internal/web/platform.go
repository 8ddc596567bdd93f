package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/replay"
)

// The platform's pages (Leaderboard, Arena, + New bot, players, bots,
// accounts) are drawn in the browser from the JSON API (docs/api.md), which
// the server serves beside the site. What the site draws or streams itself
// (a match in the viewer, its replay file, the Arena's lists, who is logged
// in, whether a bot or player exists) it reads from the platform's core
// (internal/core), the same functions and permission checks the API calls.

// Platform is what the site reads of the platform: internal/core.Core.
type Platform interface {
	Who(r *http.Request) (core.Caller, bool, error)
	Me(ctx context.Context, who core.Caller) (core.MeJSON, error)
	Bot(ctx context.Context, who core.Caller, id int64) (core.BotJSON, error)
	Player(ctx context.Context, who core.Caller, handle string) (core.PlayerJSON, error)
	Match(ctx context.Context, id int64, withReplay bool) (core.MatchJSON, error)
	Follow(ctx context.Context, id int64) (*core.Live, error)
	MatchesPage(ctx context.Context, f store.MatchFilter) (core.Page, error)
	IsAdmin(who core.Caller) bool
	AdminWorkers(who core.Caller) ([]core.AdminWorker, error)
	ClearWorker(who core.Caller, name string) error
}

// errNoPlatform answers a platform page on a site that was promised the
// platform (Options.Service) and not given it.
var errNoPlatform = core.Errorf(http.StatusServiceUnavailable, "the platform is not running here")

// platform is the site's Platform, or nil without one.
func (s *Site) platform() Platform { return s.opts.Platform }

// publicMessage is what a visitor is told of an error from the core: its
// message for a refusal, and no more than "internal error" otherwise.
func publicMessage(err error) string {
	var e *core.Error
	if errors.As(err, &e) && e.Status < 500 {
		return e.Msg
	}
	return "internal error"
}

// status is the HTTP status of an error from the core.
func status(err error) int {
	var e *core.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return http.StatusInternalServerError
}

// platformMatchAt reads the match the path names (with its replay when
// withReplay), or answers with why not.
func (s *Site) platformMatchAt(w http.ResponseWriter, r *http.Request, withReplay bool) (int64, *core.MatchJSON, game.Game, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(w, r, http.StatusNotFound, "There is no such match: a match's address is /matches/ and its number.")
		return 0, nil, nil, false
	}
	p := s.platform()
	if p == nil {
		s.platformFail(w, r, errNoPlatform, "")
		return 0, nil, nil, false
	}
	m, err := p.Match(r.Context(), id, withReplay)
	if err != nil {
		s.platformFail(w, r, err, fmt.Sprintf("There is no match %d. The Arena of each game lists the matches being played and the finished ones.", id))
		return 0, nil, nil, false
	}
	g := s.lookupGame(m.Game)
	if g == nil {
		s.fail(w, r, http.StatusNotFound, "The match is of an unknown game.")
		return 0, nil, nil, false
	}
	return id, &m, g, true
}

// matchPage shows a platform match in the viewer.
func (s *Site) matchPage(w http.ResponseWriter, r *http.Request) {
	id, m, g, ok := s.platformMatchAt(w, r, false)
	if !ok {
		return
	}
	gv := viewOf(g)
	info := sessionInfo{ID: strconv.FormatInt(id, 10), Human: -1, Bots: m.Names(), Players: len(m.Seats),
		Events: fmt.Sprintf("/matches/%d/events", id), Download: fmt.Sprintf("/matches/%d/replay.json", id), Match: id}
	s.render(w, http.StatusOK, "session", page{Title: fmt.Sprintf("%s: match %d", gv.Name, id), Game: &gv, Section: "arena", Data: info})
}

// matchReplay is a finished match's replay file with each seat's name as
// the site shows it (@player/bot), which the API's replay, naming each bot
// by its module's hash, does not carry.
func (s *Site) matchReplay(w http.ResponseWriter, r *http.Request) {
	id, m, _, ok := s.platformMatchAt(w, r, true)
	if !ok {
		return
	}
	if len(m.Replay) == 0 || string(m.Replay) == "null" {
		s.fail(w, r, http.StatusConflict, "The match has no replay yet: it is ready when the match ends.")
		return
	}
	rep, err := replay.Parse(m.Replay)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, "The match's replay could not be read: "+err.Error())
		return
	}
	for i, name := range m.Names() {
		if i < len(rep.Bots) {
			rep.Bots[i].Name = name
		}
	}
	data, err := rep.Marshal()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, "The replay could not be written.")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-match-%d.json"`, rep.Game, id))
	w.Write(data)
}

// matchEvents streams a platform match to the viewer: a finished one as one
// snapshot; a running one turn by turn from the API's live stream, rebuilding
// the states from the match's parameters and seed.
func (s *Site) matchEvents(w http.ResponseWriter, r *http.Request) {
	// Without the replay first: a finished match's snapshot may be cached.
	id, m, g, ok := s.platformMatchAt(w, r, false)
	if !ok {
		return
	}
	p := s.platform()
	w, flusher, done, ok := s.eventStream(w, r)
	if !ok {
		return
	}
	defer done()
	sendData := func(name string, data []byte) {
		writeEvent(w, sseEvent{name, data})
		flusher.Flush()
	}
	send := func(name string, v any) {
		data, _ := json.Marshal(v)
		sendData(name, data)
	}
	// finished sends a finished match whole. Its snapshot is kept
	// (finishedViews): rebuilding every state of a long match costs tens of
	// milliseconds, and anyone may open the page again and again.
	finished := func(m *core.MatchJSON) {
		key := fmt.Sprintf("%d %s %s", m.ID, m.State, m.Reason)
		if data, ok := s.finishedViews.get(key); ok {
			sendData("init", data)
			send("end", map[string]any{"failed": m.Reason})
			return
		}
		if m.Replay == nil { // fetched without it
			full, err := p.Match(r.Context(), m.ID, true)
			if err != nil {
				send("end", map[string]any{"failed": publicMessage(err)})
				return
			}
			m = &full
		}
		snap := snapshot{Human: -1, Prompt: -1, Failed: m.Reason}
		if len(m.Replay) > 0 {
			if rep, err := replay.Parse(m.Replay); err == nil {
				if v, err := buildViewLogs(g, rep, false); err == nil {
					v.Bots = m.Names()
					snap.viewData = v
				}
			}
		}
		if snap.viewData == nil {
			if snap.Failed == "" {
				snap.Failed = "the match has no replay (" + m.State + ")"
			}
			snap.viewData = &viewData{Game: m.Game, Name: g.Info().Name, Players: len(m.Seats), Bots: m.Names(), Frames: []json.RawMessage{}, Replay: json.RawMessage(`{"turns":[]}`), Done: true}
		}
		data, _ := json.Marshal(snap)
		s.finishedViews.put(key, data)
		sendData("init", data)
		send("end", map[string]any{"failed": snap.Failed})
	}
	if !m.Live() {
		finished(m)
		return
	}
	seed, _ := strconv.ParseUint(m.Seed, 10, 64)
	st, err := g.New(game.Config{Seed: seed, Players: len(m.Seats), Params: game.Params(m.Params)})
	if err != nil {
		send("end", map[string]any{"failed": publicMessage(err)})
		return
	}
	var f framer
	first, _ := f.frame(st)
	frames := []json.RawMessage{first}
	synced := true // false once a turn was missed: the states cannot be rebuilt
	// apply re-applies one turn of the live stream and sends nothing.
	apply := func(raw []byte) (replay.Turn, json.RawMessage, bool) {
		var t replay.Turn
		if !synced || json.Unmarshal(raw, &t) != nil || t.Turn != st.Turn()+1 || st.Done() {
			synced = false
			return t, nil, false
		}
		st.Apply(turnAnswers(st, &t))
		fr, err := f.frame(st)
		if err != nil {
			synced = false
			return t, nil, false
		}
		return t, fr, true
	}
	// start sends the viewer the turns so far, so that a view opened late
	// draws the board at once.
	start := func(past []json.RawMessage) {
		kept := []json.RawMessage{}
		for _, raw := range past {
			_, fr, ok := apply(raw)
			if !ok {
				break
			}
			frames = append(frames, fr)
			kept = append(kept, raw)
		}
		partial, _ := json.Marshal(map[string]any{"game": m.Game, "turns": kept})
		send("init", snapshot{viewData: &viewData{Game: m.Game, Name: g.Info().Name, Players: len(m.Seats), Bots: m.Names(),
			Frames: frames, Replay: partial}, Human: -1, Prompt: -1, Live: true, Queued: m.State == "queued" && len(kept) == 0})
		frames = nil
	}

	// Follow the match in the core: the turns so far, then each turn.
	l, err := p.Follow(r.Context(), id)
	if err != nil {
		send("end", map[string]any{"failed": publicMessage(err)})
		return
	}
	start(l.Past)
	for ev := range l.Events {
		if ev.End != nil {
			end, err := p.Match(r.Context(), id, true)
			if err != nil {
				send("end", map[string]any{"failed": publicMessage(err)})
				return
			}
			finished(&end)
			return
		}
		t, fr, ok := apply(ev.Turn)
		if !ok {
			send("progress", map[string]int{"turn": t.Turn})
			continue
		}
		send("turn", map[string]any{"turn": t, "frame": fr})
	}
}

// me says who is logged in, for the pages' header: the API's /api/v1/me,
// but `null` with 200 for a visitor who is not, so that no logged-out page
// logs a failed request in the browser's console.
func (s *Site) me(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	p := s.platform()
	if p == nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": errNoPlatform.Msg})
		return
	}
	who, ok, err := p.Who(r)
	if err == nil && !ok {
		writeJSON(w, http.StatusOK, nil)
		return
	}
	var me core.MeJSON
	if err == nil {
		me, err = p.Me(r.Context(), who)
	}
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, me)
	case status(err) == http.StatusUnauthorized:
		writeJSON(w, http.StatusOK, nil)
	case status(err) < 500:
		writeJSON(w, status(err), map[string]string{"error": err.Error()})
	default:
		s.log.Error("who is logged in", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "internal error"})
	}
}

// platformFail shows the error page for an error from the core: missing
// says what is missing, in words, for a 404; other refusals keep the core's
// own message, which names the problem.
func (s *Site) platformFail(w http.ResponseWriter, r *http.Request, err error, missing string) {
	code := status(err)
	switch {
	case code == http.StatusNotFound || code == http.StatusBadRequest:
		s.fail(w, r, http.StatusNotFound, missing)
	case code == http.StatusTooManyRequests:
		s.fail(w, r, code, "Too many requests from your address.")
	case code < 500:
		s.fail(w, r, code, "The server refused: "+err.Error()+".")
	default:
		s.log.Error("the site's read of the platform failed", "path", r.URL.Path, "status", code, "err", err)
		s.fail(w, r, code, "The server could not answer.")
	}
}

// subject checks that the bot or player a page shows exists, so that a
// missing one gets an error page with its status, and tells its game.
func (s *Site) subject(w http.ResponseWriter, r *http.Request) (gameID string, ok bool) {
	p := s.platform()
	if p == nil {
		s.platformFail(w, r, errNoPlatform, "")
		return "", false
	}
	who, _, err := p.Who(r)
	if err != nil {
		s.platformFail(w, r, err, "")
		return "", false
	}
	if id := r.PathValue("id"); id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n <= 0 {
			s.fail(w, r, http.StatusNotFound, "There is no such bot: a bot's address is /bots/ and its number, as the Leaderboard links it.")
			return "", false
		}
		b, err := p.Bot(r.Context(), who, n)
		if err != nil {
			s.platformFail(w, r, err, fmt.Sprintf("There is no bot %d. The Leaderboard of each game lists its bots.", n))
			return "", false
		}
		gameID = b.Game
	}
	if h := r.PathValue("handle"); h != "" {
		if _, err := p.Player(r.Context(), who, h); err != nil {
			s.platformFail(w, r, err, "There is no player called "+strconv.Quote(h)+". The Leaderboard of each game links its players.")
			return "", false
		}
	}
	return gameID, true
}

// platformPage renders a page whose content the browser fetches from the API.
func (s *Site) platformPage(name, section, title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := page{Title: title, Section: section, Data: map[string]string{"handle": r.PathValue("handle"), "id": r.PathValue("id"), "maxUpload": strconv.Itoa(core.MaxUpload)}}
		gid := r.PathValue("game")
		if gid == "" {
			gid = r.URL.Query().Get("game")
		}
		if name == "bot" || name == "player" {
			g, ok := s.subject(w, r)
			if !ok {
				return
			}
			gid = g
		}
		if g := s.lookupGame(gid); g != nil {
			gv := viewOf(g)
			p.Game = &gv
			p.Title = gv.Name + ": " + title
		} else if r.PathValue("game") != "" {
			s.fail(w, r, http.StatusNotFound, "There is no game called "+strconv.Quote(gid)+": the games are listed above.")
			return
		}
		s.render(w, http.StatusOK, name, p)
	}
}

// arenaEvents streams a game's match lists to its Arena page: `live` (the
// API's live matches) and `finished` (the newest finished ones), each sent
// first and then whenever it changes, so matches appear and finish on the
// page as they do. The pages that show the same lists share a feed
// (feeds.go).
func (s *Site) arenaEvents(w http.ResponseWriter, r *http.Request) {
	if s.lookupGame(r.PathValue("game")) == nil {
		s.fail(w, r, http.StatusNotFound, "There is no such game.")
		return
	}
	q := feedKey{game: r.PathValue("game")}
	if b := r.URL.Query().Get("bot"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil || id <= 0 {
			s.fail(w, r, http.StatusBadRequest, "bot: a bot's number")
			return
		}
		q.bot = id
	}
	if s.platform() == nil {
		s.fail(w, r, http.StatusServiceUnavailable, errNoPlatform.Msg)
		return
	}
	w, flusher, done, ok := s.eventStream(w, r)
	if !ok {
		return
	}
	defer done()
	changed, lists, leave := s.follow(q)
	defer leave()
	io.WriteString(w, ": following\n\n")
	flusher.Flush()
	sent := map[string]string{}
	pumpEvents(r.Context(), w, flusher, changed, func(struct{}, bool) bool {
		for _, ev := range lists() {
			if sent[ev[0]] != ev[1] {
				if ev[0] == "failed" {
					clear(sent) // the page shows the error in place of the lists
				} else {
					delete(sent, "failed")
				}
				sent[ev[0]] = ev[1]
				writeEvent(w, sseEvent{ev[0], []byte(ev[1])})
			}
		}
		return true
	})
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// viewCache keeps encoded snapshots of finished matches, bounded by bytes,
// the oldest going first. A finished match does not change; its state and
// reason are in the key all the same (a failed determinism check discards
// a finished match).
type viewCache struct {
	max int

	mu    sync.Mutex
	data  map[string][]byte
	order []string // oldest first
	bytes int
}

func newViewCache(maxBytes int) *viewCache {
	return &viewCache{max: maxBytes, data: map[string][]byte{}}
}

func (c *viewCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.data[key]
	return d, ok
}

// put keeps data under key, unless it alone would take more than a quarter
// of the cache.
func (c *viewCache) put(key string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.data[key]; ok || len(data) > c.max/4 {
		return
	}
	c.data[key] = data
	c.order = append(c.order, key)
	c.bytes += len(data)
	for c.bytes > c.max {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.data[old])
		delete(c.data, old)
	}
}
