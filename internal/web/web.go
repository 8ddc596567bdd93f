// Package web is the site: rules pages, the replay viewer, and games against
// the house bots in the browser, as one http.Handler with every template and
// asset embedded (html/template, plain JavaScript and SVG; no build step).
// `arena view` serves it for a local replay file; the server mounts it.
package web

import (
	"compress/gzip"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arenabots/arena/bot/humanbot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/visitors"
	"github.com/arenabots/arena/replay"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the site.
type Options struct {
	// Games are the games the site shows, in the order it lists them
	// (games.All()). Each brings its part of the site (siteGame).
	Games []game.Game
	// ReplayDir, when set, keeps the replays of games played in the browser
	// on disk, so their links survive a restart.
	ReplayDir string
	// Local is a replay to show at /local (arena view FILE).
	Local *replay.Replay
	// Service says that the platform's API (/api/v1/) is served beside the
	// site, so the Arena, + New bot and Leaderboard pages have data.
	Service bool
	// Platform is the platform's core, which the API serves too: what the
	// site reads itself (matches, their live turns, the Arena's lists, who
	// is logged in). With Service set and no Platform, those pages answer
	// 503.
	Platform Platform
	// Logger receives errors; slog.Default() when nil.
	Logger *slog.Logger
	// TrustedProxies is the number of reverse proxies in front of the
	// site that append to X-Forwarded-For (visitors.Addr).
	TrustedProxies int
}

// Site is the site's handler.
type Site struct {
	opts     Options
	mux      *http.ServeMux
	pages    map[string]*template.Template
	sessions *sessions
	streams  *visitors.Streams // the event streams open (eventStream)
	viewRate *visitors.Rate    // replay files opened (viewUpload)
	// finishedViews keeps finished matches' snapshots (matchEvents).
	finishedViews *viewCache
	local         *session
	log           *slog.Logger
	games         *catalog
	static        map[string]asset // the site's own files, by path under static/

	feeds feeds // the Arena pages' match lists (feeds.go)
}

// New makes the site.
func New(opts Options) (*Site, error) {
	s := &Site{opts: opts, mux: http.NewServeMux(), sessions: newSessions(defaultLimits, opts.ReplayDir), log: opts.Logger,
		streams:       visitors.NewStreams(maxEventStreams, maxEventStreamsPerAddr),
		viewRate:      visitors.NewRate(viewsPerMinute, time.Minute),
		finishedViews: newViewCache(64 << 20)}
	if s.log == nil {
		s.log = slog.Default()
	}
	var err error
	if s.games, err = newCatalog(opts.Games, templateFuncs); err != nil {
		return nil, err
	}
	s.sessions.lookup = s.lookupGame
	if err := s.parseTemplates(); err != nil {
		return nil, err
	}
	if s.static, err = readStatic(); err != nil {
		return nil, err
	}
	if opts.Local != nil {
		g := s.lookupGame(opts.Local.Game)
		if g == nil {
			return nil, fmt.Errorf("the replay is of an unknown game %q", opts.Local.Game)
		}
		local, err := s.sessions.addReplay(g, opts.Local)
		if err != nil {
			return nil, err
		}
		s.local = local
	}
	s.routes()
	return s, nil
}

// Close stops the games being played on the site.
func (s *Site) Close() { s.sessions.stopAll() }

func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	s.mux.ServeHTTP(w, r)
}

