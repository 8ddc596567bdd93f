package dotsandboxes

import "math/bits"

// endgameNodes bounds the exact endgame search; past it, chainsBot falls back
// on counting chains and loops.
const endgameNodes = 100_000

// endgame solves positions with no safe edge left exactly: once every free
// edge gives a box its third side, no safe edge ever comes back, so the game
// is a sequence of openings and captures. A capture that is not the end of a
// chain is always worth taking, so at each node the mover either opens one
// edge, or takes a box, or (at a chain's end) declines the last boxes.
type endgame struct {
	memo  map[uint64]int8
	nodes int
	stop  func() bool // when set, asked at every node: give up as if over budget
}

func newEndgame() *endgame { return &endgame{memo: map[uint64]int8{}} }

// value returns the net boxes the player to move gets from b on, or false
// when the search ran over its budget.
func (g *endgame) value(b *Board) (int, bool) {
	if b.Over() {
		return 0, true
	}
	if v, ok := g.memo[b.Drawn]; ok {
		return int(v), true
	}
	if g.nodes++; g.nodes > endgameNodes || (g.stop != nil && g.stop()) {
		return 0, false
	}
	best, ok := g.best(b)
	if !ok {
		return 0, false
	}
	g.memo[b.Drawn] = int8(best)
	return best, true
}

// best is value without the memo: the best of the mover's real choices.
func (g *endgame) best(b *Board) (int, bool) {
	closing, _, _ := b.classify()
	if closing != 0 {
		take, decline, _ := b.captureChoice(closing)
		after := *b
		n := after.Play(take)
		v, ok := g.value(&after)
		if !ok {
			return 0, false
		}
		best := n + v
		if decline != NoEdge {
			after := *b
			after.Play(decline)
			v, ok := g.value(&after)
			if !ok {
				return 0, false
			}
			best = max(best, -v)
		}
		return best, true
	}
	first := true
	best := 0
	for free := b.Undrawn(); free != 0; free &= free - 1 {
		after := *b
		after.Play(Edge(bits.TrailingZeros64(free)))
		v, ok := g.value(&after)
		if !ok {
			return 0, false
		}
		if first || -v > best {
			best, first = -v, false
		}
	}
	return best, true
}

// bestMove returns the best move of the mover in a position with no safe
// edge, or false when the search ran over its budget.
func (g *endgame) bestMove(b *Board) (Edge, bool) {
	closing, _, _ := b.classify()
	candidates := b.Undrawn()
	if closing != 0 {
		take, decline, _ := b.captureChoice(closing)
		candidates = 1 << uint(take)
		if decline != NoEdge {
			candidates |= 1 << uint(decline)
		}
	}
	bestEdge, bestVal := NoEdge, 0
	for m := candidates; m != 0; m &= m - 1 {
		e := Edge(bits.TrailingZeros64(m))
		after := *b
		n := after.Play(e)
		v, ok := g.value(&after)
		if !ok {
			return NoEdge, false
		}
		if n == 0 {
			v = -v // the turn passed
		} else {
			v += n
		}
		if bestEdge == NoEdge || v > bestVal {
			bestEdge, bestVal = e, v
		}
	}
	return bestEdge, true
}
