package dotsandboxes

import (
	"math/bits"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// HouseBots lists the built-in players, weakest first.
func (Game) HouseBots() []game.HouseBotInfo {
	return []game.HouseBotInfo{
		{Name: "random", Doc: "draws a uniformly random undrawn edge",
			New: func(_ uint64, _ int) game.HouseBot { return &randomBot{} }},
		{Name: "greedy", Doc: "takes every box it can and never draws a box's third side while a safe edge is left",
			New: func(_ uint64, _ int) game.HouseBot { return &greedyBot{} }},
		{Name: "beginner", Level: "Beginner", Doc: "plays like a casual player: takes boxes and avoids third sides, but now and then overlooks a box or draws a third side, and never declines the last boxes of a chain; its slips come from its seed",
			New: func(seed uint64, _ int) game.HouseBot { return newBeginnerBot(seed) }},
		{Name: "chains", Doc: "counts chains: fights for the last safe edge, then solves the endgame exactly, double-dealing to keep control",
			New: func(_ uint64, _ int) game.HouseBot { return &chainsBot{} }},
		{Name: "search-easy", Level: "Easy", Doc: "the search below with a small budget and no sacrifices while safe edges remain: an opponent for people who know the endgame",
			New: func(_ uint64, _ int) game.HouseBot { return newSearchBot(levelEasy) }},
		{Name: "search-medium", Level: "Medium", Doc: "the search below with a tenth of its budget",
			New: func(_ uint64, _ int) game.HouseBot { return newSearchBot(levelMedium) }},
		{Name: "search", Level: "Hard", Doc: "the strongest: alpha-beta over strings and coins with chain theory, a symmetric transposition table and exact loony endgames, limited by nodes",
			New: func(_ uint64, _ int) game.HouseBot { return newSearchBot(levelHard) }},
	}
}

// seeded is the randomness of a house bot. Like a real bot it sees only the
// observation, so it folds the nonce (and its seat) into its stream.
type seeded struct {
	src *rng.Source
}

func (sd *seeded) pick(s *State, seat int, mask uint64) Edge {
	if sd.src == nil {
		sd.src = rng.New(rng.Mix(uint64(s.Nonce), uint64(seat)))
	}
	return nthBit(mask, sd.src.Intn(bits.OnesCount64(mask)))
}

func answer(e Edge) []byte { return e.AppendJSON(make([]byte, 0, 32)) }

type randomBot struct{ seeded }

func (b *randomBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	if int(s.ToMove) != seat {
		return answer(s.FirstUndrawn())
	}
	return answer(b.pick(s, seat, s.Undrawn()))
}

type greedyBot struct{ seeded }

func (b *greedyBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	if int(s.ToMove) != seat {
		return answer(s.FirstUndrawn())
	}
	closing, safe, unsafe := s.classify()
	switch {
	case closing != 0:
		return answer(b.pick(s, seat, closing))
	case safe != 0:
		return answer(b.pick(s, seat, safe))
	}
	return answer(b.pick(s, seat, unsafe))
}

// searchBot is the strongest house bot: an iterative-deepening alpha-beta
// search over the strings-and-coins game, limited by a node count so that
// a replay reruns it move for move. What it knows of the theory:
//   - captures that cannot hurt are taken at once, without branching; at the
//     end of a chain or loop the only choices are "take all" and "decline the
//     last two (four)" (captureChoice in chains.go);
//   - openings that hand over the same boxes the same way are one move, and
//     sacrifices while safe edges remain are tried (of any size at the hard
//     level, of one or two boxes at medium),
//     which is how a player who is losing the fight for control changes the
//     parity (the long chain rule);
//   - past the depth limit, a position with few enough safe edges is searched
//     on over safe edges only, to the end of the fight for the last one
//     (quiet search); where that stops, a position with no safe edge is
//     valued by the exact values of simple loony endgames (chains and loops,
//     loonyTable below), and one with many safe edges left by playing them
//     out in a fixed order and valuing what remains the same way, signed by
//     who must open first;
//   - the transposition table is keyed by the drawn edges under the eight
//     symmetries of the square board, since the mover's net future boxes
//     depend on nothing else;
//   - once no depth limit is hit, the search is exact and stops early; the
//     hard level first tries a search with no depth limit from 37 free edges.
type searchBot struct {
	lv searchLevel
	s  *searcher
}

func newSearchBot(lv searchLevel) game.HouseBot { return &searchBot{lv: lv} }

// SetStop has the search also ask stop at every node: a wasm build's budget,
// by the fuel left (internal/housebots/hostplay), on top of the level's
// node count.
func (b *searchBot) SetStop(stop func() bool) {
	if b.s == nil {
		b.s = newSearcher(b.lv)
	}
	b.s.stop = stop
}

func (b *searchBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	if int(s.ToMove) != seat || s.Over() {
		return answer(s.FirstUndrawn())
	}
	if b.s == nil {
		b.s = newSearcher(b.lv)
	}
	return answer(b.s.bestMove(&s.Board))
}