func (s *Site) routes() {
	s.mux.HandleFunc("GET /static/games/{game}/{file}", s.gameAsset)
	s.mux.HandleFunc("GET /static/{file}", s.staticAsset)
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /rules/{game}", s.rules)
	s.mux.HandleFunc("GET /play/{game}", s.playPage)
	s.mux.HandleFunc("POST /play/{game}", s.playStart)
	s.mux.HandleFunc("GET /s/{id}", s.sessionPage)
	s.mux.HandleFunc("GET /s/{id}/events", s.sessionEvents)
	s.mux.HandleFunc("GET /s/{id}/view.json", s.sessionView)
	s.mux.HandleFunc("GET /s/{id}/replay.json", s.sessionReplay)
	s.mux.HandleFunc("POST /s/{id}/move", s.sessionMove)
	s.mux.HandleFunc("POST /s/{id}/leave", s.sessionLeave)
	s.mux.HandleFunc("GET /view", s.viewPage)
	s.mux.HandleFunc("POST /view", s.viewUpload)
	s.mux.HandleFunc("GET /local", s.localPage)
	s.mux.HandleFunc("GET /kits/{lang}/{kit}", s.kitArchive)
	s.mux.HandleFunc("GET /download/{name}", s.arenaCommand)
	s.mux.HandleFunc("GET /favicon.ico", favicon)
	s.mux.HandleFunc("/", s.notFound)
	s.mux.HandleFunc("GET /play", s.choose("play", "Play built-ins", "house bots to play against"))
	s.mux.HandleFunc("GET /rules", s.choose("rules", "Rules", "rules"))
	s.mux.HandleFunc("GET /arena", s.choose("arena", "Arena", "Arena of live and finished matches"))
	s.mux.HandleFunc("GET /leaderboard", s.choose("leaderboard", "Leaderboard", "leaderboard"))
	if !s.opts.Service {
		for _, p := range []string{"/arena/{game}", "/bots/new", "/leaderboard/{game}", "/account", "/players/{handle}", "/bots/{id}", "/matches/{id}", "/admin"} {
			s.mux.HandleFunc("GET "+p, s.needsService)
		}
		return
	}
	s.mux.HandleFunc("GET /leaderboard/{game}", s.platformPage("leaderboard", "leaderboard", "Leaderboard"))
	s.mux.HandleFunc("GET /arena/{game}", s.platformPage("arena", "arena", "Arena"))
	s.mux.HandleFunc("GET /arena/{game}/events", s.arenaEvents)
	s.mux.HandleFunc("GET /bots/new", s.platformPage("newbot", "new", "New bot"))
	s.mux.HandleFunc("GET /bots/{id}", s.platformPage("bot", "", "Bot"))
	s.mux.HandleFunc("GET /players/{handle}", s.platformPage("player", "", "Player"))
	s.mux.HandleFunc("GET /account", s.platformPage("account", "", "Your account"))
	s.mux.HandleFunc("GET /matches/{id}", s.matchPage)
	s.mux.HandleFunc("GET /matches/{id}/events", s.matchEvents)
	s.mux.HandleFunc("GET /matches/{id}/replay.json", s.matchReplay)
	s.mux.HandleFunc("GET /me.json", s.me)
	s.mux.HandleFunc("GET /admin", s.adminPage)
	s.mux.HandleFunc("POST /admin/clear", s.adminClear)
}

// readStatic reads the site's own files (static/), each with its ETag.
func readStatic() (map[string]asset, error) {
	out := map[string]asset{}
	entries, err := staticFS.ReadDir("static")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			return nil, err
		}
		ctype := mime.TypeByExtension(path.Ext(e.Name()))
		if ctype == "" {
			ctype = http.DetectContentType(data)
		}
		out[e.Name()] = newAsset(data, ctype)
	}
	return out, nil
}

// staticAsset answers GET /static/{file}: the site's scripts, style sheet
// and icon.
func (s *Site) staticAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := s.static[r.PathValue("file")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	a.serve(w, r)
}

// lookupGame finds one of the site's games by id, or nil.
func (s *Site) lookupGame(id string) game.Game {
	if g := s.games.lookup(id); g != nil {
		return g
	}
	return nil
}

// gameView is what templates show of a game.
type gameView struct {
	ID, Name  string
	Players   []int
	HouseBots []game.HouseBotInfo
	Params    []game.ParamInfo
	Play      []playParam // the parameters the Play page offers
	Fuel      game.FuelPolicy
	Ties      bool // equal scores are a tie
	// Set in the list of every game (Site.allGames), for the layout and
	// the home page:
	CSS   bool          // the game has a style sheet
	Thumb template.HTML // its picture on the home page
}

