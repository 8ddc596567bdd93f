package linesandboxes

import "math/bits"

// Once no line is safe (every undrawn edge borders a box with two sides) and
// nothing can be taken, the board is chains and loops of two-sided boxes,
// and whoever moves must open one. With turns alternating whatever is
// captured, a chain of k boxes opened at one end is eaten one box a turn
// starting with the other player: the opener gets floor(k/2), the other
// ceil(k/2). After an odd chain the opener must open again (net -1), after
// an even one the other player must (net 0). A loop (always of even length
// on a grid) is eaten from both ends of the cut and its last line takes two
// boxes, so the opener gets k/2-1 and must open again (net -2). Playing
// this out (see chainValue) the player to move, facing a odd chains, e even
// ones and l loops, ends up +(a+2l) when e is odd (open an even chain and
// hand over an even number of them) and -(a+2l) when e is even. This is the
// middle game's missing knowledge: the safe phase is a fight over who will
// be to move at its end and over the parity of the even chains then.

// hasSafe reports whether some undrawn edge leaves no box with three sides.
func (p *position) hasSafe() bool {
	for w := range p.drawn {
		if ^p.drawn[w]&p.g.valid[w]&^p.unsafe[w] != 0 {
			return true
		}
	}
	return false
}

// safeCount counts the undrawn edges that give nothing.
func (p *position) safeCount() int {
	n := 0
	for w := range p.drawn {
		n += bits.OnesCount64(^p.drawn[w] & p.g.valid[w] &^ p.unsafe[w])
	}
	return n
}

// chainCounts splits the two-sided boxes into chains and loops and counts
// the odd chains, the even chains and the loops. A chain ends at the border
// or at a box with fewer than two sides (a junction, where several chains
// meet); junctions are counted as chain ends and their own boxes left out,
// a simplification: eating a chain next to a junction adds a side to it.
func (p *position) chainCounts() (odd, even, loops int) {
	odd, even, loops, _ = p.chainStructure()
	return odd, even, loops
}

// chainStructure is chainCounts, and whether the rule is to be trusted
// here: no junction, and no two open sides of one chain or loop next to each
// other on a line (where one line cuts a chain in two places at once, which
// the rule does not foresee). Parallel chains whose open sides line up do
// not matter: cutting both at once is like opening them one after the other.
func (p *position) chainStructure() (odd, even, loops int, clean bool) {
	var seen uint64
	var comp [MaxSize * MaxSize]int8
	id := int8(0)
	clean = true
	for twos := p.two; twos != 0; twos &= twos - 1 {
		start := bits.TrailingZeros64(twos)
		if seen&(1<<start) != 0 {
			continue
		}
		id++
		seen |= 1 << start
		comp[start] = id
		length, loop, junction, _ := p.walkChain(start, func(box int) {
			seen |= 1 << box
			comp[box] = id
		})
		if junction {
			clean = false
		}
		switch {
		case loop:
			loops++
		case length%2 == 1:
			odd++
		default:
			even++
		}
	}
	if clean {
		clean = !p.selfPaired(&comp)
	}
	return odd, even, loops, clean
}

// walkChain follows the chain or loop of the two-sided box start both ways,
// calling visit on each of its other boxes. It returns its length in boxes,
// whether it is a loop, whether an end is a junction (a box with fewer than
// two sides) rather than the border, and an open side at its first end, the
// line that opens it there (for a loop, one of start's open sides).
func (p *position) walkChain(start int, visit func(box int)) (length int, loop, junction bool, end int) {
	sides := p.openSides(start)
	length, end = 1, -1
	for _, e := range sides {
		prev := start
		for {
			next := p.across(e, prev)
			if next < 0 || p.sides[next] != 2 {
				junction = junction || next >= 0
				if end < 0 {
					end = e
				}
				break
			}
			if next == start {
				return length, true, junction, sides[0]
			}
			visit(next)
			length++
			s := p.openSides(next)
			if s[0] == e {
				e = s[1]
			} else {
				e = s[0]
			}
			prev = next
		}
	}
	return length, false, junction, end
}

// selfPaired reports whether two open sides next to each other on a line
// belong to the same chain or loop (comp numbers each box's).
func (p *position) selfPaired(comp *[MaxSize * MaxSize]int8) bool {
	compOf := func(e int) int8 {
		for _, b := range p.g.edgeBoxes[e] {
			if b >= 0 && comp[b] != 0 {
				return comp[b]
			}
		}
		return 0
	}
	for li := range p.g.lines {
		edges := p.g.lines[li].edges
		for i := 1; i < len(edges); i++ {
			if !p.drawn.has(edges[i-1]) && !p.drawn.has(edges[i]) && compOf(edges[i-1]) == compOf(edges[i]) {
				return true
			}
		}
	}
	return false
}

// chainValue is the net boxes the player to move gets from a position with
// no safe line and nothing to take, by the rule above.
func (p *position) chainValue() int {
	return ruleValue(p.chainCounts())
}

// ruleValue is the rule's value for the player who must open, facing odd
// chains, even chains and loops.
func ruleValue(odd, even, loops int) int {
	v := odd + 2*loops
	if even%2 == 0 {
		return -v
	}
	return v
}

// openSides are the two undrawn edges of a two-sided box.
func (p *position) openSides(box int) [2]int {
	var out [2]int
	n := 0
	for _, e := range p.g.boxEdges[box] {
		if !p.drawn.has(e) && n < 2 {
			out[n] = e
			n++
		}
	}
	return out
}

// across is the box on the other side of edge e from box, or -1 for the
// border.
func (p *position) across(e, box int) int {
	bs := p.g.edgeBoxes[e]
	if bs[0] == box {
		return bs[1]
	}
	return bs[0]
}

// junctions counts the boxes with open sides but fewer than two drawn.
func (p *position) junctions() int {
	n := 0
	for b := 0; b < p.g.rows*p.g.cols; b++ {
		if p.sides[b] < 2 {
			n++
		}
	}
	return n
}

// loonyEdge is the loony playout's choice when no line is safe and nothing
// can be taken: by the rule above, open an even chain while their number is
// odd (the opener then hands the obligation over with an even number
// left), otherwise the shortest odd chain, then the shortest loop, then the
// shortest even chain, each at one end (a loop anywhere). A junction counts
// as a chain end. It returns the edge and its work in boxes looked at, or
// -1 when there is no two-sided box.
func (p *position) loonyEdge() (edge, looked int) {
	var seen uint64
	evens := 0
	type pick struct{ length, edge int }
	none := pick{1 << 10, -1}
	odd, even, loop := none, none, none
	for twos := p.two; twos != 0; twos &= twos - 1 {
		start := bits.TrailingZeros64(twos)
		if seen&(1<<start) != 0 {
			continue
		}
		seen |= 1 << start
		length, isLoop, _, end := p.walkChain(start, func(box int) { seen |= 1 << box })
		looked += length + 1 // the steps walkChain took
		if isLoop {
			looked--
		}
		switch {
		case isLoop:
			if length < loop.length {
				loop = pick{length, end}
			}
		case length%2 == 1:
			if length < odd.length {
				odd = pick{length, end}
			}
		default:
			evens++
			if length < even.length {
				even = pick{length, end}
			}
		}
	}
	if evens%2 == 1 {
		return even.edge, looked
	}
	for _, c := range []pick{odd, loop, even} {
		if c.edge >= 0 {
			return c.edge, looked
		}
	}
	return -1, looked
}
