package exact

import (
	"fmt"
	"math/bits"
	"slices"
)

// AlphaBeta solves whole boards that the brute-force Solver cannot reach
// (3x4 and beyond), after Barker and Korf ("Solving Dots-And-Boxes", AAAI
// 2012): alpha-beta over the drawn edges with null-window searches, a
// transposition table keyed by the smallest image of the position under
// the board's symmetries, and three rules that cut the moves at a
// capturable box:
//
//   - a capturable box whose capture leaves no other box capturable (its
//     missing side is on the border, or the box across it has at most one
//     side drawn, or three, so that the same line takes both) is taken at
//     once: any other move lets the opponent take it;
//   - the first box of a run of three or more boxes open at one end (the
//     boxes after it have two sides drawn, the run ends on the border or at
//     a box with at most one) is taken at once too: the choice that
//     matters, taking the last two boxes or leaving them, is still there
//     after it;
//   - at the open end of a run of exactly two boxes, only the two moves of
//     that choice are tried: take the first box, or draw the far side of the
//     second and leave both to the opponent.
//
// A run open at both ends (a chain opened in its middle) gets every move:
// drawing an edge inside it, which splits it into two pairs, can be the
// right way to decline. More cuts: a simple loony endgame (every box left
// has two sides drawn) is valued from its chains and loops alone
// (loonyValue), of a box's border sides only one is searched (twin), and
// of the openings that hand over the same boxes only one (openingKey).
// It shares no code with the house bots and, unlike
// Solver, assumes this much theory, so its tests check it against Solver on
// positions Solver can reach.
type AlphaBeta struct {
	rows, cols, edges int
	all               uint64
	boxes             []uint64 // the four sides of each box
	across            [][2]int // the boxes each edge borders, -1 for none
	syms              [][8][256]uint64
	// border[b] are box b's sides on the border: drawing any one of them
	// joins the box to the ground, so only one needs searching.
	border []uint64
	tt     []abEntry
	// history counts each edge's cutoffs, weighted by the edges left: the
	// order in which a node tries its moves.
	history [64]int64
	// loony memoises the values of simple loony endgames by their
	// components (loonyKey).
	loony map[string]int8
	// Nodes counts the positions searched since the solver was made.
	Nodes int64
}

type abEntry struct {
	key    uint64
	lo, hi int8
	move   int8 // best move last found, -1 for none
	used   bool
}

// NewAlphaBeta returns a solver for a board of rows x cols boxes with a
// transposition table of 2^ttBits entries (16 bytes each).
func NewAlphaBeta(rows, cols, ttBits int) (*AlphaBeta, error) {
	edges := (rows+1)*cols + rows*(cols+1)
	if rows < 1 || cols < 1 || edges > 64 {
		return nil, fmt.Errorf("exact: a %dx%d board does not fit 64 edges", rows, cols)
	}
	if ttBits < 4 || ttBits > 30 {
		return nil, fmt.Errorf("exact: table of 2^%d entries: want 2^4 to 2^30", ttBits)
	}
	a := &AlphaBeta{rows: rows, cols: cols, edges: edges, all: ^uint64(0) >> (64 - edges),
		across: make([][2]int, edges), tt: make([]abEntry, 1<<ttBits), loony: map[string]int8{}}
	h := func(r, c int) int { return r*cols + c }
	v := func(r, c int) int { return (rows+1)*cols + r*(cols+1) + c }
	for e := range a.across {
		a.across[e] = [2]int{-1, -1}
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			b := len(a.boxes)
			sides := []int{h(r, c), h(r+1, c), v(r, c), v(r, c+1)}
			var m uint64
			for _, e := range sides {
				m |= 1 << uint(e)
				if a.across[e][0] < 0 {
					a.across[e][0] = b
				} else {
					a.across[e][1] = b
				}
			}
			a.boxes = append(a.boxes, m)
		}
	}
	a.border = make([]uint64, len(a.boxes))
	for e, x := range a.across {
		if x[1] < 0 {
			a.border[x[0]] |= 1 << uint(e)
		}
	}
	a.symmetries(h, v)
	return a, nil
}