// A playParam is a parameter on the Play page's forms: a number field.
type playParam struct {
	game.ParamInfo
	Step int // 2 for odd values only, else 1
}

func viewOf(g game.Game) gameView {
	i := g.Info()
	v := gameView{ID: i.ID, Name: i.Name, Players: i.Players, HouseBots: g.HouseBots(), Params: i.Params, Fuel: i.Fuel, Ties: i.Ties}
	for _, p := range i.Params {
		if p.Label == "" || !p.Int {
			continue
		}
		step := 1
		if p.Odd && p.Min%2 != 0 {
			step = 2
		}
		v.Play = append(v.Play, playParam{ParamInfo: p, Step: step})
	}
	return v
}

func (s *Site) allGames() []gameView {
	var out []gameView
	for _, g := range s.games.list {
		v := viewOf(g)
		f := s.games.files[v.ID]
		v.CSS, v.Thumb = f.css.data != nil, f.thumb
		out = append(out, v)
	}
	return out
}

// page is the data every template gets.
type page struct {
	Title   string
	Game    *gameView // the game whose navigation is shown, if any
	Games   []gameView
	Section string // which navigation entry is current
	Service bool
	Data    any
}

func (s *Site) render(w http.ResponseWriter, status int, name string, p page) {
	t := s.pages[name]
	if t == nil {
		http.Error(w, "no such page", http.StatusInternalServerError)
		return
	}
	p.Games = s.allGames()
	p.Service = s.opts.Service
	var buf strings.Builder
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		s.log.Error("rendering a page", "page", name, "err", err)
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, buf.String())
}

// fail shows an error page (or JSON for the script endpoints).
func (s *Site) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if strings.HasSuffix(r.URL.Path, ".json") || r.Method == http.MethodPost && r.Header.Get("Accept") == "application/json" {
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	s.render(w, status, "error", page{Title: http.StatusText(status), Section: sectionOf(r.URL.Path), Data: errorData{Message: msg, Next: nextStep(status)}})
}

// errorData is what an error page says: what went wrong, and what to do.
type errorData struct{ Message, Next string }

// nextStep is the error page's advice for a status.
func nextStep(status int) string {
	switch status {
	case http.StatusNotFound:
		return "Check the address, or go on from the links above: every game, its Arena, its Leaderboard and its Rules."
	case http.StatusBadRequest:
		return "Go back, correct what the message names, and send it again."
	case http.StatusForbidden:
		return "Log in as the owner (Log in, top right), or go back to a page of your own."
	case http.StatusRequestEntityTooLarge:
		return "Go back and send something smaller."
	case http.StatusTooManyRequests:
		return "Wait a minute, then try again."
	case http.StatusConflict:
		return "Wait until it ends, then reload this page."
	}
	return "Try again in a minute; if it keeps failing, tell whoever runs this site."
}

// notFound answers every path the site does not serve.
func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, http.StatusNotFound, "There is no page at "+strconv.Quote(r.URL.Path)+".")
}

// choose is a section without a game: it lists the games to pick from.
func (s *Site) choose(path, title, what string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.render(w, http.StatusOK, "choose", page{Title: title, Section: path, Data: map[string]string{"Path": path, "What": what}})
	}
}

// favicon is the icon for browsers that ask /favicon.ico whatever the page says.
func favicon(w http.ResponseWriter, r *http.Request) {
	data, _ := staticFS.ReadFile("static/favicon.svg")
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "max-age=86400")
	w.Write(data)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.Encode(v)
}

func (s *Site) gameOf(w http.ResponseWriter, r *http.Request) (game.Game, bool) {
	g := s.lookupGame(r.PathValue("game"))
	if g == nil {
		s.fail(w, r, http.StatusNotFound, "There is no game called "+strconv.Quote(r.PathValue("game"))+".")
		return nil, false
	}
	return g, true
}

func (s *Site) home(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, "home", page{Title: "Arena"})
}

