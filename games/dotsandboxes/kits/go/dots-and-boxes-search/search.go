// Code generated from the Arena repository's games/dotsandboxes/search.go by `go generate ./internal/kits`. DO NOT EDIT.

package main

import "math/bits"

// searchLevel is a difficulty: how many nodes a move may cost, and whether
// the bot looks at sacrifices while safe edges remain.
type searchLevel struct {
	nodes      int
	sacrifices bool
	// quiet: below the depth limit, positions with at most this many safe
	// edges are searched on over safe edges only, to the end of the fight
	// for the last one, rather than estimated.
	quiet int
	// lateNodes is the budget once at most lateFree edges are left: the
	// fight for control is decided there, a few moves before the search
	// becomes exact, and a few times the nodes find the move that a
	// smaller budget misses.
	lateNodes, lateFree int
	// playouts is how many playouts of the safe edges an estimate averages
	// (estimate below): one is a guess of who gets control, several are
	// closer to the odds.
	playouts int
	// allGifts: with at most this many safe edges left, sacrifices of any
	// size are tried, not only of one or two boxes: in the fight for
	// control, giving a whole chain away can be what keeps it, even with a
	// dozen safe edges left (TestSearchGivesWholeChainEarly).
	allGifts int
	// exactNodes, when set, is spent first on a search with no depth limit
	// once at most exactFree edges are left. If it finishes, its move keeps
	// the exact value and is played; if not, the usual iterative deepening
	// runs with the move's budget, helped by what the attempt stored.
	exactNodes, exactFree int
	// nearNodes, when set, is spent first on a search with no depth limit
	// in which sacrifices are of one or two boxes while safe edges remain,
	// once at most nearFree edges are left and the exact attempt does not
	// apply. It is not exact, but searched to its end its move kept the
	// exact value in 25 of 30 positions with 40 free edges, where the
	// depth-limited search kept it in 5 to 8 (TestNearAccuracy,
	// TestMiddleAccuracy): in the fight for control, reaching the loony
	// phase matters more than seeing every sacrifice. If it does not
	// finish, the deepening runs in the same model.
	nearNodes, nearFree int
	// tableBits sizes the transposition table, 2^tableBits entries of 16
	// bytes (17 when zero): an exact search of a million nodes refills a
	// small table many times over.
	tableBits int
}

// The levels offered as house bots. The hard one is the default search; its
// budget keeps the mean move well under 100 ms (docs/bots-strength.md).
var (
	levelEasy   = searchLevel{nodes: 2_000, sacrifices: false, playouts: 1}
	levelMedium = searchLevel{nodes: 6_000, sacrifices: true, quiet: 12, playouts: 1}
	levelHard   = searchLevel{nodes: 120_000, sacrifices: true, quiet: 30,
		lateNodes: 400_000, lateFree: 40, playouts: 1, allGifts: NumEdges,
		exactNodes: 2_500_000, exactFree: 37, nearNodes: 2_500_000, nearFree: 42, tableBits: 20}
)

const (
	boundExact = iota
	boundLower
	boundUpper
)

type ttEntry struct {
	key   uint64
	val   int8
	depth int8
	bound uint8
	move  Edge
}

const defaultTableBits = 17

// exactDepth marks table entries that no depth limit cut short.
const exactDepth = 127

type searcher struct {
	lv      searchLevel
	tt      []ttEntry
	nearTT  []ttEntry // the near search's table (bestMove)
	nodes   int
	budget  int // nodes this move may visit
	aborted bool
	// inexact is set when an iteration valued some position by estimate.
	inexact bool
	// quiet is the level's quiet limit, except in the first iteration,
	// which must always finish: its move is the fallback.
	quiet int
	loony loonyTable
	// smallGifts limits sacrifices to one or two boxes while safe edges
	// remain, whatever the level's allGifts: the near search (bestMove).
	smallGifts bool
	// stop, when set, is asked at every node whether to stop now as if
	// the budget were spent: a wasm bot's guard against running out of fuel.
	stop func() bool
}

func newSearcher(lv searchLevel) *searcher {
	tableBits := lv.tableBits
	if tableBits == 0 {
		tableBits = defaultTableBits
	}
	return &searcher{lv: lv, tt: make([]ttEntry, 1<<tableBits), loony: loonyTable{memo: map[shape]int8{}}}
}

