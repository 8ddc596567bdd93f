package api

import (
	"fmt"
	"net/http"
)

func (a *API) replay(w http.ResponseWriter, r *http.Request) error {
	id, err := matchID(r)
	if err != nil {
		return err
	}
	rep, err := a.c.Replay(r.Context(), id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="match-%d.json"`, id))
	w.Write(rep)
	return nil
}