func (s *Site) rules(w http.ResponseWriter, r *http.Request) {
	g, ok := s.gameOf(w, r)
	if !ok {
		return
	}
	gv := viewOf(g)
	s.render(w, http.StatusOK, "rules", page{Title: gv.Name + ": rules", Game: &gv, Section: "rules", Data: s.games.files[gv.ID].rules})
}

func (s *Site) needsService(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Needs the server", Section: sectionOf(r.URL.Path)}
	if g := s.lookupGame(r.PathValue("game")); g != nil {
		gv := viewOf(g)
		p.Game = &gv
	} else if g := s.lookupGame(r.URL.Query().Get("game")); g != nil {
		gv := viewOf(g)
		p.Game = &gv
	}
	s.render(w, http.StatusOK, "needs-service", p)
}

func sectionOf(path string) string {
	for _, s := range []string{"arena", "leaderboard", "play", "rules"} {
		if strings.HasPrefix(path, "/"+s) {
			return s
		}
	}
	if strings.HasPrefix(path, "/bots/new") {
		return "new"
	}
	return ""
}

// playData is the Play built-ins page's form.
type playData struct {
	Error string
}

func (s *Site) playPage(w http.ResponseWriter, r *http.Request) {
	g, ok := s.gameOf(w, r)
	if !ok {
		return
	}
	gv := viewOf(g)
	s.render(w, http.StatusOK, "play", page{Title: gv.Name + ": play", Game: &gv, Section: "play", Data: playData{}})
}

// playStart starts a game against the house or between house bots.
func (s *Site) playStart(w http.ResponseWriter, r *http.Request) {
	g, ok := s.gameOf(w, r)
	if !ok {
		return
	}
	gv := viewOf(g)
	const maxPlayForm = 16 << 10
	r.Body = http.MaxBytesReader(w, r.Body, maxPlayForm)
	badStatus := func(status int, msg string) {
		s.render(w, status, "play", page{Title: gv.Name + ": play", Game: &gv, Section: "play", Data: playData{Error: msg}})
	}
	bad := func(msg string) { badStatus(http.StatusBadRequest, msg) }
	if err := r.ParseForm(); err != nil {
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			badStatus(http.StatusRequestEntityTooLarge, fmt.Sprintf("The form is too large: at most %d KiB.", maxPlayForm>>10))
			return
		}
		bad("The form could not be read.")
		return
	}
	if !sameOrigin(r) {
		bad("The form came from another site.")
		return
	}
	players := 2
	if v := r.PostForm.Get("players"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || !g.Info().AllowsPlayers(n) {
			bad(fmt.Sprintf("%s is played by %v players.", gv.Name, gv.Players))
			return
		}
		players = n
	}
	isHouse := func(name string) bool {
		for _, hb := range gv.HouseBots {
			if hb.Name == name {
				return true
			}
		}
		return false
	}
	seats := make([]string, players)
	mode := r.PostForm.Get("mode")
	var delay time.Duration
	switch mode {
	case "play":
		opp := r.PostForm.Get("opponent")
		if !isHouse(opp) {
			bad("Pick a house bot to play against.")
			return
		}
		seat, err := strconv.Atoi(r.PostForm.Get("seat"))
		if err != nil || seat < 0 || seat >= players {
			bad("Pick your seat.")
			return
		}
		for i := range seats {
			seats[i] = opp
		}
		seats[seat] = "human"
	case "watch":
		for i := range seats {
			name := r.PostForm.Get("bot" + strconv.Itoa(i))
			if name == "" && i >= 2 {
				name = r.PostForm.Get("bot1")
			}
			if !isHouse(name) {
				bad("Pick a house bot for every seat.")
				return
			}
			seats[i] = name
		}
		delay = defaultWatchPace
		if pace := g.Info().Display.WatchPace; pace > 0 {
			delay = pace
		}
	default:
		bad("Choose to play or to watch.")
		return
	}
	params, msg := playParams(gv.Play, r.PostForm)
	if msg != "" {
		bad(msg)
		return
	}
	seed := rand.Uint64() >> 12 // fits a JSON number exactly
	if v := strings.TrimSpace(r.PostForm.Get("seed")); v != "" {
		n, err := strconv.ParseUint(v, 10, 52)
		if err != nil {
			bad("The seed is a whole number (at most 2^52).")
			return
		}
		seed = n
	}
	sess, err := s.sessions.start(startSpec{game: g, seed: seed, params: params, seats: seats, delay: delay, ip: s.clientIP(r)})
	if errors.Is(err, errBusy) {
		s.render(w, http.StatusTooManyRequests, "play", page{Title: gv.Name + ": play", Game: &gv, Section: "play",
			Data: playData{Error: "Too many games are running (at most 4 from one address at a time). Finish or leave one first."}})
		return
	}
	if err != nil {
		bad("The game could not start: " + err.Error())
		return
	}
	if sess.human >= 0 {
		http.SetCookie(w, &http.Cookie{Name: "play_" + sess.id, Value: sess.key, Path: "/s/" + sess.id,
			HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: 86400})
	}
	http.Redirect(w, r, "/s/"+sess.id, http.StatusSeeOther)
}