// symmetries fills the byte tables that map a drawn mask to its image under
// each symmetry of the board: the eight of the square, or the four of a
// rectangle that keep its shape.
func (a *AlphaBeta) symmetries(h, v func(r, c int) int) {
	rows, cols := a.rows, a.cols
	// An edge is the pair of dots it joins; a symmetry moves dots.
	type dot struct{ r, c int }
	ends := make([][2]dot, a.edges)
	for r := 0; r <= rows; r++ {
		for c := 0; c < cols; c++ {
			ends[h(r, c)] = [2]dot{{r, c}, {r, c + 1}}
		}
	}
	for r := 0; r < rows; r++ {
		for c := 0; c <= cols; c++ {
			ends[v(r, c)] = [2]dot{{r, c}, {r + 1, c}}
		}
	}
	edgeOf := func(p, q dot) int {
		if p.r > q.r || (p.r == q.r && p.c > q.c) {
			p, q = q, p
		}
		if p.r == q.r {
			return h(p.r, p.c)
		}
		return v(p.r, p.c)
	}
	maps := []func(d dot) dot{
		func(d dot) dot { return d },
		func(d dot) dot { return dot{rows - d.r, d.c} },
		func(d dot) dot { return dot{d.r, cols - d.c} },
		func(d dot) dot { return dot{rows - d.r, cols - d.c} },
	}
	if rows == cols {
		maps = append(maps,
			func(d dot) dot { return dot{d.c, d.r} },
			func(d dot) dot { return dot{cols - d.c, d.r} },
			func(d dot) dot { return dot{d.c, rows - d.r} },
			func(d dot) dot { return dot{cols - d.c, rows - d.r} },
		)
	}
	a.syms = make([][8][256]uint64, len(maps))
	for s, f := range maps {
		for e := 0; e < a.edges; e++ {
			img := uint64(1) << uint(edgeOf(f(ends[e][0]), f(ends[e][1])))
			for x := 0; x < 256; x++ {
				if x&(1<<(e%8)) != 0 {
					a.syms[s][e/8][x] |= img
				}
			}
		}
	}
}

// canonical is the smallest image of drawn under the board's symmetries:
// symmetric positions have the same value.
func (a *AlphaBeta) canonical(drawn uint64) uint64 {
	best := ^uint64(0)
	for s := range a.syms {
		t := &a.syms[s]
		var m uint64
		for k, d := 0, drawn; d != 0; k, d = k+1, d>>8 {
			m |= t[k][d&0xff]
		}
		best = min(best, m)
	}
	return best
}

// Value returns the net boxes the player to move takes from the position
// with these edges drawn, under best play by both. It narrows the value
// with null-window searches (MTD(f)), each asking only whether the value
// is below a bound, which cut far more than one search with the whole
// window; progress, when set, hears each new bound.
func (a *AlphaBeta) Value(drawn uint64) int {
	return a.ValueProgress(drawn, nil)
}

// ValueProgress is Value, calling progress with the bounds known after each
// null-window search: lo <= value <= hi.
func (a *AlphaBeta) ValueProgress(drawn uint64, progress func(lo, hi int)) int {
	lo, hi := -len(a.boxes), len(a.boxes)
	g := 0
	for lo < hi {
		beta := g
		if g == lo {
			beta = g + 1
		}
		g = a.search(drawn, beta-1, beta)
		if g < beta {
			hi = g
		} else {
			lo = g
		}
		if progress != nil {
			progress(lo, hi)
		}
	}
	return lo
}

// sides is how many sides of box b are drawn.
func (a *AlphaBeta) sides(drawn uint64, b int) int { return bits.OnesCount64(drawn & a.boxes[b]) }

// other is the box across edge e from box b, or -1 (the border).
func (a *AlphaBeta) other(e, b int) int {
	if x := a.across[e]; x[0] != b {
		return x[0]
	}
	return a.across[e][1]
}

