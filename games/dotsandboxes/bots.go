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
		{Name: "chains", Doc: "counts chains: fights for the last safe edge, then solves the endgame exactly, double-dealing to keep control",
			New: func(_ uint64, _ int) game.HouseBot { return &chainsBot{} }},
		{Name: "search-easy", Doc: "the search below with a small budget and no sacrifices while safe edges remain: an opponent for beginners",
			New: func(_ uint64, _ int) game.HouseBot { return newSearchBot(levelEasy) }},
		{Name: "search-medium", Doc: "the search below with a tenth of its budget",
			New: func(_ uint64, _ int) game.HouseBot { return newSearchBot(levelMedium) }},
		{Name: "search", Doc: "the strongest: alpha-beta over strings and coins with chain theory, a symmetric transposition table and exact loony endgames, limited by nodes",
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

// nthBit returns the index of the n-th set bit of mask (n from 0).
func nthBit(mask uint64, n int) Edge {
	for ; n > 0; n-- {
		mask &= mask - 1
	}
	return Edge(bits.TrailingZeros64(mask))
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

// classify splits the undrawn edges into those that close a box now, those
// that give no box its third side, and the rest.
func (b *Board) classify() (closing, safe, unsafe uint64) {
	// One pass over the boxes: an edge closes a box when one of its boxes
	// has three sides, and is unsafe when one has two.
	var three, two uint64
	for box := range boxEdges {
		switch bits.OnesCount64(b.Drawn & boxEdges[box]) {
		case 3:
			three |= boxEdges[box]
		case 2:
			two |= boxEdges[box]
		}
	}
	free := b.Undrawn()
	closing = free & three
	unsafe = free & two &^ three
	safe = free &^ (three | two)
	return
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
