package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/api"
	"github.com/arenabots/arena/replay"
)

// The platform's pages (Leaderboard, Arena, + New bot, players, bots,
// accounts) are drawn in the browser from the JSON API (docs/api.md), which
// the server serves beside the site. The replay viewer needs the states of a
// match, which the site rebuilds from the API's replay, asked in-process with
// the visitor's own credentials.

// SetAPI gives the site the server's handler for /api/v1/ (the server makes
// it after the site, so it is set here rather than in Options).
func (s *Site) SetAPI(h http.Handler) {
	s.mu.Lock()
	s.api = h
	s.mu.Unlock()
}

func (s *Site) apiHandler() http.Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.api
}

// subRequest makes a GET to the API that carries the visitor's cookies and
// address, so the API applies its own rules (owners, rate limits).
func subRequest(ctx context.Context, r *http.Request, path string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, path, nil).WithContext(ctx)
	for _, h := range []string{"Cookie", "Authorization", "X-Forwarded-For"} {
		// Every line: a proxy may add its entry on a line of its own.
		if v := r.Header.Values(h); len(v) > 0 {
			req.Header[h] = slices.Clone(v)
		}
	}
	req.RemoteAddr = r.RemoteAddr
	req.Host = r.Host
	return req
}

// apiGet calls the API and decodes its JSON answer into dst.
func (s *Site) apiGet(r *http.Request, path string, dst any) (int, error) {
	h := s.apiHandler()
	if h == nil {
		return http.StatusServiceUnavailable, fmt.Errorf("the platform's API is not running here")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, subRequest(r.Context(), r, path))
	if rec.Code != http.StatusOK {
		var e struct{ Error string }
		json.Unmarshal(rec.Body.Bytes(), &e)
		if e.Error == "" {
			e.Error = http.StatusText(rec.Code)
		}
		return rec.Code, fmt.Errorf("%s", e.Error)
	}
	return rec.Code, json.Unmarshal(rec.Body.Bytes(), dst)
}

// platformMatch is what the site reads of the API's match.
type platformMatch struct {
	ID     int64             `json:"id"`
	Game   string            `json:"game"`
	Params map[string]string `json:"params"`
	Seed   string            `json:"seed"`
	State  string            `json:"state"`
	Reason string            `json:"reason"`
	Seats  []struct {
		Seat   int    `json:"seat"`
		Player string `json:"player"`
		Bot    string `json:"bot"`
		BotID  int64  `json:"bot_id"`
	} `json:"seats"`
	Replay json.RawMessage `json:"replay"`
}

func (m *platformMatch) live() bool { return m.State == "queued" || m.State == "running" }

func (m *platformMatch) names() []string {
	out := make([]string, len(m.Seats))
	for i, st := range m.Seats {
		out[i] = st.Player + "/" + st.Bot
	}
	return out
}

// platformMatchAt reads the match the path names from the API (path is the
// API's address of it, with %d for its number), or answers with why not.
func (s *Site) platformMatchAt(w http.ResponseWriter, r *http.Request, path string) (int64, *platformMatch, game.Game, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(w, r, http.StatusNotFound, "There is no such match: a match's address is /matches/ and its number.")
		return 0, nil, nil, false
	}
	var m platformMatch
	if code, err := s.apiGet(r, fmt.Sprintf(path, id), &m); err != nil {
		s.apiFail(w, r, code, err, fmt.Sprintf("There is no match %d. The Arena of each game lists the matches being played and the finished ones.", id))
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
	id, m, g, ok := s.platformMatchAt(w, r, "/api/v1/matches/%d?replay=0")
	if !ok {
		return
	}
	gv := viewOf(g)
	info := sessionInfo{ID: strconv.FormatInt(id, 10), Human: -1, Bots: m.names(), Players: len(m.Seats),
		Events: fmt.Sprintf("/matches/%d/events", id), Download: fmt.Sprintf("/matches/%d/replay.json", id), Match: id}
	s.render(w, http.StatusOK, "session", page{Title: fmt.Sprintf("%s: match %d", gv.Name, id), Game: &gv, Section: "arena", Data: info})
}