// closes is the number of boxes that drawing e completes.
func (a *AlphaBeta) closes(drawn uint64, e int) int {
	n := 0
	for _, b := range a.across[e] {
		if b >= 0 && a.sides(drawn, b) == 3 {
			n++
		}
	}
	return n
}

func (a *AlphaBeta) search(drawn uint64, alpha, beta int) int {
	a.Nodes++
	if drawn == a.all {
		return 0
	}
	left, twos := 0, 0 // boxes not yet taken, and those with two sides
	chainEnd, far, open := -1, -1, false
	for b, m := range a.boxes {
		s := bits.OnesCount64(drawn & m)
		if s == 4 {
			continue
		}
		left++
		if s == 2 {
			twos++
		}
		if s != 3 {
			continue
		}
		e := bits.TrailingZeros64(m &^ drawn)
		n := a.other(e, b)
		if n < 0 || a.sides(drawn, n) != 2 {
			// The first rule: nothing new becomes capturable.
			k := a.closes(drawn, e)
			return k + a.search(drawn|1<<uint(e), alpha-k, beta-k)
		}
		// Follow the run of two-sided boxes from b to its other end.
		length, cur, in, both := 2, n, e, false
		f := bits.TrailingZeros64(a.boxes[n] &^ drawn &^ (1 << uint(e)))
		for length <= len(a.boxes) {
			out := bits.TrailingZeros64(a.boxes[cur] &^ drawn &^ (1 << uint(in)))
			nxt := a.other(out, cur)
			if nxt < 0 || a.sides(drawn, nxt) < 2 {
				break
			}
			length++
			if a.sides(drawn, nxt) == 3 {
				both = true
				break
			}
			cur, in = nxt, out
		}
		switch {
		case both:
			// A run open at both ends: drawing an edge inside it can be
			// right, so every move is tried (below).
			open = true
		case length >= 3:
			// The second rule: a run of three or more open at one end.
			return 1 + a.search(drawn|1<<uint(e), alpha-1, beta-1)
		case chainEnd < 0:
			chainEnd, far = e, f
		}
	}
	if left <= alpha {
		return left
	}
	if -left >= beta {
		return -left
	}
	if twos == left {
		// Every box left has two sides drawn: only chains and loops remain
		// and any move opens one (a simple loony endgame).
		return a.loonyValue(drawn)
	}
	if chainEnd >= 0 && !open {
		// The third rule: take the first of two boxes, or leave both.
		best := 1 + a.search(drawn|1<<uint(chainEnd), alpha-1, beta-1)
		if best < beta {
			best = max(best, -a.search(drawn|1<<uint(far), -beta, -max(alpha, best)))
		}
		return best
	}

	key := a.canonical(drawn)
	slot := a.probe(key)
	ttMove := -1
	if slot != nil {
		if int(slot.lo) >= beta {
			return int(slot.lo)
		}
		if int(slot.hi) <= alpha {
			return int(slot.hi)
		}
		if slot.lo == slot.hi {
			return int(slot.lo)
		}
		alpha, beta = max(alpha, int(slot.lo)), min(beta, int(slot.hi))
		ttMove = int(slot.move)
	}
	alpha0 := alpha
	best, bestMove := -len(a.boxes)-1, -1
	try := func(e int) bool {
		var v int
		if k := a.closes(drawn, e); k > 0 {
			v = k + a.search(drawn|1<<uint(e), alpha-k, beta-k)
		} else {
			v = -a.search(drawn|1<<uint(e), -beta, -alpha)
		}
		if v > best {
			best, bestMove = v, e
			if v > alpha {
				alpha = v
			}
		}
		return alpha >= beta
	}
	// Order: the table's move, then edges that hand nothing over, then the
	// others, fewest third sides first.
	free := a.all &^ drawn
	done := uint64(0)
	// Openings already tried, by what they hand over (openingKey).
	var openedBuf [16]uint64
	opened := openedBuf[:0]
	if ttMove >= 0 && free&(1<<uint(ttMove)) != 0 {
		done |= 1 << uint(ttMove)
		if k := a.openingKey(drawn, ttMove); k != 0 {
			opened = append(opened, k)
		}
		if try(ttMove) {
			a.store(key, alpha0, beta, best, bestMove)
			return best
		}
	}
	// Each move goes into the list of its number of third sides, ordered
	// within it by the history score (moves that cut off often first).
	var lists [3][64]int8
	var lens [3]int
	for m := free &^ done; m != 0; m &= m - 1 {
		e := bits.TrailingZeros64(m)
		if a.twin(free, e) {
			continue
		}
		thirds := 0
		for _, b := range a.across[e] {
			if b >= 0 && a.sides(drawn, b) == 2 {
				thirds++
			}
		}
		l := &lists[thirds]
		i := lens[thirds]
		for ; i > 0 && a.history[l[i-1]] < a.history[e]; i-- {
			l[i] = l[i-1]
		}
		l[i] = int8(e)
		lens[thirds]++
	}
	for pass := range lists {
		for _, e8 := range lists[pass][:lens[pass]] {
			e := int(e8)
			if pass > 0 {
				k := a.openingKey(drawn, e)
				if slices.Contains(opened, k) {
					continue
				}
				opened = append(opened, k)
			}
			if try(e) {
				a.history[e] += int64(bits.OnesCount64(free)) * int64(bits.OnesCount64(free))
				a.store(key, alpha0, beta, best, bestMove)
				return best
			}
		}
	}
	a.store(key, alpha0, beta, best, bestMove)
	return best
}

