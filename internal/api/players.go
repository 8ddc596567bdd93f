package api

import "net/http"

func (a *API) player(w http.ResponseWriter, r *http.Request) error {
	c, _, err := a.c.Who(r)
	if err != nil {
		return err
	}
	p, err := a.c.Player(r.Context(), c, r.PathValue("handle"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}