// matchReplay is a finished match's replay file with each seat's name as
// the site shows it (@player/bot), which the API's replay, naming each bot
// by its module's hash, does not carry.
func (s *Site) matchReplay(w http.ResponseWriter, r *http.Request) {
	id, m, _, ok := s.platformMatchAt(w, r, "/api/v1/matches/%d")
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
	for i, name := range m.names() {
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
	id, m, g, ok := s.platformMatchAt(w, r, "/api/v1/matches/%d?replay=0")
	if !ok {
		return
	}
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
	finished := func(m *platformMatch) {
		key := fmt.Sprintf("%d %s %s", m.ID, m.State, m.Reason)
		if data, ok := s.finishedViews.get(key); ok {
			sendData("init", data)
			send("end", map[string]any{"failed": m.Reason})
			return
		}
		if m.Replay == nil { // fetched without it
			var full platformMatch
			if _, err := s.apiGet(r, fmt.Sprintf("/api/v1/matches/%d", m.ID), &full); err != nil {
				send("end", map[string]any{"failed": err.Error()})
				return
			}
			m = &full
		}
		snap := snapshot{Human: -1, Prompt: -1, Failed: m.Reason}
		if len(m.Replay) > 0 {
			if rep, err := replay.Parse(m.Replay); err == nil {
				if v, err := buildViewLogs(g, rep, false); err == nil {
					v.Bots = m.names()
					snap.viewData = v
				}
			}
		}
		if snap.viewData == nil {
			if snap.Failed == "" {
				snap.Failed = "the match has no replay (" + m.State + ")"
			}
			snap.viewData = &viewData{Game: m.Game, Name: g.Info().Name, Players: len(m.Seats), Bots: m.names(), Frames: []json.RawMessage{}, Replay: json.RawMessage(`{"turns":[]}`), Done: true}
		}
		data, _ := json.Marshal(snap)
		s.finishedViews.put(key, data)
		sendData("init", data)
		send("end", map[string]any{"failed": snap.Failed})
	}
	if !m.live() {
		finished(m)
		return
	}
	seed, _ := strconv.ParseUint(m.Seed, 10, 64)
	st, err := g.New(game.Config{Seed: seed, Players: len(m.Seats), Params: game.Params(m.Params)})
	if err != nil {
		send("end", map[string]any{"failed": err.Error()})
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
	started := false
	// start sends the viewer the turns so far; the API's stream begins with
	// them, so a view opened late draws the board at once.
	start := func(past []json.RawMessage) {
		started = true
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
		send("init", snapshot{viewData: &viewData{Game: m.Game, Name: g.Info().Name, Players: len(m.Seats), Bots: m.names(),
			Frames: frames, Replay: partial}, Human: -1, Prompt: -1, Live: true, Queued: m.State == "queued" && len(kept) == 0})
		frames = nil
	}

	// Follow the API's live stream in-process.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		// The site counts this page's stream (eventStream); the API does
		// not count its own again.
		s.apiHandler().ServeHTTP(&pipeWriter{w: pw, h: http.Header{}}, subRequest(api.FromSite(ctx), r, fmt.Sprintf("/api/v1/matches/%d/live", id)))
		pw.Close()
	}()
	defer pr.Close()
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var event string
	for sc.Scan() {
		line := sc.Text()
		data, isData := strings.CutPrefix(line, "data: ")
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case isData && event == "turns" && !started:
			var past []json.RawMessage
			json.Unmarshal([]byte(data), &past)
			start(past)
		case isData && event == "turn":
			if !started {
				start(nil)
			}
			t, fr, ok := apply([]byte(data))
			if !ok {
				send("progress", map[string]int{"turn": t.Turn})
				continue
			}
			send("turn", map[string]any{"turn": t, "frame": fr})
		case isData && event == "end":
			var end platformMatch
			if _, err := s.apiGet(r, fmt.Sprintf("/api/v1/matches/%d", id), &end); err == nil {
				finished(&end)
			} else {
				send("end", map[string]any{"failed": err.Error()})
			}
			return
		}
	}
	if !started {
		start(nil)
	}
}

