package linesandboxes

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/arenabots/arena/game"
)

// DefaultSearchBudget is how much work the search bot may do per move: one
// unit per node, plus one per 8 moves generated or 8 edges a playout looks
// at. It keeps a move under about 40 ms on the largest board (see
// BenchmarkSearchMove), and being a count, not a clock, keeps the bot
// deterministic.
const DefaultSearchBudget = 50_000

// searchBot is an iterative-deepening alpha-beta search over whole lines. A
// position's value is the mover's net future boxes; the edges drawn decide
// it, so the transposition table is keyed by their Zobrist hash alone. At the
// depth limit a position is valued by playing it out to the end with the
// greedy policy on unit edges, which is what makes the search see tempo and
// parity: who is forced to open the first box, how chains split when turns
// alternate inside them. Only captures, short quiet lines and (when nothing
// is quiet) the cheapest sacrifices are searched; see prune.
type searchBot struct {
	budget int
	// With at most endAt edges left, the budget is endBudget instead.
	endAt, endBudget int
	nodes            int
	tt               []ttEntry
	plies            [][]move // move buffers, one per ply
	limits           pruneLimits
	// stop, when set, is asked at every node whether to stop as if the
	// budget were spent (SetStop).
	stop func() bool
	// chains has the search value a position past the safe phase by the
	// chain rule (chainStructure, ruleValue) where the rule can be trusted:
	// the strong bot.
	chains bool
	// safeExt, when above 0, searches on past the depth limit while at
	// most that many safe edges are left: the end of the safe phase, where
	// who must open is decided, is searched to its end.
	safeExt int
	// loony has the playouts open chains by the chain rule once no line is
	// safe (loonyEdge) rather than the first that gives one box.
	loony bool
}

// SetStop has the search also ask stop at every node: a wasm build's
// budget, by the fuel left (internal/housebots/hostplay).
func (b *searchBot) SetStop(stop func() bool) { b.stop = stop }

// pruneLimits say how much prune keeps.
type pruneLimits struct {
	maxQuietLength int // longer quiet lines rarely change the tempo
	exactBelow     int // undrawn edges: below this nothing is pruned
	// With fewer safe edges than this, safe lines of every length are
	// searched: near the end of the safe phase the length of a line is
	// how a player sets who must open the first chain.
	allQuietBelow int
}

var searchLimits = pruneLimits{maxQuietLength: 2, exactBelow: 14}

type ttEntry struct {
	key   uint64
	value int16
	depth int8
	bound int8 // exact, lower or upper
	best  move
}

const (
	exact = iota
	lower
	upper
)

const ttSize = 1 << 16

// DeepSearchBudget is search-deep's budget: three times search's. With the
// exact attempts of DeepEndgameBudget it averaged 21 ms of CPU a move on the
// largest board, 490 ms at worst (BenchmarkDeepSearchMove).
const DeepSearchBudget = 3 * DefaultSearchBudget

// DeepEndgameBudget is what search-deep's exact attempt (solve) may spend
// once at most deepEndAt edges are left. Judged by an exact solver, search
// (pruning from 14 edges left up) gives boxes away most often at 15 to 18
// edges left; an unpruned search from there needs from under 100,000 to a
// few million nodes (0.6 to 2.3 million on four positions at 17 and 18
// edges where 500,000 did not finish). With this budget strong's moves
// from 18 edges left lost value 6 times in 200 games against search, with
// 500,000 23 times (TestAnalyzeExact). A move whose attempt fails costs
// this plus DeepSearchBudget, the slowest moves of the bot
// (BenchmarkDeepSearchMove).
const DeepEndgameBudget = 2_000_000

const deepEndAt = 18

// deepLimits are search-deep's: quiet lines of three edges are searched too
// (one more way to change the parity of the safe phase), and when the exact
// attempt fails nothing is pruned below 16 edges left rather than 14.
var deepLimits = pruneLimits{maxQuietLength: 3, exactBelow: 16}

// newDeepSearchBot is search-deep: more nodes, many more near the end, a
// table four times bigger to hold them, and deepLimits.
func newDeepSearchBot() *searchBot {
	return &searchBot{budget: DeepSearchBudget, endAt: deepEndAt, endBudget: DeepEndgameBudget, tt: make([]ttEntry, 4*ttSize), limits: deepLimits}
}

// strongLimits are the strong bot's: search-deep's, and safe lines of every
// length once fewer than 16 safe edges are left.
var strongLimits = pruneLimits{maxQuietLength: 3, exactBelow: 16, allQuietBelow: 16}

// strongSafeExt is how few safe edges strong's search searches to the end.
const strongSafeExt = 6

