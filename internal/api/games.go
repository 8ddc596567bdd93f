package api

import "net/http"

func (a *API) games(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]any{"games": a.c.Games()})
	return nil
}

func (a *API) game(w http.ResponseWriter, r *http.Request) error {
	g, err := a.c.Game(r.PathValue("game"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, g)
	return nil
}