// me says who is logged in, for the pages' header: the API's /api/v1/me,
// but `null` with 200 for a visitor who is not, so that no logged-out page
// logs a failed request in the browser's console.
func (s *Site) me(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	var me json.RawMessage
	code, err := s.apiGet(r, "/api/v1/me", &me)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, me)
	case code == http.StatusUnauthorized:
		writeJSON(w, http.StatusOK, nil)
	default:
		writeJSON(w, code, map[string]string{"error": err.Error()})
	}
}

// pipeWriter is a ResponseWriter that streams a handler's body into a pipe.
type pipeWriter struct {
	w    *io.PipeWriter
	h    http.Header
	code int
}

func (p *pipeWriter) Header() http.Header { return p.h }
func (p *pipeWriter) WriteHeader(code int) {
	if p.code == 0 {
		p.code = code
	}
}
func (p *pipeWriter) Write(b []byte) (int, error) {
	if p.code == 0 {
		p.code = http.StatusOK
	}
	if p.code != http.StatusOK {
		return len(b), nil // an error answer ends the stream
	}
	return p.w.Write(bytes.Clone(b))
}
func (p *pipeWriter) Flush() {}

// apiFail shows the error page for an API answer that was not 200: missing
// says what is missing, in words, for a 404; other statuses keep the API's
// own message, which names the problem.
func (s *Site) apiFail(w http.ResponseWriter, r *http.Request, code int, err error, missing string) {
	switch {
	case code == http.StatusNotFound || code == http.StatusBadRequest:
		s.fail(w, r, http.StatusNotFound, missing)
	case code == http.StatusTooManyRequests:
		s.fail(w, r, code, "Too many requests from your address.")
	case code < 500:
		s.fail(w, r, code, "The server refused: "+err.Error()+".")
	default:
		s.log.Error("the site's request to the API failed", "path", r.URL.Path, "status", code, "err", err)
		s.fail(w, r, code, "The server could not answer.")
	}
}

// subject checks that the bot or player a page shows exists, so that a
// missing one gets an error page with its status, and tells its game.
func (s *Site) subject(w http.ResponseWriter, r *http.Request) (gameID string, ok bool) {
	var sub struct{ Game string }
	if id := r.PathValue("id"); id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n <= 0 {
			s.fail(w, r, http.StatusNotFound, "There is no such bot: a bot's address is /bots/ and its number, as the Leaderboard links it.")
			return "", false
		}
		if code, err := s.apiGet(r, fmt.Sprintf("/api/v1/bots/%d", n), &sub); err != nil {
			s.apiFail(w, r, code, err, fmt.Sprintf("There is no bot %d. The Leaderboard of each game lists its bots.", n))
			return "", false
		}
	}
	if h := r.PathValue("handle"); h != "" {
		if code, err := s.apiGet(r, "/api/v1/players/"+url.PathEscape(strings.TrimPrefix(h, "@")), &sub); err != nil {
			s.apiFail(w, r, code, err, "There is no player called "+strconv.Quote(h)+". The Leaderboard of each game links its players.")
			return "", false
		}
		sub.Game = ""
	}
	return sub.Game, true
}

// platformPage renders a page whose content the browser fetches from the API.
func (s *Site) platformPage(name, section, title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := page{Title: title, Section: section, Data: map[string]string{"handle": r.PathValue("handle"), "id": r.PathValue("id"), "maxUpload": strconv.Itoa(api.MaxUpload)}}
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
	q := "/api/v1/matches?game=" + url.QueryEscape(r.PathValue("game"))
	if b := r.URL.Query().Get("bot"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil || id <= 0 {
			s.fail(w, r, http.StatusBadRequest, "bot: a bot's number")
			return
		}
		q += "&bot=" + strconv.FormatInt(id, 10)
	}
	if s.apiHandler() == nil {
		s.fail(w, r, http.StatusServiceUnavailable, "the platform's API is not running here")
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
