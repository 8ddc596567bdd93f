package api

import (
	"net/http"

	"github.com/arenabots/arena/internal/core"
)

func (a *API) challenge(w http.ResponseWriter, r *http.Request) error {
	c, err := a.mustAuth(r, "")
	if err != nil {
		return err
	}
	if err := checkOrigin(r); err != nil {
		return err
	}
	var req core.ChallengeRequest
	if err := readJSON(r, &req); err != nil {
		return err
	}
	id, err := a.c.Challenge(r.Context(), c, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]int64{"match": id})
	return nil
}
