package core

import (
	"net/http"

	"github.com/arenabots/arena/game"
)

// GameJSON describes a game and its rules' parameters.
type GameJSON struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Players   []int            `json:"players"`
	Params    []ParamJSON      `json:"params"`
	FuelJSON  map[string]int64 `json:"fuel"`
	Ties      bool             `json:"ties"`
	HouseBots []HouseBotJSON   `json:"house_bots"`
	Rules     string           `json:"rules"`      // the rules' file in the repository
	RulesPage string           `json:"rules_page"` // the site's page of them, from the server's root
}

// ParamJSON is one game parameter.
type ParamJSON struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

// HouseBotJSON is one house bot.
type HouseBotJSON struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

func gameJSON(g game.Game) GameJSON {
	info := g.Info()
	fuel := info.Fuel
	if fuel == (game.FuelPolicy{}) {
		fuel = game.DefaultFuel
	}
	out := GameJSON{ID: info.ID, Name: info.Name, Players: info.Players, Ties: info.Ties, Params: []ParamJSON{}, HouseBots: []HouseBotJSON{},
		FuelJSON: map[string]int64{"per_turn": fuel.PerTurn, "cap": fuel.Cap, "per_game": fuel.PerGame, "per_answer": fuel.PerAnswer},
		Rules:    "docs/games/" + info.ID + ".md", RulesPage: "/rules/" + info.ID}
	for _, p := range info.Params {
		out.Params = append(out.Params, ParamJSON{Name: p.Name, Default: p.Default, Doc: p.Doc})
	}
	for _, hb := range g.HouseBots() {
		out.HouseBots = append(out.HouseBots, HouseBotJSON{Name: hb.Name, Doc: hb.Doc})
	}
	return out
}

// Games lists every game.
func (c *Core) Games() []GameJSON {
	var out []GameJSON
	for _, g := range c.opt.Games {
		out = append(out, gameJSON(g))
	}
	return out
}

// Game is one game, by id.
func (c *Core) Game(id string) (GameJSON, error) {
	g, err := c.LookupGame(id)
	if err != nil {
		return GameJSON{}, err
	}
	return gameJSON(g), nil
}

// LookupGame finds a game by id, or refuses with 404.
func (c *Core) LookupGame(id string) (game.Game, error) {
	for _, g := range c.opt.Games {
		if g.Info().ID == id {
			return g, nil
		}
	}
	return nil, Errorf(http.StatusNotFound, "no game %q (GET /api/v1/games lists them)", Truncate(id, 64))
}
