package api

import "net/http"

func (a *API) leaderboard(w http.ResponseWriter, r *http.Request) error {
	game := r.PathValue("game")
	lq, err := a.c.ParseLeaderQuery(game, r.URL.Query())
	if err != nil {
		return err
	}
	p, err := a.c.LeaderboardPage(r.Context(), game, lq)
	if err != nil {
		return err
	}
	servePage(w, r, p)
	return nil
}