// defaultWatchPace is the pause between turns of house bots watched live,
// for a game whose Info.Display does not set one.
const defaultWatchPace = 250 * time.Millisecond

// playParams reads the Play form's parameter fields within the bounds the
// game declares; the game's New judges the rest. A message says what is
// wrong.
func playParams(offered []playParam, form url.Values) (game.Params, string) {
	params := game.Params{}
	for _, p := range offered {
		v := strings.TrimSpace(form.Get(p.Name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < p.Min || n > p.Max || p.Odd && n%2 == 0 {
			odd := ""
			if p.Odd {
				odd = ", odd"
			}
			return nil, fmt.Sprintf("%s is a whole number from %d to %d%s.", p.Label, p.Min, p.Max, odd)
		}
		params[p.Name] = strconv.Itoa(n)
	}
	return params, ""
}

// sameOrigin refuses form posts from other sites (a browser sends Origin on
// every POST; tools that send none are let through, as they carry no cookie
// of ours by accident).
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" && r.Header.Get("Sec-Fetch-Site") == "" {
		return r.Header.Get("Sec-Fetch-Site") == "" || r.Header.Get("Sec-Fetch-Site") == "same-origin"
	}
	return o == "http://"+r.Host || o == "https://"+r.Host
}

func (s *Site) clientIP(r *http.Request) string { return visitors.Addr(r, s.opts.TrustedProxies) }

func (s *Site) session(w http.ResponseWriter, r *http.Request) *session {
	if s.local != nil && r.PathValue("id") == s.local.id {
		return s.local // the file of arena view is never forgotten
	}
	sess := s.sessions.get(r.PathValue("id"))
	if sess == nil {
		s.fail(w, r, http.StatusNotFound, "This game is not here any more (games played in the browser are kept for a while, not for ever).")
	}
	return sess
}

// sessionInfo is what the session page's script is told, in data- attributes.
type sessionInfo struct {
	Events   string // the event stream, /s/ID/events by default
	Download string // the replay file
	Match    int64  // a platform match, 0 for a game of the site's own
	ID       string
	Mine     bool
	Human    int
	Bots     []string
	Players  int
	Rematch  *rematch // for the person who played: the same game, seats swapped
}

// rematch is the Play form's fields for the same game with the person in the
// next seat: same opponent, seed and parameters.
type rematch struct {
	Opponent string
	Seat     int
	Players  int
	Seed     uint64
	Params   [][2]string // sorted by name
}

func rematchOf(sess *session) *rematch {
	sp := sess.start
	if sp == nil || sess.human < 0 {
		return nil
	}
	rm := &rematch{Seat: (sess.human + 1) % len(sp.seats), Players: len(sp.seats), Seed: sp.seed}
	for _, name := range sp.seats {
		if name != "human" {
			rm.Opponent = name
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sp.params)) {
		rm.Params = append(rm.Params, [2]string{k, sp.params[k]})
	}
	return rm
}

func (s *Site) sessionPage(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	s.showSession(w, r, sess)
}

