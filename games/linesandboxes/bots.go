package linesandboxes

import (
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

var _ game.Game = Game{}

// HouseBots are the bots written in Go for this game.
func (Game) HouseBots() []game.HouseBotInfo {
	return []game.HouseBotInfo{
		{Name: "random", Doc: "draws a uniformly random legal line", New: func(seed uint64, _ int) game.HouseBot {
			return &randomBot{src: rng.New(seed)}
		}},
		{Name: "greedy", Level: "Easy", Doc: "takes the most boxes it can, otherwise avoids giving boxes away", New: func(seed uint64, _ int) game.HouseBot {
			return &greedyBot{src: rng.New(seed)}
		}},
		{Name: "search", Level: "Medium", Doc: "alpha-beta with a transposition table and greedy playouts at the leaves", New: func(uint64, int) game.HouseBot {
			return newSearchBot(DefaultSearchBudget)
		}},
		{Name: "search-deep", Level: "Hard", Doc: "with strong, the strongest: the same search with three times the nodes, a bigger table, quiet lines up to three edges, and an exact search of every line from 18 edges left whenever 2,000,000 nodes finish it", New: func(uint64, int) game.HouseBot {
			return newDeepSearchBot()
		}},
		{Name: "strong", Doc: "search-deep that values the end of the safe phase by its chains (who must open, how many odd chains, even chains and loops are left) and whose playouts open chains by that rule", New: func(uint64, int) game.HouseBot {
			return newStrongBot()
		}},
	}
}

// houseMove turns a house bot's choice into its answer line, and makes any
// state that is not a live Lines and Boxes game get an empty answer (the
// default then applies) rather than a crash.
func houseMove(s game.State, choose func(p *position) move) []byte {
	st, ok := s.(*State)
	if !ok || st.Done() {
		return nil
	}
	p := st.position()
	return ActionJSON(p.segment(choose(&p)))
}

type randomBot struct{ src *rng.Source }

func (b *randomBot) Act(s game.State, _ int) []byte {
	return houseMove(s, func(p *position) move {
		moves := p.moves(nil)
		return moves[b.src.Intn(len(moves))]
	})
}

type greedyBot struct{ src *rng.Source }

func (b *greedyBot) Act(s game.State, _ int) []byte {
	return houseMove(s, func(p *position) move { return greedyMove(p, b.src) })
}

// greedyMove takes the most boxes it can; with nothing to take it draws a
// line that leaves no box with three sides, or else one that leaves fewest.
// Ties are broken at random.
func greedyMove(p *position, src *rng.Source) move {
	var best []move
	bestKey := -1 << 30
	for _, m := range p.moves(nil) {
		key := int(m.gain) * 1000
		if m.gain == 0 {
			key = -int(m.gives)
		}
		switch {
		case key > bestKey:
			best, bestKey = append(best[:0], m), key
		case key == bestKey:
			best = append(best, m)
		}
	}
	return best[src.Intn(len(best))]
}
