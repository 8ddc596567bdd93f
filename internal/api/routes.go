package api

import (
	"net/http"
	"strings"

	"github.com/arenabots/arena/internal/core"
)

// routes mounts every endpoint of the API (docs/api.md), each with the
// request body it takes (body.go), checked before its handler runs.
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
	// accounts.go
	h("POST /api/v1/accounts", bodyJSON, a.signup)
	h("POST /api/v1/sessions", bodyJSON, a.login)
	h("DELETE /api/v1/sessions", bodyNone, a.logout)
	h("POST /api/v1/tokens", bodyOwn, a.newToken)
	h("GET /api/v1/me", bodyNone, a.me)
	// games.go, leaderboard.go
	h("GET /api/v1/games", bodyNone, a.games)
	h("GET /api/v1/games/{game}", bodyNone, a.game)
	h("GET /api/v1/games/{game}/leaderboard", bodyNone, a.leaderboard)
	// uploads.go
	h("POST /api/v1/games/{game}/bots/{name}", bodyOwn, a.upload)
	// players.go, bots.go
	h("GET /api/v1/players/{handle}", bodyNone, a.player)
	h("GET /api/v1/bots/{id}", bodyNone, a.bot)
	h("GET /api/v1/bots/{id}/ratings", bodyNone, a.ratings)
	h("POST /api/v1/bots/{id}/retire", bodyNone, a.retire)
	// matches.go, replays.go, live.go
	h("GET /api/v1/matches", bodyNone, a.matches)
	h("GET /api/v1/matches/{id}", bodyNone, a.match)
	h("GET /api/v1/matches/{id}/replay", bodyNone, a.replay)
	h("GET /api/v1/matches/{id}/seats/{seat}/log", bodyNone, a.seatLog)
	h("GET /api/v1/matches/{id}/live", bodyNone, a.live)
	// challenges.go
	h("POST /api/v1/challenges", bodyJSON, a.challenge)
	// workers.go
	h("GET /api/v1/workers", bodyNone, a.workers)

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

// truncate cuts what a refusal quotes of the request.
var truncate = core.Truncate