// moves are the real choices at a node: one plain capture, or take and
// decline at a chain's end, or the deduplicated openings and safe edges.
func (s *searcher) moves(b *Board) []Edge {
	closing, safe, unsafe := b.classify()
	if closing != 0 {
		take, decline, _ := b.captureChoice(closing)
		if decline == NoEdge {
			return []Edge{take}
		}
		return []Edge{take, decline}
	}
	return s.appendChoices(nil, b, safe, unsafe)
}

// appendChoices appends the moves of a position with no capture pending,
// whose safe and unsafe edges the caller has classified, to dst: the search
// passes an array on its stack, since a node's moves are its most frequent
// allocation otherwise.
func (s *searcher) appendChoices(dst []Edge, b *Board, safe, unsafe uint64) []Edge {
	for m := distinctSafe(safe); m != 0; m &= m - 1 {
		dst = append(dst, Edge(bits.TrailingZeros64(m)))
	}
	if safe != 0 && !s.lv.sacrifices {
		return dst
	}
	maxGift := NumBoxes
	if safe != 0 && (s.smallGifts || bits.OnesCount64(safe) > s.lv.allGifts) {
		maxGift = 2
	}
	return appendOpenings(dst, b, unsafe, maxGift)
}

// cornerEdges are the two border edges of each corner box.
var cornerEdges = [4][2]Edge{
	{H(0, 0), V(0, 0)}, {H(0, Cols-1), V(0, Cols)},
	{H(Rows, 0), V(Rows-1, 0)}, {H(Rows, Cols-1), V(Rows-1, Cols)},
}

// distinctSafe drops from the safe edges those that make the same position
// as another one up to the names of edges: a corner box's two border edges
// both join it to the ground, so drawing either leaves the same strings and
// coins, and only the first is kept.
func distinctSafe(safe uint64) uint64 {
	for _, pair := range cornerEdges {
		if safe&(1<<uint(pair[0])) != 0 {
			safe &^= 1 << uint(pair[1])
		}
	}
	return safe
}

// openings deduplicates the unsafe edges: those that hand the opponent the
// same boxes, through the middle of a two-chain or not, are the same move.
// They come cheapest first.
func openings(b *Board, unsafe uint64, maxGift int) []Edge {
	return appendOpenings(nil, b, unsafe, maxGift)
}