// newStrongBot is search-deep with the end of the safe phase searched to its
// end (safeExt), safe lines of every length there, the chain rule where it
// holds, and playouts that open chains by the rule (loonyEdge).
func newStrongBot() *searchBot {
	return &searchBot{budget: DeepSearchBudget, endAt: deepEndAt, endBudget: DeepEndgameBudget, tt: make([]ttEntry, 4*ttSize), limits: strongLimits, chains: true, safeExt: strongSafeExt, loony: true}
}

func newSearchBot(budget int) *searchBot {
	return &searchBot{budget: budget, tt: make([]ttEntry, ttSize), limits: searchLimits}
}

func (b *searchBot) Act(s game.State, _ int) []byte {
	return houseMove(s, b.choose)
}

// errBudget unwinds a search iteration that ran out of nodes.
type errBudget struct{}

func (b *searchBot) choose(p *position) move {
	if p.left <= b.endAt {
		if m, ok := b.solve(p); ok {
			return m
		}
	}
	b.nodes = 0
	moves := b.limits.prune(p, p.moves(nil))
	b.order(moves, move{})
	best := moves[0]
	for depth := 1; depth <= p.left; depth++ {
		m, ok := b.root(p, moves, depth)
		if !ok {
			break
		}
		best = m
	}
	return best
}

// solve tries to play p exactly: one search to the end of every line of
// play, nothing pruned, on endBudget nodes. It reports false when that
// search did not finish; choose then searches as usual, on its usual
// budget, since a shallow unpruned search is worse than a deep pruned one.
// There is no iterative deepening before it: its shallow iterations,
// unpruned, spent the budget that the last one needed (on the tournament's
// boards against search, strong's moves with 16 to 18 edges left lost
// value 51 times in 200 games with them and 23 times without, on the same
// 500,000 nodes).
func (b *searchBot) solve(p *position) (move, bool) {
	limits, budget := b.limits, b.budget
	defer func() { b.limits, b.budget = limits, budget }()
	b.limits.exactBelow = 1 << 10
	b.budget = b.endBudget
	b.nodes = 0
	moves := p.moves(nil)
	b.order(moves, move{})
	return b.root(p, moves, p.left)
}

// root searches every move to depth and returns the best, or false when the
// budget ran out first. It puts the best move first for the next iteration.
func (b *searchBot) root(p *position, moves []move, depth int) (best move, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, budget := r.(errBudget); !budget {
				panic(r)
			}
			ok = false
		}
	}()
	alpha, bestAt := -1<<20, 0
	for i, m := range moves {
		child := *p
		child.play(m)
		g := int(m.gain)
		v := g - b.negamax(&child, depth-1, 1, g-(1<<20), g-alpha)
		if v > alpha {
			alpha, bestAt = v, i
		}
	}
	best = moves[bestAt]
	copy(moves[1:bestAt+1], moves[:bestAt])
	moves[0] = best
	return best, true
}

func (b *searchBot) negamax(p *position, depth, ply, alpha, beta int) int {
	if p.left == 0 {
		return 0
	}
	b.nodes++
	if b.nodes > b.budget || (b.stop != nil && b.stop()) {
		panic(errBudget{})
	}
	if b.chains && p.three == 0 && p.left >= b.limits.exactBelow && !p.hasSafe() {
		b.nodes += p.g.rows * p.g.cols / 8
		if odd, even, loops, clean := p.chainStructure(); clean {
			return ruleValue(odd, even, loops)
		}
	}
	slot := &b.tt[p.hash&uint64(len(b.tt)-1)]
	var hint move
	if slot.key == p.hash {
		hint = slot.best
		if int(slot.depth) >= depth {
			v := int(slot.value)
			switch {
			case slot.bound == exact,
				slot.bound == lower && v >= beta,
				slot.bound == upper && v <= alpha:
				return v
			}
		}
	}
	if depth == 0 && b.safeExt > 0 && p.three == 0 {
		// Near the end of the safe phase, search it to its end.
		if n := p.safeCount(); n > 0 && n <= b.safeExt {
			depth = 1
		}
	}
	if depth == 0 {
		v, work := p.playout(b.loony)
		b.nodes += work / 8
		return v
	}
	for len(b.plies) <= ply {
		b.plies = append(b.plies, nil)
	}
	all := p.moves(b.plies[ply][:0])
	b.plies[ply] = all
	b.nodes += len(all) / 8
	moves := b.limits.prune(p, all)
	b.order(moves, hint)
	origAlpha, best, bestMove := alpha, -1<<20, moves[0]
	for _, m := range moves {
		child := *p
		child.play(m)
		g := int(m.gain)
		v := g - b.negamax(&child, depth-1, ply+1, g-beta, g-alpha)
		if v > best {
			best, bestMove = v, m
		}
		if v > alpha {
			alpha = v
		}
		if alpha >= beta {
			break
		}
	}
	bound := int8(exact)
	switch {
	case best <= origAlpha:
		bound = upper
	case best >= beta:
		bound = lower
	}
	*slot = ttEntry{key: p.hash, value: int16(best), depth: int8(depth), bound: bound, best: bestMove}
	return best
}