func (s *Site) showSession(w http.ResponseWriter, r *http.Request, sess *session) {
	gv := viewOf(sess.game)
	info := sessionInfo{ID: sess.id, Human: sess.human, Bots: sess.bots, Players: len(sess.bots),
		Events: "/s/" + sess.id + "/events", Download: "/s/" + sess.id + "/replay.json"}
	if c, err := r.Cookie("play_" + sess.id); err == nil && sess.key != "" && c.Value == sess.key {
		info.Mine = true
		info.Rematch = rematchOf(sess)
	}
	title := gv.Name + ": replay"
	if sess.human >= 0 {
		title = gv.Name + ": your game"
	}
	s.render(w, http.StatusOK, "session", page{Title: title, Game: &gv, Section: "play", Data: info})
}

func (s *Site) sessionView(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	cw, done := compress(w, r)
	defer done()
	writeJSON(cw, http.StatusOK, sess.snapshot())
}

func (s *Site) sessionReplay(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	rep := sess.replay()
	if rep == nil {
		s.fail(w, r, http.StatusConflict, "The game is still being played; its replay is ready when it ends.")
		return
	}
	data, err := rep.Marshal()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, "The replay could not be written.")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.json"`, rep.Game, sess.id))
	w.Write(data)
}

// sessionEvents streams a session as server-sent events: a snapshot, then
// every turn, every question to the person, and the end.
func (s *Site) sessionEvents(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	w, flusher, done, ok := s.eventStream(w, r)
	if !ok {
		return
	}
	defer done()
	snap, ch := sess.subscribe()
	writeEvent(w, snap)
	flusher.Flush()
	if ch == nil {
		writeEvent(w, sseEvent{"end", []byte("{}")})
		flusher.Flush()
		return
	}
	defer sess.unsubscribe(ch)
	pumpEvents(r.Context(), w, flusher, ch, func(ev sseEvent, ok bool) bool {
		if !ok {
			return false
		}
		writeEvent(w, ev)
		return ev.name != "end"
	})
}

// keepAlive is how often an idle event stream gets a comment line, so that
// proxies and browsers do not take the quiet for a dead connection.
const keepAlive = 20 * time.Second

// pumpEvents runs an event stream until the request ends or handle, given
// each value from ch (and whether ch is still open), says to stop; it
// flushes after every value and every keep-alive comment.
func pumpEvents[T any](ctx context.Context, w io.Writer, flusher http.Flusher, ch <-chan T, handle func(v T, ok bool) (more bool)) {
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			io.WriteString(w, ": ping\n\n")
		case v, ok := <-ch:
			if !handle(v, ok) {
				flusher.Flush()
				return
			}
		}
		flusher.Flush()
	}
}

// eventStream starts a server-sent event answer: the headers, and a writer
// that compresses when the browser allows it; done ends it.
func (s *Site) eventStream(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, http.Flusher, func(), bool) {
	if _, ok := w.(http.Flusher); !ok {
		s.fail(w, r, http.StatusInternalServerError, "streaming is not supported here")
		return nil, nil, nil, false
	}
	closeStream, ok := s.streams.Open(s.clientIP(r))
	if !ok {
		s.fail(w, r, http.StatusServiceUnavailable, "Too many live pages are open; close some, or try again later.")
		return nil, nil, nil, false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	conn := http.NewResponseController(w)
	cw, compressed := compressLevel(w, r, gzip.BestSpeed)
	// The keep-alive comments write every 20 s, so a visitor who reads
	// never waits core.StreamWriteWait.
	sw := &visitors.DeadlineWriter{ResponseWriter: cw, Conn: conn, Wait: core.StreamWriteWait}
	return sw, sw, func() { compressed(); closeStream() }, true
}

// The event streams open at once (live games, Arena pages, match views), in
// all and from one address: each holds a goroutine, a connection and a
// compressor's buffers (about half a megabyte), and one visitor must not
// take them all.
const (
	maxEventStreams        = 1024
	maxEventStreamsPerAddr = 16
)

func writeEvent(w io.Writer, ev sseEvent) {
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, ev.data)
}