func appendOpenings(dst []Edge, b *Board, unsafe uint64, maxGift int) []Edge {
	var keys [NumEdges]uint32
	var gifts [NumEdges]int8
	first := len(dst)
	for m := unsafe; m != 0; m &= m - 1 {
		e := Edge(bits.TrailingZeros64(m))
		handed := b.handedBy(e)
		gift := bits.OnesCount32(handed)
		if gift > maxGift {
			continue
		}
		key := handed
		if pair := edgeBoxes[e]; pair[0] >= 0 && pair[1] >= 0 && b.Sides(int(pair[0])) == 2 && b.Sides(int(pair[1])) == 2 {
			key |= 1 << 31 // hard-hearted: no decline possible
		}
		n := len(dst) - first
		dup := false
		for _, k := range keys[:n] {
			if k == key {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		// Insert in order of gift, after the equal ones.
		i := n
		for ; i > 0 && int(gifts[i-1]) > gift; i-- {
			keys[i], gifts[i] = keys[i-1], gifts[i-1]
		}
		keys[i], gifts[i] = key, int8(gift)
		dst = append(dst, e)
		copy(dst[first+i+1:], dst[first+i:len(dst)-1])
		dst[first+i] = e
	}
	return dst
}

// handedBy is the set of boxes that drawing e lets the opponent take, in a
// position with no capture pending: the runs of boxes on either side of e
// that each capture's last side makes capturable in turn. It is what
// drawing e and taking everything would claim, without playing it out.
func (b *Board) handedBy(e Edge) uint32 {
	claimed := b.Owned[0] | b.Owned[1]
	drawn := b.Drawn | 1<<uint(e)
	var handed uint32
	for _, start := range edgeBoxes[e] {
		for box := int(start); box >= 0 && (claimed|handed)&(1<<uint(box)) == 0; {
			free := boxEdges[box] &^ drawn
			if free == 0 { // the last side of a loop, drawn from its other end
				handed |= 1 << uint(box)
				break
			}
			if free&(free-1) != 0 {
				break // two sides or more still free: not capturable
			}
			handed |= 1 << uint(box)
			drawn |= free
			box = otherBox(Edge(bits.TrailingZeros64(free)), box)
		}
	}
	return handed
}

// bestMove runs iterative deepening until the search is exact or the node
// budget is spent, and returns the best move of the last finished iteration.
func (s *searcher) bestMove(b *Board) Edge {
	moves := s.moves(b)
	if len(moves) == 1 {
		return moves[0]
	}
	s.nodes = 0
	s.budget = s.lv.nodes
	free := bits.OnesCount64(b.Undrawn())
	if free <= s.lv.lateFree {
		s.budget = max(s.budget, s.lv.lateNodes)
	}
	s.loony.stop, s.loony.stopped = s.stop, false
	if s.lv.exactNodes > 0 && free <= s.lv.exactFree {
		if e, ok := s.attempt(b, moves, s.lv.exactNodes); ok {
			return e
		}
	} else if s.lv.nearNodes > 0 && free <= s.lv.nearFree {
		// Its values assume small gifts, so it keeps them in a table of its
		// own, where no exact search can take them for exact, and the main
		// table keeps what earlier moves stored.
		if s.nearTT == nil {
			s.nearTT = make([]ttEntry, len(s.tt))
		}
		s.tt, s.nearTT = s.nearTT, s.tt
		s.smallGifts = true
		defer func() { s.tt, s.nearTT, s.smallGifts = s.nearTT, s.tt, false }()
		if e, ok := s.attempt(b, moves, s.lv.nearNodes); ok {
			return e
		}
		// Unfinished, it leaves its model and table to the deepening below,
		// which starts from what the attempt stored: with small gifts the
		// deepening sees further in the same nodes. With every sacrifice it
		// made the moves that lost games to chains here, never the near
		// search (TestChainsGameValues; TestChainsStudy: 191 of 200, 188).
	}
	best := moves[0]
	for depth := 1; depth <= NumEdges; depth++ {
		s.inexact = false
		s.quiet = s.lv.quiet
		if depth == 1 {
			s.quiet = 0
		}
		e, _, ok := s.root(b, moves, depth)
		if !ok {
			break
		}
		best = e
		// Searching the previous best first makes the next iteration cheaper.
		for i, m := range moves {
			if m == e {
				copy(moves[1:i+1], moves[:i])
				moves[0] = e
				break
			}
		}
		if !s.inexact {
			break
		}
	}
	return best
}

// attempt runs one search with no depth limit on a budget of nodes and
// reports its move if it finished; if not, it gives the move's budget back
// to the iterative deepening that follows.
func (s *searcher) attempt(b *Board, moves []Edge, nodes int) (Edge, bool) {
	budget := s.budget
	s.budget = nodes
	s.inexact = false
	if e, _, ok := s.root(b, moves, NumEdges); ok && !s.inexact {
		return e, true
	}
	s.nodes, s.budget = 0, budget
	return NoEdge, false
}

func (s *searcher) root(b *Board, moves []Edge, depth int) (Edge, int, bool) {
	s.aborted = false
	alpha, beta := -NumBoxes-1, NumBoxes+1
	best := NoEdge
	for _, e := range moves {
		var v int
		if best != NoEdge {
			v = s.child(b, e, depth, alpha, alpha+1)
			if v > alpha && !s.aborted {
				v = s.child(b, e, depth, alpha, beta)
			}
		} else {
			v = s.child(b, e, depth, alpha, beta)
		}
		if s.aborted {
			return NoEdge, 0, false
		}
		if best == NoEdge || v > alpha {
			best, alpha = e, v
		}
	}
	return best, alpha, true
}

// child is the value, to the mover of b, of playing e.
func (s *searcher) child(b *Board, e Edge, depth, alpha, beta int) int {
	after := *b
	if n := after.Play(e); n > 0 {
		return n + s.node(&after, depth, alpha-n, beta-n)
	}
	return -s.node(&after, depth-1, -beta, -alpha)
}

// node is the negamax value of b for its mover: net boxes from here on.
func (s *searcher) node(b *Board, depth, alpha, beta int) int {
	if b.Over() {
		return 0
	}
	if s.nodes++; s.nodes > s.budget || (s.stop != nil && s.stop()) {
		s.aborted = true
		return 0
	}
	closing, safe, unsafe := b.classify()
	if closing != 0 {
		return s.captures(b, closing, depth, alpha, beta)
	}
	if safe == 0 && b.simpleLoony() {
		// Independent chains and loops only: the loony table's value is
		// exact here, whatever the depth.
		return s.loonyValue(b)
	}
	quiet := depth <= 0
	if quiet {
		s.inexact = true
		if safe == 0 || bits.OnesCount64(safe) > s.quiet {
			return s.estimate(b, safe)
		}
	}
	key := canonical(b.Drawn)
	slot := &s.tt[mixKey(key)&uint64(len(s.tt)-1)]
	ttMove := NoEdge
	if slot.key == key {
		if int(slot.depth) >= depth {
			v := int(slot.val)
			switch {
			case slot.bound == boundExact,
				slot.bound == boundLower && v >= beta,
				slot.bound == boundUpper && v <= alpha:
				if slot.depth != exactDepth {
					s.inexact = true
				}
				return v
			}
		}
		ttMove = slot.move
	}
	var buf [NumEdges]Edge
	moves := buf[:0]
	if quiet {
		for m := distinctSafe(safe); m != 0; m &= m - 1 {
			moves = append(moves, Edge(bits.TrailingZeros64(m)))
		}
	} else {
		moves = s.appendChoices(buf[:0], b, safe, unsafe)
	}
	if ttMove != NoEdge {
		for i, m := range moves {
			if m == ttMove {
				copy(moves[1:i+1], moves[:i])
				moves[0] = m
				break
			}
		}
	}
	wasInexact := s.inexact
	s.inexact = false
	alpha0 := alpha
	best, bestMove := -NumBoxes-1, NoEdge
	for i, e := range moves {
		var v int
		if i > 0 && beta-alpha > 1 {
			// A null window first: most moves only need to be shown no
			// better than the best so far.
			v = s.child(b, e, depth, alpha, alpha+1)
			if v > alpha && v < beta && !s.aborted {
				v = s.child(b, e, depth, alpha, beta)
			}
		} else {
			v = s.child(b, e, depth, alpha, beta)
		}
		if s.aborted {
			return 0
		}
		if v > best {
			best, bestMove = v, e
		}
		if v > alpha {
			alpha = v
		}
		if alpha >= beta {
			break
		}
	}
	d := int8(depth)
	if !s.inexact {
		d = exactDepth
	}
	s.inexact = s.inexact || wasInexact
	bound := uint8(boundExact)
	switch {
	case best <= alpha0:
		bound = boundUpper
	case best >= beta:
		bound = boundLower
	}
	if slot.key != key || d >= slot.depth {
		*slot = ttEntry{key: key, val: int8(best), depth: d, bound: bound, move: bestMove}
	}
	return best
}

// captures is node for a position with a capture pending. The captures
// that are always right are made in a loop, not one node each (they were two
// thirds of the nodes of an exact search at 34 free edges); the search
// branches only where a chain or loop ends: take its last boxes, or decline
// them.
func (s *searcher) captures(b *Board, closing uint64, depth, alpha, beta int) int {
	after := *b
	gained := 0
	for {
		take, decline, _ := after.captureChoice(closing)
		if decline != NoEdge {
			taken := after
			n := gained + taken.Play(take)
			v := n + s.node(&taken, depth, alpha-n, beta-n)
			if v >= beta || s.aborted {
				return v
			}
			return max(v, gained+s.child(&after, decline, depth, max(alpha, v)-gained, beta-gained))
		}
		gained += after.Play(take)
		if after.Over() {
			return gained
		}
		if closing, _, _ = after.classify(); closing == 0 {
			return gained + s.node(&after, depth, alpha-gained, beta-gained)
		}
	}
}

// estimate values a position where the search stops. With no safe edge it
// is the simple loony endgame of its chains and loops. With safe edges, they
// are played out in a few fixed pseudo-random orders (functions of the
// position, so the estimate is too), each endgame that results is valued
// for whoever must open it, and the values are averaged.
func (s *searcher) estimate(b *Board, safe uint64) int {
	if safe == 0 {
		return s.loonyValue(b)
	}
	n := max(s.lv.playouts, 1)
	sum := 0
	h := mixKey(b.Drawn)
	for i := 0; i < n; i++ {
		sum += s.playout(b, safe, h+uint64(i)*0x632be59bd9b4e019)
	}
	// Rounded half away from zero, the same for both signs.
	if sum >= 0 {
		return (sum + n/2) / n
	}
	return -((-sum + n/2) / n)
}

// playout plays the safe edges out in the pseudo-random order that h seeds
// and values the loony endgame that results for the player to move in b.

func (s *searcher) playout(b *Board, safe uint64, h uint64) int {
	after := *b
	flips := 0
	for safe != 0 {
		h = h*0x9e3779b97f4a7c15 + 1
		e := nthBit(safe, int((h>>32)%uint64(bits.OnesCount64(safe))))
		after.Play(e)
		flips ^= 1
		safe &^= 1 << uint(e)
		// A box that now has two sides makes its free sides unsafe.
		for _, box := range edgeBoxes[e] {
			if box >= 0 && bits.OnesCount64(after.Drawn&boxEdges[box]) == 2 {
				safe &^= boxEdges[box]
			}
		}
	}
	v := s.loonyValue(&after)
	if flips == 1 {
		return -v
	}
	return v
}

// loonyValue is the simple loony value of a position with no safe edge; a
// stop inside the table's work aborts the search.
func (s *searcher) loonyValue(b *Board) int {
	v := s.loony.value(shapeOf(b))
	if s.loony.stopped {
		s.aborted = true
	}
	return v
}

func mixKey(k uint64) uint64 {
	k ^= k >> 31
	k *= 0x7fb5d329728ea185
	k ^= k >> 27
	k *= 0x81dadef4bc2dd44d
	return k ^ k>>33
}

// symTab[s][i][byte] is the image under symmetry s of the edges in byte i of
// a drawn mask; a mask's image is the OR of eight lookups.
var symTab [8][8][256]uint64

func init() {
	const n = Rows // the board is square
	dot := func(s, r, c int) (int, int) {
		if s&4 != 0 {
			r, c = c, r
		}
		if s&2 != 0 {
			r = n - r
		}
		if s&1 != 0 {
			c = n - c
		}
		return r, c
	}
	edgeOf := func(r1, c1, r2, c2 int) Edge {
		if r1 == r2 {
			return H(r1, min(c1, c2))
		}
		return V(min(r1, r2), c1)
	}
	for s := 0; s < 8; s++ {
		var img [NumEdges]Edge
		for e := Edge(0); e < NumEdges; e++ {
			r, c := e.RC()
			r2, c2 := r+1, c // V: the dot below
			if e.Horizontal() {
				r2, c2 = r, c+1
			}
			a, b := dot(s, r, c)
			x, y := dot(s, r2, c2)
			img[e] = edgeOf(a, b, x, y)
		}
		for i := 0; i < 8; i++ {
			for v := 0; v < 256; v++ {
				var m uint64
				for j := 0; j < 8; j++ {
					if e := i*8 + j; v&(1<<j) != 0 && e < NumEdges {
						m |= 1 << uint(img[e])
					}
				}
				symTab[s][i][v] = m
			}
		}
	}
}

// canonical is the least image of a drawn mask under the board's symmetries.
func canonical(d uint64) uint64 {
	best := d
	for s := 1; s < 8; s++ {
		t := &symTab[s]
		m := t[0][d&0xff] | t[1][d>>8&0xff] | t[2][d>>16&0xff] | t[3][d>>24&0xff] |
			t[4][d>>32&0xff] | t[5][d>>40&0xff] | t[6][d>>48&0xff] | t[7][d>>56&0xff]
		if m < best {
			best = m
		}
	}
	return best
}

// shape is a multiset of chains and loops, sorted, as a table key: a byte
// per component, loops with the high bit, zeros after the last.
type shape [NumBoxes]byte

const loopBit = 0x80

// shapeOf splits the open boxes of a position with no capture pending into
// chains and loops the way components (chains.go) does, without allocating:
// each box with three or four free sides joins its longest arm, and an arm
// that leaves and comes back to the same such box is a loop through it.
func shapeOf(b *Board) (sh shape, n int) {
	claimed := b.Owned[0] | b.Owned[1]
	free := b.Undrawn()
	var deg [NumBoxes]int8
	for box := range deg {
		if claimed&(1<<uint(box)) == 0 {
			deg[box] = int8(bits.OnesCount64(free & boxEdges[box]))
		}
	}
	var armOf [NumBoxes]int8
	for i := range armOf {
		armOf[i] = -1
	}
	var size [NumBoxes]int8
	var isLoop [NumBoxes]bool
	var ends [NumBoxes][2]int8 // junction boxes at an arm's ends, -1 for none
	arms := 0
	var stack [NumBoxes]int8
	for start := range deg {
		if deg[start] != 2 || armOf[start] >= 0 {
			continue
		}
		a := arms
		arms++
		ends[a] = [2]int8{-1, -1}
		nends, inner := 0, 0
		sp := 0
		stack[sp] = int8(start)
		sp++
		armOf[start] = int8(a)
		for sp > 0 {
			sp--
			box := int(stack[sp])
			size[a]++
			for m := free & boxEdges[box]; m != 0; m &= m - 1 {
				nb := otherBox(Edge(bits.TrailingZeros64(m)), box)
				switch {
				case nb < 0:
				case deg[nb] != 2:
					if nends < 2 {
						ends[a][nends] = int8(nb)
					}
					nends++
				case armOf[nb] < 0:
					inner++
					armOf[nb] = int8(a)
					stack[sp] = int8(nb)
					sp++
				default:
					inner++
				}
			}
		}
		// Both boxes of an inner edge saw it: a ring of k boxes has k.
		isLoop[a] = nends == 0 && inner/2 == int(size[a]) && size[a] >= 4
	}
	extra := 0
	var singles [NumBoxes]int8
	for box := range deg {
		if deg[box] < 3 {
			continue
		}
		best, twice := -1, false
		for a := 0; a < arms; a++ {
			k := 0
			if int(ends[a][0]) == box {
				k++
			}
			if int(ends[a][1]) == box {
				k++
			}
			if k > 0 && (best < 0 || size[a] > size[best]) {
				best, twice = a, k == 2
			}
		}
		if best < 0 {
			singles[extra] = 1
			extra++
			continue
		}
		size[best]++
		if twice && size[best] >= 4 {
			isLoop[best] = true
		}
	}
	for a := 0; a < arms; a++ {
		c := byte(size[a])
		if isLoop[a] {
			c |= loopBit
		}
		sh[n] = c
		n++
	}
	for i := 0; i < extra; i++ {
		sh[n] = byte(singles[i])
		n++
	}
	// Insertion sort, largest first, so the zeros stay at the end.
	for i := 1; i < n; i++ {
		for j := i; j > 0 && sh[j] > sh[j-1]; j-- {
			sh[j], sh[j-1] = sh[j-1], sh[j]
		}
	}
	return sh, n
}

// loonyTable memoises the values of simple loony endgames: the net boxes,
// for the player who must open one, of a set of independent chains and loops
// where a long chain's taker may decline its last two boxes and a loop's its
// last four to keep control. A shape of many components can take many
// steps to value the first time; stop, when set, is asked at every step, and
// once it says stop, every value is 0 and nothing more is memoised.
type loonyTable struct {
	memo    map[shape]int8
	stop    func() bool
	stopped bool
}

func (t *loonyTable) value(sh shape, n int) int {
	if n == 0 {
		return 0
	}
	if v, ok := t.memo[sh]; ok {
		return int(v)
	}
	if t.stopped || (t.stop != nil && t.stop()) {
		t.stopped = true
		return 0
	}
	best := 0
	for i := 0; i < n; i++ {
		if i > 0 && sh[i] == sh[i-1] {
			continue
		}
		rest := sh
		copy(rest[i:n-1], sh[i+1:n])
		rest[n-1] = 0
		r := t.value(rest, n-1)
		k := int(sh[i] &^ loopBit)
		takeAll := k + r
		keep := takeAll
		switch {
		case sh[i]&loopBit != 0:
			keep = k - 8 - r
		case k >= 3:
			keep = k - 4 - r
		}
		if v := -max(takeAll, keep); i == 0 || v > best {
			best = v
		}
	}
	if t.stopped {
		return 0
	}
	t.memo[sh] = int8(best)
	return best
}

// simpleLoony reports whether every open box has exactly two free sides: a
// position with no safe edge and no junction is a set of independent chains
// and loops, a simple loony endgame.
func (b *Board) simpleLoony() bool {
	open := ^(b.Owned[0] | b.Owned[1])
	free := b.Undrawn()
	for box := range boxEdges {
		if open&(1<<uint(box)) != 0 && bits.OnesCount64(free&boxEdges[box]) > 2 {
			return false
		}
	}
	return true
}
