// Package api is the platform's JSON API under /api/v1/ (docs/api.md):
// accounts, sessions and tokens, games and their leaderboards, players, bots
// with their versions and rating history, matches (live and finished) with
// replays, live turns as server-sent events, uploads and challenges.
//
// Every input is hostile until checked: bodies are size-limited and decoded
// strictly, every refusal is a 4xx with a message in {"error": ...}, never a
// stack trace; sign-up, log-in and uploads are rate-limited per client
// address; anything that touches a bot or a private log checks its owner;
// requests authenticated by a session cookie must carry the session's CSRF
// token, while API tokens (Authorization: Bearer) need none, since a browser
// never sends them on its own.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/visitors"
)

// HouseHandle is the account that owns the house bots.
const HouseHandle = "house"

// Limits.
const (
	MaxUpload   = 32 << 20 // bytes of a module
	maxJSONBody = 64 << 10
	pageDefault = 50
	pageMax     = 200
)

// Platform is what the API needs beyond the store: the parts that run
// matches (implemented by package internal/server).
type Platform interface {
	// Upload checks and stores a module as a new version of the account's
	// named bot, held to lim (a *store.LimitError when over), and runs its
	// smoke match; errors of type *Error are the uploader's to fix.
	Upload(ctx context.Context, acc store.Account, game, name string, wasm []byte, lim store.UploadLimits) (store.Bot, store.Version, error)
	// Challenge schedules an unrated match between active bots.
	Challenge(ctx context.Context, game string, bots []int64, seed uint64) (int64, error)
	// Live returns the turns of a running match so far (nil when they are
	// not all known) and calls fn with each later turn until stop is called.
	Live(matchID int64, fn func([]byte)) (past [][]byte, stop func(), err error)
}

// Error is a refusal with an HTTP status and a message for the user.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Errorf makes an *Error.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Msg: fmt.Sprintf(format, args...)}
}

// Options configures the API.
type Options struct {
	Log *slog.Logger
	// Games are the games the API serves (games.All()): the caller's list,
	// so that the API, like the site, names no particular game.
	Games []game.Game
	// TrustedProxies is the number of reverse proxies in front of the
	// server, each appending to X-Forwarded-For: limits then count the
	// address the outermost one saw (visitors.Addr). Zero: the connection's.
	TrustedProxies int
	// Limits per client address per minute; zero for the defaults.
	SignupsPerMinute, LoginsPerMinute, UploadsPerMinute int
	// ChallengesPerMinute limits each account's challenges; zero for the
	// default (10).
	ChallengesPerMinute int
	// UploadsPerDay limits the versions an account uploads in 24 hours,
	// and BotsPerGame the bots it has for one game; zero for the defaults
	// (DefaultUploadsPerDay, DefaultBotsPerGame). The API checks them
	// before it reads a module; the Platform holds uploads to them.
	UploadsPerDay, BotsPerGame int
}

// uploadLimits are the per-account upload limits, as of now.
func (a *API) uploadLimits() store.UploadLimits {
	return store.UploadLimits{PerDay: a.opt.UploadsPerDay, BotsPerGame: a.opt.BotsPerGame, Now: time.Now()}
}

// The per-account upload limits' defaults. Each upload is compiled, tried
// in a smoke match and kept for at least a day (up to 32 MiB), and each bot
// plays on its game's ladder; a per-address rate alone lets one account
// upload from many addresses. Peers: Kaggle takes 5 submissions a day,
// Halite one bot per player.
const (
	DefaultUploadsPerDay = 50
	DefaultBotsPerGame   = 10
)

// API is the HTTP handler.
type API struct {
	st      *store.Store
	p       Platform
	opt     Options
	log     *slog.Logger
	mux     *http.ServeMux
	signups *visitors.Rate
	logins  *visitors.Rate
	uploads *visitors.Rate
	// challenges counts by account: a challenge is a match on the
	// server's workers.
	challenges *visitors.Rate
	// tries counts upload attempts by account, a day at a time: one the
	// sandbox refuses to compile makes no version, so the daily limit on
	// versions does not see it, yet compiling is the dearest step.
	tries     *visitors.Rate
	liveViews *visitors.Streams // the live views open (API.live)
	pages     pageCache
	botGame   botGames
}