func (s *Site) owner(w http.ResponseWriter, r *http.Request) *session {
	sess := s.session(w, r)
	if sess == nil {
		return nil
	}
	c, err := r.Cookie("play_" + sess.id)
	if err != nil || sess.hb == nil || c.Value != sess.key || !sameOrigin(r) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "Only the person who started this game can move in it."})
		return nil
	}
	return sess
}

// sessionMove takes the person's answer: the body is the answer line, judged
// by the game exactly like a bot's.
func (s *Site) sessionMove(w http.ResponseWriter, r *http.Request) {
	sess := s.owner(w, r)
	if sess == nil {
		return
	}
	turn, err := strconv.Atoi(r.URL.Query().Get("turn"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "which turn is this move for? (?turn=N)"})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, humanbot.MaxAnswer+1))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the move could not be read"})
		return
	}
	if err := sess.hb.Answer(turn, body); err != nil {
		status := http.StatusConflict
		if errors.Is(err, humanbot.ErrTooLong) {
			status = http.StatusRequestEntityTooLarge
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sessionLeave gives up a game: the rest is played with the game's defaults
// for the person's seat, and the replay is kept.
func (s *Site) sessionLeave(w http.ResponseWriter, r *http.Request) {
	sess := s.owner(w, r)
	if sess == nil {
		return
	}
	sess.hb.Close()
	w.WriteHeader(http.StatusNoContent)
}

// maxReplayUpload bounds a replay file opened in the browser. A 4-player
// replay of 400 turns of the largest game is about 600 KB.
const maxReplayUpload = 16 << 20

// viewsPerMinute bounds the replay files one address opens: rebuilding a
// long replay's frames takes seconds of CPU.
const viewsPerMinute = 10

func (s *Site) viewPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, "view", page{Title: "Open a replay"})
}

func (s *Site) viewUpload(w http.ResponseWriter, r *http.Request) {
	bad := func(status int, msg string) {
		s.render(w, status, "view", page{Title: "Open a replay", Data: msg})
	}
	if !sameOrigin(r) {
		bad(http.StatusForbidden, "The form came from another site.")
		return
	}
	if !s.viewRate.Allow(s.clientIP(r)) {
		bad(http.StatusTooManyRequests, fmt.Sprintf("At most %d replays a minute can be opened from one address; wait a minute.", viewsPerMinute))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxReplayUpload+64<<10)
	f, _, err := r.FormFile("replay")
	if err != nil {
		bad(http.StatusBadRequest, "Choose a replay file (at most 16 MiB), as written by arena match --replay.")
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReplayUpload+1))
	if err != nil || len(data) > maxReplayUpload {
		bad(http.StatusRequestEntityTooLarge, "The file is larger than 16 MiB.")
		return
	}
	// The answer's write deadline runs from the file's arrival.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(core.UploadWriteWait))
	sess, err := s.openReplay(data)
	if err != nil {
		bad(http.StatusBadRequest, err.Error())
		return
	}
	http.Redirect(w, r, "/s/"+sess.id, http.StatusSeeOther)
}

// openReplay reads replay bytes from a user and keeps them for the viewer.
func (s *Site) openReplay(data []byte) (*session, error) {
	rep, err := replay.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("This is not a replay this site can read: %v", err)
	}
	g := s.lookupGame(rep.Game)
	if g == nil {
		return nil, fmt.Errorf("The replay is of a game this site does not know (%q).", rep.Game)
	}
	sess, err := s.sessions.addReplay(g, rep)
	if err != nil {
		return nil, fmt.Errorf("The replay could not be shown: %v", err)
	}
	return sess, nil
}

func (s *Site) localPage(w http.ResponseWriter, r *http.Request) {
	if s.local == nil {
		s.fail(w, r, http.StatusNotFound, "No replay file was given (arena view FILE).")
		return
	}
	// A link to a turn of the file (/local?turn=N) opens that turn.
	to := "/s/" + s.local.id
	if n, err := strconv.Atoi(r.URL.Query().Get("turn")); err == nil && n >= 0 {
		to += "?turn=" + strconv.Itoa(n)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
