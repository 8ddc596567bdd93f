package gridroyale

import (
	"github.com/arenabots/arena/game"
)

// HouseBots lists the built-in players, weakest first.
func (Game) HouseBots() []game.HouseBotInfo {
	return []game.HouseBotInfo{
		{Name: "idle", Doc: "never orders anything: its units stay and harvest where they stand (the rules page's minimal bot)",
			New: func(uint64, int) game.HouseBot { return idleBot{} }},
		{Name: "harvester", Level: "Easy", Doc: "sends each unit to the best cell near it, brings the cargo home when full, spawns while a unit can still pay for itself, keeps clear of the border",
			New: func(uint64, int) game.HouseBot { return &planner{opt: harvesterOptions} }},
		{Name: "house", Level: "Medium", Doc: "the strong one: plans trips by ore per turn, keeps laden units away from enemies, sends empty units to escort and to ram when the trade pays, moves in ahead of the border",
			New: func(uint64, int) game.HouseBot { return &planner{opt: houseOptions} }},
		{Name: "siege", Level: "Hard", Doc: "the strongest: house's economy, plus a sentry beside every rival base that makes banking unsafe and rams a laden rival stepping home, foreseen by modelling each rival",
			New: func(uint64, int) game.HouseBot { return newSiegeBot() }},
	}
}

type idleBot struct{}

func (idleBot) Act(game.State, int) []byte { return append([]byte(nil), noAction...) }