// probe returns the table entry of a position, or nil. Each position may
// sit in either of two neighbouring slots.
func (a *AlphaBeta) probe(key uint64) *abEntry {
	i := a.index(key)
	for _, j := range [2]uint64{i, i ^ 1} {
		if s := &a.tt[j]; s.used && s.key == key {
			return s
		}
	}
	return nil
}

func (a *AlphaBeta) index(key uint64) uint64 {
	key ^= key >> 31
	key *= 0x9e3779b97f4a7c15
	key ^= key >> 29
	return key & uint64(len(a.tt)-1)
}

// store records what a search of window (alpha, beta) learned: an upper
// bound if it failed low, a lower one if it failed high, else the value.
func (a *AlphaBeta) store(key uint64, alpha, beta, v, move int) {
	n := len(a.boxes)
	lo, hi := -n, n
	switch {
	case v <= alpha:
		hi = v
	case v >= beta:
		lo = v
	default:
		lo, hi = v, v
	}
	slot := a.probe(key)
	if slot == nil {
		// Keep the slot of the position with more edges left to draw (the
		// costlier one to search again) and replace the other.
		i := a.index(key)
		slot = &a.tt[i]
		if s2 := &a.tt[i^1]; !s2.used || (slot.used && bits.OnesCount64(s2.key) > bits.OnesCount64(slot.key)) {
			slot = s2
		}
		*slot = abEntry{key: key, lo: int8(-n), hi: int8(n), move: -1, used: true}
	}
	slot.lo = int8(max(int(slot.lo), lo))
	slot.hi = int8(min(int(slot.hi), hi))
	slot.move = int8(move)
}

// twin reports whether free edge e is a border side of a box with a
// lower-numbered border side also free: both make the same position up to
// the names of edges, so only the lowest is searched.
func (a *AlphaBeta) twin(free uint64, e int) bool {
	x := a.across[e]
	if x[1] >= 0 {
		return false
	}
	lower := uint64(1)<<uint(e) - 1
	return a.border[x[0]]&free&lower != 0
}