// New makes the API handler.
func New(st *store.Store, p Platform, opt Options) *API {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	or := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	opt.UploadsPerDay = or(opt.UploadsPerDay, DefaultUploadsPerDay)
	opt.BotsPerGame = or(opt.BotsPerGame, DefaultBotsPerGame)
	a := &API{st: st, p: p, opt: opt, log: opt.Log, mux: http.NewServeMux(),
		signups:    visitors.NewRate(or(opt.SignupsPerMinute, 10), time.Minute),
		logins:     visitors.NewRate(or(opt.LoginsPerMinute, 20), time.Minute),
		uploads:    visitors.NewRate(or(opt.UploadsPerMinute, 10), time.Minute),
		challenges: visitors.NewRate(or(opt.ChallengesPerMinute, 10), time.Minute),
		tries:      visitors.NewRate(2*opt.UploadsPerDay, 24*time.Hour),
		liveViews:  visitors.NewStreams(maxLiveStreams, maxLiveStreamsPerAddr),
	}
	a.routes()
	return a
}

type handler func(w http.ResponseWriter, r *http.Request) error

func (a *API) routes() {
	h := func(pattern string, body bodyRule, f handler) {
		a.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			a.serve(w, r, func(w http.ResponseWriter, r *http.Request) error {
				if err := checkBody(r, body); err != nil {
					return err
				}
				return f(w, r)
			})
		})
	}
	h("POST /api/v1/accounts", bodyJSON, a.signup)
	h("POST /api/v1/sessions", bodyJSON, a.login)
	h("DELETE /api/v1/sessions", bodyNone, a.logout)
	h("POST /api/v1/tokens", bodyOwn, a.newToken)
	h("GET /api/v1/me", bodyNone, a.me)
	h("GET /api/v1/games", bodyNone, a.games)
	h("GET /api/v1/games/{game}", bodyNone, a.game)
	h("GET /api/v1/games/{game}/leaderboard", bodyNone, a.leaderboard)
	h("POST /api/v1/games/{game}/bots/{name}", bodyOwn, a.upload)
	h("GET /api/v1/players/{handle}", bodyNone, a.player)
	h("GET /api/v1/bots/{id}", bodyNone, a.bot)
	h("GET /api/v1/bots/{id}/ratings", bodyNone, a.ratings)
	h("POST /api/v1/bots/{id}/retire", bodyNone, a.retire)
	h("GET /api/v1/matches", bodyNone, a.matches)
	h("GET /api/v1/matches/{id}", bodyNone, a.match)
	h("GET /api/v1/matches/{id}/replay", bodyNone, a.replay)
	h("GET /api/v1/matches/{id}/live", bodyNone, a.live)
	h("GET /api/v1/matches/{id}/seats/{seat}/log", bodyNone, a.seatLog)
	h("POST /api/v1/challenges", bodyJSON, a.challenge)
	a.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		a.serve(w, r, func(w http.ResponseWriter, r *http.Request) error {
			if allow := a.allowed(r); len(allow) > 0 {
				w.Header().Set("Allow", strings.Join(allow, ", "))
				return Errorf(http.StatusMethodNotAllowed, "%s is not allowed on %s: use %s (see docs/api.md)", truncate(r.Method, 16), r.URL.Path, strings.Join(allow, " or "))
			}
			return Errorf(http.StatusNotFound, "no such endpoint: %s %s (see docs/api.md)", truncate(r.Method, 16), r.URL.Path)
		})
	})
}

// routeMethods are the methods the API's routes use (HEAD comes with GET).
var routeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete}

// allowed lists the methods a route exists for at r's path. The catch-all
// "/api/" matches every method, so the mux never answers 405 itself: a
// known path asked with another method would otherwise read as unknown.
func (a *API) allowed(r *http.Request) []string {
	var out []string
	for _, m := range routeMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := a.mux.Handler(probe); pattern != "" && pattern != "/api/" {
			out = append(out, m)
		}
	}
	return out
}

func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	a.mux.ServeHTTP(w, r)
}

// serve runs a handler, turning its error into a JSON refusal; a panic or an
// unexpected error is logged and answered with a bare 500, never details.
func (a *API) serve(w http.ResponseWriter, r *http.Request, f handler) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			a.log.Error("api: panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p))
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "internal error"})
		}
	}()
	err := f(w, r)
	if err == nil {
		return
	}
	var e *Error
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &e):
	case errors.As(err, &mbe):
		e = Errorf(http.StatusRequestEntityTooLarge, "request body too large: the limit is %d bytes", mbe.Limit)
	case errors.Is(err, store.ErrNotFound):
		e = Errorf(http.StatusNotFound, "not found")
	case errors.Is(err, context.Canceled):
		return
	default:
		a.log.Error("api", "method", r.Method, "path", r.URL.Path, "err", err, "took", time.Since(start))
		e = Errorf(http.StatusInternalServerError, "internal error")
	}
	if e.Status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "60") // the rates per minute count in windows of a minute
	}
	writeJSON(w, e.Status, map[string]string{"error": e.Msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	writeBody(w, status, encodeJSON(v))
}

// clientIP is the address rate limits count against.
func (a *API) clientIP(r *http.Request) string {
	return visitors.Addr(r, a.opt.TrustedProxies)
}
