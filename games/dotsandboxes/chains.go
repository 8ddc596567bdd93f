package dotsandboxes

import (
	"math/bits"
	"sort"

	"github.com/arenabots/arena/game"
)

// chainsBot plays the endgame of Dots and Boxes the way the textbooks teach
// (Berlekamp, "The Dots and Boxes Game"):
//   - while safe edges remain, it searches the parity fight for the last safe
//     edge, valuing the position where safe edges run out by the chains and
//     loops left on the board;
//   - once none is left, it solves the rest exactly (endgame.go) when that
//     fits its budget, and otherwise counts chains as follows;
//   - when it must open something, it gives away what costs least, and hands
//     out a two-chain by its middle edge ("hard-hearted"), so the opponent
//     cannot decline it to keep control;
//   - when it is handed a chain or loop, it takes all but the last two boxes
//     (four for a loop) and declines those ("double-dealing") whenever keeping
//     control is worth more than the boxes given.
type chainsBot struct {
	seeded
	// stop, when set, is asked at every node of the searches whether to give
	// up as if over budget (SetStop).
	stop func() bool
	// loony is kept for the match: its values depend only on the
	// components, so what one move learnt the next need not pay for again.
	loony *loony
}

// SetStop has the bot's searches also ask stop at every node: a wasm
// build's budget, by the fuel left (internal/housebots/hostplay).
func (b *chainsBot) SetStop(stop func() bool) { b.stop = stop }

// safeSearchNodes bounds the parity search, so a move costs a few ms at most.
const safeSearchNodes = 200_000

func (b *chainsBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	if int(s.ToMove) != seat {
		return answer(s.FirstUndrawn())
	}
	return answer(b.choose(s, seat))
}

func (b *chainsBot) choose(s *State, seat int) Edge {
	bd := s.Board
	if b.loony == nil {
		b.loony = newLoony()
	}
	b.loony.stop, b.loony.stopped = b.stop, false
	closing, safe, _ := bd.classify()
	if safe == 0 {
		g := newEndgame()
		g.stop = b.stop
		if e, ok := g.bestMove(&bd); ok {
			return e
		}
	}
	switch {
	case closing != 0:
		return capture(&bd, closing, b.loony)
	case safe != 0:
		ps := newParitySearch()
		ps.stop, ps.loony = b.stop, b.loony
		if e, ok := ps.best(&bd, safe); ok {
			return e
		}
		return b.pick(s, seat, safe)
	}
	return sacrifice(&bd, b.loony)
}

// capture decides between taking and keeping control at the end of the
// last chain, by counting chains and loops (the fallback when the exact
// endgame search is over its budget, and the rule while safe edges remain).
func capture(bd *Board, closing uint64, l *loony) Edge {
	e, decline, given := bd.captureChoice(closing)
	if decline == NoEdge {
		return e
	}
	rest := *bd
	rest.takeAll()
	if _, safe, _ := rest.classify(); safe != 0 {
		return e // not the endgame yet: boxes now beat control later
	}
	v := l.value(components(&rest))
	// Taking all: given boxes now, then we must open (worth v to us).
	// Declining: the opponent gets them and must open (worth -v to us).
	if -given-v > given+v {
		return decline
	}
	return e
}

// sacrifice opens the component that costs least, with the least damaging
// edge: a two-chain by its middle edge.
func sacrifice(bd *Board, l *loony) Edge {
	comps := components(bd)
	best, bestVal := -1, 0
	for i := range comps {
		rest := append(append([]component(nil), comps[:i]...), comps[i+1:]...)
		v := l.open(comps[i], l.value(rest))
		if best < 0 || v > bestVal {
			best, bestVal = i, v
		}
	}
	c := comps[best]
	if c.kind == chain && c.size == 2 {
		if mid := c.edges & c.inner; mid != 0 {
			return Edge(bits.TrailingZeros64(mid))
		}
	}
	// Any edge opens it; the one that hands over fewest boxes at once is best.
	var pick Edge = NoEdge
	least := 0
	for m := c.edges; m != 0; m &= m - 1 {
		e := Edge(bits.TrailingZeros64(m))
		after := *bd
		after.Play(e)
		after.ToMove ^= 1
		if n := after.takeAll(); pick == NoEdge || n < least {
			pick, least = e, n
		}
	}
	return pick
}

type componentKind uint8

const (
	chain componentKind = iota
	loop
)

// A component is a chain (a path of boxes open at its ends) or a loop. Boxes
// with three or four undrawn sides are junctions where several chains meet;
// each junction is counted with its longest chain, and a chain that leaves
// and returns to the same junction is a loop through it. That is exact for
// the positions that matter most (a short chain hanging off a loop) and a
// fair approximation elsewhere.
type component struct {
	kind  componentKind
	size  int
	edges uint64 // the undrawn edges touching its boxes
	inner uint64 // the undrawn edges between two of its boxes
}

