package api

import (
	"net/http"

	"github.com/arenabots/arena/internal/core"
)

// botID is the bot the path names.
func botID(r *http.Request) (int64, error) { return core.ParseID("bot", r.PathValue("id")) }

func (a *API) bot(w http.ResponseWriter, r *http.Request) error {
	id, err := botID(r)
	if err != nil {
		return err
	}
	c, _, err := a.c.Who(r)
	if err != nil {
		return err
	}
	b, err := a.c.Bot(r.Context(), c, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}

func (a *API) ratings(w http.ResponseWriter, r *http.Request) error {
	id, err := botID(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var before int64
	if s := q.Get("before"); s != "" {
		if before, err = core.ParseID("before", s); err != nil {
			return err
		}
	}
	limit, err := core.ParseLimit(q.Get("limit"))
	if err != nil {
		return err
	}
	out, err := a.c.Ratings(r.Context(), id, before, limit)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) retire(w http.ResponseWriter, r *http.Request) error {
	c, err := a.mustAuth(r, "")
	if err != nil {
		return err
	}
	id, err := botID(r)
	if err != nil {
		return err
	}
	b, err := a.c.Retire(r.Context(), c, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}