// loonyValue is the value, to the player to move, of a position in which
// every box left has exactly two sides drawn: its boxes form chains (ending
// on the border at both ends) and loops, and every move opens one of them.
// Its value depends only on their lengths (loonyKey), and the play is known
// (Berlekamp; Buzzard and Ciere, 2014): the mover opens a component, and the
// other player either takes all of it and moves next, or declines the last
// two boxes of a chain (four of a loop) and makes the mover move next. A
// chain of two is opened in its middle, where no decline is possible. The
// tests check these values against the brute-force Solver.
func (a *AlphaBeta) loonyValue(drawn uint64) int {
	return a.loonyOf(a.loonyKey(drawn))
}

func (a *AlphaBeta) loonyOf(comps []byte) int {
	if len(comps) == 0 {
		return 0
	}
	if v, ok := a.loony[string(comps)]; ok {
		return int(v)
	}
	best := -len(a.boxes) - 1
	rest := make([]byte, 0, len(comps)-1)
	for i, c := range comps {
		if i > 0 && c == comps[i-1] {
			continue // the same component as the one before
		}
		rest = append(append(rest[:0], comps[:i]...), comps[i+1:]...)
		after := a.loonyOf(rest)
		n, handBack := int(c&^loopFlag), 2 // its length; what a decline leaves
		if c&loopFlag != 0 {
			handBack = 4
		}
		// What the other player makes of the opened component.
		theirs := n + after
		if n >= 3 {
			theirs = max(theirs, n-2*handBack-after)
		}
		best = max(best, -theirs)
	}
	a.loony[string(comps)] = int8(best)
	return best
}

// loopFlag marks a loop's length in loonyKey.
const loopFlag = 0x80

// loonyKey lists the lengths of the chains and loops of a simple loony
// position, sorted, one byte each (loops with loopFlag).
func (a *AlphaBeta) loonyKey(drawn uint64) []byte {
	var seen uint64 // boxes already in a component
	var comps []byte
	for b, m := range a.boxes {
		if seen&(1<<uint(b)) != 0 || bits.OnesCount64(drawn&m) != 2 {
			continue
		}
		seen |= 1 << uint(b)
		n, loop := 1, false
		ends := m &^ drawn
		first := bits.TrailingZeros64(ends)
		for _, e := range [2]int{first, bits.TrailingZeros64(ends &^ (1 << uint(first)))} {
			cur, in := b, e
			for {
				nxt := a.other(in, cur)
				if nxt < 0 {
					break
				}
				if nxt == b {
					loop = true
					break
				}
				seen |= 1 << uint(nxt)
				n++
				cur, in = nxt, bits.TrailingZeros64(a.boxes[nxt]&^drawn&^(1<<uint(in)))
			}
			if loop {
				break
			}
		}
		if loop {
			comps = append(comps, byte(n)|loopFlag)
		} else {
			comps = append(comps, byte(n))
		}
	}
	slices.Sort(comps)
	return comps
}

// openingKey names what drawing e, an edge that gives a box its third side,
// hands the opponent: the boxes that taking everything it makes capturable
// would claim, plus a flag when both of e's boxes have two sides drawn (e is
// inside a chain or loop, where no box is left to decline from one end).
// Openings with the same key leave the opponent the same choices, take all
// or decline the last two, and the same position after either, wherever
// along the chain they are drawn; 0 when e hands nothing over.
func (a *AlphaBeta) openingKey(drawn uint64, e int) uint64 {
	d := drawn | 1<<uint(e)
	var handed uint64
	inside := true
	for _, start := range a.across[e] {
		if start < 0 || a.sides(drawn, start) != 2 {
			inside = false
		}
		for b := start; b >= 0 && handed&(1<<uint(b)) == 0; {
			free := a.boxes[b] &^ d
			if free == 0 { // a loop's last box, reached from both sides
				handed |= 1 << uint(b)
				break
			}
			if free&(free-1) != 0 {
				break // two sides still free: not capturable
			}
			handed |= 1 << uint(b)
			d |= free
			b = a.other(bits.TrailingZeros64(free), b)
		}
	}
	if handed != 0 && inside {
		handed |= 1 << 63
	}
	return handed
}