// components splits the open boxes of b into chains and loops.
func components(b *Board) []component {
	claimed := b.Owned[0] | b.Owned[1]
	free := b.Undrawn()
	degree := func(box int) int { return bits.OnesCount64(free & boxEdges[box]) }
	var comps []component
	armOf := [NumBoxes]int{}
	for i := range armOf {
		armOf[i] = -1
	}
	// ends[arm] are the junction boxes at the arm's ends (a box may repeat).
	var ends [][]int
	for start := 0; start < NumBoxes; start++ {
		if claimed&(1<<uint(start)) != 0 || armOf[start] >= 0 || degree(start) != 2 {
			continue
		}
		arm := len(comps)
		var c component
		var armEnds []int
		stack := []int{start}
		armOf[start] = arm
		for len(stack) > 0 {
			box := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			c.size++
			c.edges |= free & boxEdges[box]
			for m := free & boxEdges[box]; m != 0; m &= m - 1 {
				e := Edge(bits.TrailingZeros64(m))
				nb := otherBox(e, box)
				switch {
				case nb < 0:
				case degree(nb) != 2:
					armEnds = append(armEnds, nb)
				case armOf[nb] < 0:
					c.inner |= 1 << uint(e)
					armOf[nb] = arm
					stack = append(stack, nb)
				default:
					c.inner |= 1 << uint(e)
				}
			}
		}
		if len(armEnds) == 0 && bits.OnesCount64(c.inner) == c.size && c.size >= 4 {
			c.kind = loop // closed on itself, touching neither border nor junction
		}
		comps = append(comps, c)
		ends = append(ends, armEnds)
	}
	for box := 0; box < NumBoxes; box++ {
		if claimed&(1<<uint(box)) != 0 || degree(box) == 2 {
			continue
		}
		best, twice := -1, false
		for arm, armEnds := range ends {
			n := 0
			for _, j := range armEnds {
				if j == box {
					n++
				}
			}
			if n > 0 && (best < 0 || comps[arm].size > comps[best].size) {
				best, twice = arm, n == 2
			}
		}
		if best < 0 {
			comps = append(comps, component{size: 1, edges: free & boxEdges[box]})
			continue
		}
		comps[best].size++
		comps[best].edges |= free & boxEdges[box]
		if twice && comps[best].size >= 4 {
			comps[best].kind = loop
		}
	}
	return comps
}

// loony values endgames made only of chains and loops, where the player to
// move must open one. Values are net boxes for the player to move.
type loony struct {
	memo map[string]int
	// stop, when set, is asked at every valuation not memoised yet; once it
	// says stop, every such value is 0 and nothing more is memoised
	// (stopped), so the memo holds only exact values.
	stop    func() bool
	stopped bool
}

func newLoony() *loony { return &loony{memo: map[string]int{}} }

func (l *loony) value(comps []component) int {
	if len(comps) == 0 {
		return 0
	}
	key := make([]byte, len(comps))
	for i, c := range comps {
		key[i] = byte(c.kind)<<6 | byte(c.size)
	}
	sort.Slice(key, func(i, j int) bool { return key[i] < key[j] })
	if v, ok := l.memo[string(key)]; ok {
		return v
	}
	if l.stopped || (l.stop != nil && l.stop()) {
		l.stopped = true
		return 0
	}
	best := 0
	for i := range comps {
		rest := append(append([]component(nil), comps[:i]...), comps[i+1:]...)
		if v := l.open(comps[i], l.value(rest)); i == 0 || v > best {
			best = v
		}
	}
	if !l.stopped {
		l.memo[string(key)] = best
	}
	return best
}

// open is the value, to the player who opens c, when the rest is worth rest
// to whoever must open next. The opponent either takes everything and opens
// next, or keeps control by declining the last 2 boxes (4 of a loop).
func (l *loony) open(c component, rest int) int {
	k := c.size
	takeAll := k + rest
	keep := takeAll
	switch {
	case c.kind == loop:
		keep = k - 8 - rest
	case k >= 3:
		keep = k - 4 - rest
	}
	return -max(takeAll, keep)
}

// paritySearch plays out the fight over the last safe edges: whoever runs out
// of safe edges first must open a chain or loop.
type paritySearch struct {
	memo  map[uint64]int
	nodes int
	loony *loony
	stop  func() bool
}

func newParitySearch() *paritySearch {
	return &paritySearch{memo: map[uint64]int{}, loony: newLoony()}
}

// best returns the safe edge with the best value, or false when the search
// was too large to finish.
func (p *paritySearch) best(b *Board, safe uint64) (Edge, bool) {
	if bits.OnesCount64(safe) > 20 {
		return NoEdge, false
	}
	bestEdge, bestVal := NoEdge, 0
	for m := safe; m != 0; m &= m - 1 {
		e := Edge(bits.TrailingZeros64(m))
		next := *b
		next.Play(e)
		v, ok := p.value(&next)
		if !ok {
			return NoEdge, false
		}
		if bestEdge == NoEdge || -v > bestVal {
			bestEdge, bestVal = e, -v
		}
	}
	return bestEdge, true
}

func (p *paritySearch) value(b *Board) (int, bool) {
	if v, ok := p.memo[b.Drawn]; ok {
		return v, true
	}
	p.nodes++
	if p.nodes > safeSearchNodes || (p.stop != nil && p.stop()) {
		return 0, false
	}
	_, safe, _ := b.classify()
	var best int
	if safe == 0 {
		best = p.loony.value(components(b))
	} else {
		first := true
		for m := safe; m != 0; m &= m - 1 {
			next := *b
			next.Play(Edge(bits.TrailingZeros64(m)))
			v, ok := p.value(&next)
			if !ok {
				return 0, false
			}
			if first || -v > best {
				best, first = -v, false
			}
		}
	}
	p.memo[b.Drawn] = best
	return best, true
}
