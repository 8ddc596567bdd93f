// Package api is the platform's JSON API under /api/v1/ (docs/api.md):
// accounts, sessions and tokens, games and their leaderboards, players, bots
// with their versions and rating history, matches (live and finished) with
// replays, live turns as server-sent events, uploads, challenges and the
// workers. What each endpoint reads or writes, and who may, is package
// internal/core's, which the site calls too; this package is the HTTP
// around it, a file per resource and every route in routes.go.
//
// Every input is hostile until checked: bodies are size-limited and decoded
// strictly, every refusal is a 4xx with a message in {"error": ...}, never a
// stack trace; sign-up, log-in and uploads are rate-limited per client
// address; requests authenticated by a session cookie must carry the
// session's CSRF token, while API tokens (Authorization: Bearer) need none,
// since a browser never sends them on its own.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/visitors"
)

// maxJSONBody bounds a JSON request body.
const maxJSONBody = 64 << 10

// Errorf makes a refusal (a *core.Error).
func Errorf(status int, format string, args ...any) *core.Error {
	return core.Errorf(status, format, args...)
}

// Options configures the API.
type Options struct {
	Log *slog.Logger
	// TrustedProxies is the number of reverse proxies in front of the
	// server, each appending to X-Forwarded-For: limits then count the
	// address the outermost one saw (visitors.Addr). Zero: the connection's.
	TrustedProxies int
	// Limits per client address per minute; zero for the defaults.
	SignupsPerMinute, LoginsPerMinute, UploadsPerMinute int
}

// API is the HTTP handler.
type API struct {
	c       *core.Core
	opt     Options
	log     *slog.Logger
	mux     *http.ServeMux
	signups *visitors.Rate
	logins  *visitors.Rate
	uploads *visitors.Rate
	// liveViews are the live views open (API.live).
	liveViews *visitors.Streams
}

// New makes the API handler over the platform's core.
func New(c *core.Core, opt Options) *API {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	or := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	a := &API{c: c, opt: opt, log: opt.Log, mux: http.NewServeMux(),
		signups:   visitors.NewRate(or(opt.SignupsPerMinute, 10), time.Minute),
		logins:    visitors.NewRate(or(opt.LoginsPerMinute, 20), time.Minute),
		uploads:   visitors.NewRate(or(opt.UploadsPerMinute, 10), time.Minute),
		liveViews: visitors.NewStreams(maxLiveStreams, maxLiveStreamsPerAddr),
	}
	a.routes()
	return a
}

type handler func(w http.ResponseWriter, r *http.Request) error

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
	e := a.refusal(r, err, start)
	if e == nil {
		return
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter/time.Second)))
	}
	if e.Status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "60") // the rates per minute count in windows of a minute
	}
	writeJSON(w, e.Status, map[string]string{"error": e.Msg})
}

// refusal is what the caller is told of err: nil when the request went
// away; an unexpected error is logged and said to be internal.
func (a *API) refusal(r *http.Request, err error, start time.Time) *core.Error {
	var e *core.Error
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &mbe):
		return Errorf(http.StatusRequestEntityTooLarge, "request body too large: the limit is %d bytes", mbe.Limit)
	case errors.Is(err, store.ErrNotFound):
		return Errorf(http.StatusNotFound, "not found")
	case errors.Is(err, context.Canceled):
		return nil
	}
	a.log.Error("api", "method", r.Method, "path", r.URL.Path, "err", err, "took", time.Since(start))
	return Errorf(http.StatusInternalServerError, "internal error")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	writeBody(w, status, core.Encode(v))
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// clientIP is the address rate limits count against.
func (a *API) clientIP(r *http.Request) string {
	return visitors.Addr(r, a.opt.TrustedProxies)
}
