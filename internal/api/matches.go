package api

import (
	"net/http"

	"github.com/arenabots/arena/internal/core"
)

// matchID is the match the path names.
func matchID(r *http.Request) (int64, error) { return core.ParseID("match", r.PathValue("id")) }

func (a *API) matches(w http.ResponseWriter, r *http.Request) error {
	f, err := a.c.ParseMatchFilter(r.URL.Query())
	if err != nil {
		return err
	}
	p, err := a.c.MatchesPage(r.Context(), f)
	if err != nil {
		return err
	}
	servePage(w, r, p)
	return nil
}

func (a *API) match(w http.ResponseWriter, r *http.Request) error {
	id, err := matchID(r)
	if err != nil {
		return err
	}
	m, err := a.c.Match(r.Context(), id, r.URL.Query().Get("replay") != "0")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

func (a *API) seatLog(w http.ResponseWriter, r *http.Request) error {
	c, err := a.mustAuth(r, "")
	if err != nil {
		return err
	}
	id, err := matchID(r)
	if err != nil {
		return err
	}
	l, err := a.c.SeatLog(r.Context(), c, id, r.PathValue("seat"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, l)
	return nil
}
