package api

import "net/http"

func (a *API) workers(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, a.c.Workers())
	return nil
}