// prune keeps the moves worth searching, at the root too: every capture,
// every short move that gives nothing away, and when there is no such quiet
// move, the moves that give the fewest boxes (which chain or box to open is
// the whole question then; declining a capture to do so can be right, since
// taking a box may hand over the next one). This is what lets the search
// reach the end of the safe phase, where tempo is decided. Near the end of
// the game nothing is pruned, so the endgame is solved exactly.
func (l pruneLimits) prune(p *position, moves []move) []move {
	if p.left < l.exactBelow {
		return moves
	}
	fewest := int8(127)
	for _, m := range moves {
		if m.gain == 0 {
			fewest = min(fewest, m.gives)
		}
	}
	quiet := fewest == 0
	maxQuiet := l.maxQuietLength
	if quiet && l.allQuietBelow > 0 && p.safeCount() < l.allQuietBelow {
		maxQuiet = MaxSize
	}
	kept := moves[:0]
	for _, m := range moves {
		switch {
		case m.gain > 0,
			quiet && m.gives == 0 && int(m.b-m.a) <= maxQuiet,
			!quiet && m.gain == 0 && m.gives == fewest:
			kept = append(kept, m)
		}
	}
	return kept
}

// order sorts moves best first by a cheap guess: the hinted move, then most
// boxes taken, then fewest given, then shorter lines.
func (b *searchBot) order(moves []move, hint move) {
	for i := range moves {
		m := &moves[i]
		m.key = int32(m.gain)*1000 - int32(m.gives)*10 - int32(m.b-m.a)
		if hint.b > 0 && m.line == hint.line && m.a == hint.a && m.b == hint.b {
			m.key = 1 << 20
		}
	}
	slices.SortStableFunc(moves, func(x, y move) int { return cmp.Compare(y.key, x.key) })
}

// playout plays the position to its end with a greedy policy on unit edges
// (take a box when one is open, else draw the first edge that gives nothing,
// else the first that gives one box, else the first; with loony set, once
// no edge is safe it opens chains by the chain rule instead, loonyEdge) and
// returns the mover's net boxes, and its work in edges (or boxes) looked at.
// It is the leaf evaluation, so it is kept to a few operations per edge.
func (p *position) playout(loony bool) (net, work int) {
	q := *p
	sign := 1
	for q.left > 0 {
		var gain int
		switch {
		case q.three != 0:
			box := bits.TrailingZeros64(q.three)
			for _, e := range q.g.boxEdges[box] {
				if !q.drawn.has(e) {
					gain = q.drawCapture(e)
					break
				}
			}
		default:
			e, looked := -1, 0
			if loony && !q.hasSafe() {
				e, looked = q.loonyEdge()
			}
			if e < 0 {
				var more int
				e, more = q.quietEdge()
				looked += more
			}
			q.drawEdge(e)
			work += looked
		}
		net += sign * gain
		sign = -sign
		work++
	}
	return net, work
}

// quietEdge is the playout's choice when nothing can be taken: the first
// edge that gives nothing; else the first edge of the first two-sided box
// that opens no other box; else that box's first free edge. It returns the
// work done, in edges looked at.
func (p *position) quietEdge() (e, looked int) {
	for w := range p.drawn {
		if safe := ^p.drawn[w] & p.g.valid[w] &^ p.unsafe[w]; safe != 0 {
			return w*64 + bits.TrailingZeros64(safe), 1
		}
	}
	first := -1
	for twos := p.two; twos != 0; twos &= twos - 1 {
		for _, e := range p.g.boxEdges[bits.TrailingZeros64(twos)] {
			if p.drawn.has(e) {
				continue
			}
			looked++
			if p.edgeGives(e) == 1 {
				return e, looked
			}
			if first < 0 {
				first = e
			}
		}
	}
	if first < 0 { // cannot happen: a free unsafe edge borders a two-sided box
		for w := range p.drawn {
			if free := ^p.drawn[w] & p.g.valid[w]; free != 0 {
				return w*64 + bits.TrailingZeros64(free), looked
			}
		}
	}
	return first, looked
}

// drawCapture draws edge e and, when it captures, the undrawn edges next to
// it on its line that capture too: one line can close a whole row of boxes.
// It returns the boxes closed.
func (p *position) drawCapture(e int) int {
	l, at := p.g.lineOf(e)
	edges := p.g.lines[l].edges
	a, b := at, at+1
	for a > 0 && !p.drawn.has(edges[a-1]) && p.edgeGain(edges[a-1]) > 0 {
		a--
	}
	for b < len(edges) && !p.drawn.has(edges[b]) && p.edgeGain(edges[b]) > 0 {
		b++
	}
	total := 0
	for _, e := range edges[a:b] {
		total += p.edgeGain(e)
	}
	p.play(move{line: int8(l), a: int8(a), b: int8(b)})
	return total
}
