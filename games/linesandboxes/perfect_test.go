package linesandboxes

import (
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// fastSolver is an exact solver for whole small boards (at most 64 edges,
// in practice 3x3 to 4x4): negamax alpha-beta over the drawn-edge bitmask
// with a lossy transposition table of value bounds. Like exactSolver it
// values a position as the mover's net future boxes under best play, with
// its own move generation and box counting.
type fastSolver struct {
	g       *geom
	moves   []fastMove
	boxMask []uint64
	tt      []uint64 // pairs of entries, see ttEntry
	ttShift uint
	nodes   int64
}

// A fastMove is edges a..b-1 of line li, with the boxes next to them.
type fastMove struct {
	mask     uint64
	boxes    []int
	li, a, b int8
}

// Entry layout: bits 0-39 the drawn set, bits 40-46 the best move, bit 47
// set when used, bits 48-55 the lower bound + 128, bits 56-63 the upper.
const (
	ttStateBits = 40
	ttUsed      = 1 << 47
)

func newFastSolver(g *geom, ttBits uint) *fastSolver {
	if g.n > ttStateBits {
		panic("fastSolver: board too big")
	}
	x := &fastSolver{g: g, tt: make([]uint64, 2<<ttBits), ttShift: 64 - ttBits}
	for b := range g.boxEdges {
		var m uint64
		for _, e := range g.boxEdges[b] {
			m |= 1 << e
		}
		x.boxMask = append(x.boxMask, m)
	}
	for li := range g.lines {
		edges := g.lines[li].edges
		for a := range edges {
			var m uint64
			var boxes []int
			for b := a; b < len(edges); b++ {
				m |= 1 << edges[b]
				for _, box := range g.edgeBoxes[edges[b]] {
					if box >= 0 && !slices.Contains(boxes, box) {
						boxes = append(boxes, box)
					}
				}
				x.moves = append(x.moves, fastMove{mask: m, boxes: append([]int(nil), boxes...), li: int8(li), a: int8(a), b: int8(b + 1)})
			}
		}
	}
	if len(x.moves) > 127 {
		panic("fastSolver: too many moves")
	}
	return x
}

// reset empties the table for a new board.
func (x *fastSolver) reset() { clear(x.tt) }

// open counts the boxes not yet closed in s.
func (x *fastSolver) open(s uint64) int {
	n := 0
	for _, m := range x.boxMask {
		if s&m != m {
			n++
		}
	}
	return n
}

// gain counts the boxes move i closes in s, and the boxes it leaves with
// three sides.
func (x *fastSolver) gain(s uint64, i int) (gain, gives int) {
	m := &x.moves[i]
	c := s | m.mask
	for _, b := range m.boxes {
		bm := x.boxMask[b]
		switch bits.OnesCount64(c & bm) {
		case 4:
			if s&bm != bm {
				gain++
			}
		case 3:
			gives++
		}
	}
	return
}

// legal lists the moves legal in s.
func (x *fastSolver) legal(s uint64, dst []int) []int {
	for i := range x.moves {
		if x.moves[i].mask&s == 0 {
			dst = append(dst, i)
		}
	}
	return dst
}

func (x *fastSolver) slot(s uint64) int {
	return int((s*0x9E3779B97F4A7C15)>>x.ttShift) * 2
}

func (x *fastSolver) probe(s uint64) (lo, hi, best int, ok bool) {
	i := x.slot(s)
	for j := i; j < i+2; j++ {
		e := x.tt[j]
		if e&ttUsed != 0 && e&(1<<ttStateBits-1) == s {
			return int(e>>48&0xff) - 128, int(e>>56) - 128, int(e >> ttStateBits & 0x7f), true
		}
	}
	return 0, 0, 0, false
}

func (x *fastSolver) store(s uint64, lo, hi, best int) {
	e := s | uint64(best)<<ttStateBits | ttUsed | uint64(lo+128)<<48 | uint64(hi+128)<<56
	i := x.slot(s)
	for j := i; j < i+2; j++ {
		if x.tt[j]&ttUsed == 0 || x.tt[j]&(1<<ttStateBits-1) == s {
			x.tt[j] = e
			return
		}
	}
	// Keep the entry with more edges left to draw (more work behind it).
	a := bits.OnesCount64(x.tt[i] & (1<<ttStateBits - 1))
	b := bits.OnesCount64(x.tt[i+1] & (1<<ttStateBits - 1))
	if a > b {
		x.tt[i] = e
	} else {
		x.tt[i+1] = e
	}
}

// search is fail-soft negamax: the value of s (open boxes not closed) if it
// lies strictly between alpha and beta, else a bound on the right side.
func (x *fastSolver) search(s uint64, open, alpha, beta int) int {
	x.nodes++
	if open == 0 {
		return 0
	}
	if alpha >= open {
		return open
	}
	if beta <= -open {
		return -open
	}
	lo, hi, ttBest, found := x.probe(s)
	if !found {
		lo, hi, ttBest = -open, open, -1
	}
	if lo >= beta {
		return lo
	}
	if hi <= alpha || lo == hi {
		return hi
	}
	alpha, beta = max(alpha, lo), min(beta, hi)
	var buf [128]int32
	var keys [128]int32
	n := 0
	for i := range x.moves {
		if x.moves[i].mask&s != 0 {
			continue
		}
		g, gv := x.gain(s, i)
		k := int32(g*64 - gv*8 + int(x.moves[i].b-x.moves[i].a))
		if i == ttBest {
			k = 1 << 20
		}
		// insertion sort, best key first
		j := n
		for j > 0 && keys[j-1] < k {
			keys[j], buf[j] = keys[j-1], buf[j-1]
			j--
		}
		keys[j], buf[j] = k, int32(i)
		n++
	}
	a0, b0 := alpha, beta
	best, bestMove := -1<<20, 0
	for _, i := range buf[:n] {
		g, _ := x.gain(s, int(i))
		v := g - x.search(s|x.moves[i].mask, open-g, g-beta, g-alpha)
		if v > best {
			best, bestMove = v, int(i)
		}
		if best > alpha {
			alpha = best
			if alpha >= beta {
				break
			}
		}
	}
	switch {
	case best <= a0:
		hi = min(hi, best)
	case best >= b0:
		lo = max(lo, best)
	default:
		lo, hi = best, best
	}
	x.store(s, lo, hi, bestMove)
	return best
}

// value is the exact value of s.
func (x *fastSolver) value(s uint64) int {
	open := x.open(s)
	return x.search(s, open, -open-1, open+1)
}

// atMost reports whether the value of s is at most t.
func (x *fastSolver) atMost(s uint64, t int) bool {
	return x.search(s, x.open(s), t, t+1) <= t
}

// TestFastSolverAgrees checks fastSolver against exactSolver on positions
// with 12 to 18 edges left from random play on several board sizes.
func TestFastSolverAgrees(t *testing.T) {
	src := rng.New(7)
	checked := 0
	for _, sz := range [][2]int{{3, 3}, {3, 4}, {4, 3}, {4, 4}, {3, 5}} {
		g := geoms[sz[0]][sz[1]]
		fx := newFastSolver(g, 16)
		for trial := 0; trial < 6; trial++ {
			ex := newExactSolver(g)
			left := 12 + src.Intn(7)
			// Draw random unit edges (and sometimes longer lines) until left remain.
			var s uint64
			for bits.OnesCount64(s) < g.n-left {
				var legal []int
				legal = fx.legal(s, legal)
				i := legal[src.Intn(len(legal))]
				if g.n-bits.OnesCount64(s|fx.moves[i].mask) < left {
					continue
				}
				s |= fx.moves[i].mask
			}
			es := edgeSet{s}
			want := ex.value(es)
			if got := fx.value(s); got != want {
				t.Fatalf("%dx%d %x: fast %d, exact %d", sz[0], sz[1], s, got, want)
			}
			// And every child, through the bound tests too.
			for _, i := range fx.legal(s, nil) {
				c := s | fx.moves[i].mask
				wc := ex.value(edgeSet{c})
				if fx.value(c) != wc || !fx.atMost(c, wc) || fx.atMost(c, wc-1) {
					t.Fatalf("%dx%d %x child %d: disagree", sz[0], sz[1], s, i)
				}
				checked++
			}
			checked++
		}
	}
	t.Logf("%d positions agree", checked)
}

// perfectBot plays a value-keeping move; aware prefers, among those, the one
// that leaves the opponent the most value-losing replies.
type perfectBot struct {
	x     *fastSolver
	aware bool
	from  int // aware only with at most this many edges left (0: always)
}

func (p *perfectBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	d := s.drawn[0]
	m := p.x.choose(d, p.aware && (p.from == 0 || s.left <= p.from))
	mv := p.x.moves[m]
	return ActionJSON(s.g.lineSegment(&s.g.lines[mv.li], int(mv.a), int(mv.b)))
}

// choose returns a move keeping s's exact value; with aware, the one whose
// child has the most replies that lose value (ties: the first).
func (x *fastSolver) choose(s uint64, aware bool) int {
	v := x.value(s)
	bestMove, bestCount := -1, -1
	order := x.legal(s, nil)
	if _, _, tb, ok := x.probe(s); ok && !aware && x.moves[tb].mask&s == 0 {
		order = append([]int{tb}, order...) // the table's best move first
	}
	for _, i := range order {
		g, _ := x.gain(s, i)
		c := s | x.moves[i].mask
		if !x.atMost(c, g-v) { // g - value(c) < v
			continue
		}
		if !aware {
			return i
		}
		vc := g - v // the child's exact value
		count := 0
		for _, j := range x.legal(c, nil) {
			g2, _ := x.gain(c, j)
			if !x.atMost(c|x.moves[j].mask, g2-vc) { // g2 - value < vc
				count++
			}
		}
		if count > bestCount {
			bestMove, bestCount = i, count
		}
	}
	if bestMove < 0 {
		panic("no move keeps the value")
	}
	return bestMove
}

// TestPerfectUpperBound (LNB_UPPER="OPPS SIZES BOARDS [aware|both]", e.g.
// "search,search-deep 3x3,3x4,4x3 40 both") plays a perfect player
// (fastSolver from the first move; aware: with the opponent-aware
// tie-break, both: each) against each house bot of OPPS on the first BOARDS tournament boards
// (analysisGame's seeds) whose size is in SIZES, both seat orders, and
// tallies wins, ties and losses by odd and even boards, the start values,
// and OPP's value-losing moves by edges left.
func TestPerfectUpperBound(t *testing.T) {
	spec := os.Getenv("LNB_UPPER")
	if spec == "" {
		t.Skip("LNB_UPPER not set")
	}
	f := strings.Fields(spec)
	if len(f) < 3 {
		t.Fatal("want OPP SIZES BOARDS [aware|both]")
	}
	opps := strings.Split(f[0], ",")
	sizes := map[[2]int]bool{}
	for _, sz := range strings.Split(f[1], ",") {
		var r, c int
		if _, err := fmt.Sscanf(sz, "%dx%d", &r, &c); err != nil {
			t.Fatal(err)
		}
		sizes[[2]int{r, c}] = true
	}
	var boards int
	fmt.Sscan(f[2], &boards)
	variants := []bool{false}
	if len(f) > 3 {
		switch f[3] {
		case "aware":
			variants = []bool{true}
		case "both":
			variants = []bool{false, true}
		}
	}
	// LNB_AWARE_FROM=N: the aware tie-break only with at most N edges
	// left (the opponents' value-losing moves all came at 13 to 24).
	awareFrom := 0
	if v := os.Getenv("LNB_AWARE_FROM"); v != "" {
		fmt.Sscan(v, &awareFrom)
	}
	// LNB_UPPER_DISTINCT=1 skips boards whose start repeats an earlier one
	// (the bots are deterministic, so their games repeat too).
	distinct := os.Getenv("LNB_UPPER_DISTINCT") != ""
	seen := map[[2]uint64]bool{}
	ttBits := uint(27)
	if v := os.Getenv("LNB_UPPER_TT"); v != "" {
		fmt.Sscan(v, &ttBits)
	}
	solvers := map[*geom]*fastSolver{}
	solverFor := func(g *geom) *fastSolver {
		if x, ok := solvers[g]; ok {
			return x
		}
		for k := range solvers { // one table at a time
			delete(solvers, k)
		}
		x := newFastSolver(g, ttBits)
		solvers[g] = x
		return x
	}
	type tally struct{ won, tied, lost int }
	type result struct {
		res      [2]tally // odd, even
		tiedAt0  int      // even-board ties where the perfect seat's start value was 0
		tiedNeg  int      // ... was negative (opp erred)
		winFromL int      // wins from a start value <= 0 for the perfect seat
		oppMoves map[int][2]int
	}
	type runKey struct {
		aware bool
		opp   string
	}
	var runs []runKey
	for _, opp := range opps {
		for _, aware := range variants {
			runs = append(runs, runKey{aware, opp})
		}
	}
	results := make([]result, len(runs))
	for i := range results {
		results[i].oppMoves = map[int][2]int{}
	}
	startVals := map[string]map[int]int{"odd": {}, "even": {}}
	startWithZero := 0
	begin := time.Now()
	found := 0
	for bd := 0; found < boards; bd++ {
		seed := rng.Mix(1, 0, uint64(bd))
		s0, err := NewState(seed, game.Params{"rows": "0", "cols": "0", "predrawn": "-1"})
		if err != nil {
			t.Fatal(err)
		}
		if !sizes[[2]int{s0.g.rows, s0.g.cols}] {
			continue
		}
		if key := [2]uint64{uint64(s0.g.rows*16 + s0.g.cols), s0.drawn[0]}; distinct && seen[key] {
			continue
		} else {
			seen[key] = true
		}
		found++
		x := solverFor(s0.g)
		x.reset()
		boardStart := time.Now()
		nodes0 := x.nodes
		v0 := x.value(s0.drawn[0]) // seat 0's exact value at the start
		nb := 0
		for _, o := range s0.owner {
			if o == Open {
				nb++
			}
		}
		parity := "odd"
		pi := 0
		if nb%2 == 0 {
			parity, pi = "even", 1
		}
		startVals[parity][v0]++
		if v0 == 0 {
			startWithZero++
		}
		line := fmt.Sprintf("board %d %dx%d: %d predrawn lines, %d edges left, %d open boxes (%s), start value %+d (%.1fs, %d nodes);",
			bd, s0.g.rows, s0.g.cols, len(s0.moves), s0.left, nb, parity, v0, time.Since(boardStart).Seconds(), x.nodes-nodes0)
		for vi, run := range runs {
			aware, opp := run.aware, run.opp
			r := &results[vi]
			for first := 0; first < 2; first++ {
				s, _ := NewState(seed, game.Params{"rows": "0", "cols": "0", "predrawn": "-1"})
				var bots [2]game.HouseBot
				bots[first] = &perfectBot{x: x, aware: aware, from: awareFrom}
				bots[1-first] = houseBot(t, opp, rng.Mix(seed, 2), 1-first)
				var errs []string
				for !s.Done() {
					seat := s.ToMove()
					d := s.drawn[0]
					left := s.left
					sc := s.scores[seat]
					var pv int
					if seat != first {
						pv = x.value(d)
					}
					v := s.Apply(answersFor(seat, bots[seat].Act(s, seat)))
					if v[seat].Status != game.OK {
						t.Fatalf("bad answer")
					}
					if seat != first {
						mv := int(s.scores[seat]-sc) - x.value(s.drawn[0])
						c := r.oppMoves[left]
						c[0]++
						if mv < pv {
							c[1]++
							errs = append(errs, fmt.Sprintf("@%d:-%d", left, pv-mv))
						}
						r.oppMoves[left] = c
					}
				}
				d := int(s.scores[first] - s.scores[1-first])
				pv0 := v0
				if first == 1 {
					pv0 = -v0
				}
				switch {
				case d > 0:
					r.res[pi].won++
					if pv0 <= 0 {
						r.winFromL++
					}
				case d < 0:
					r.res[pi].lost++
				default:
					r.res[pi].tied++
					if pv0 == 0 {
						r.tiedAt0++
					} else {
						r.tiedNeg++
					}
				}
				if d < pv0 {
					t.Errorf("board %d: perfect ended %+d below its start value %+d", bd, d, pv0)
				}
				name := "perfect"
				if aware {
					name = "aware"
				}
				line += fmt.Sprintf(" %s seat %d: %+d (start %+d) %s errs %v;", name, first, d, pv0, opp, errs)
			}
		}
		t.Logf("%s %.1fs", line, time.Since(boardStart).Seconds())
	}
	t.Logf("%d boards, %s", found, time.Since(begin).Round(time.Second))
	t.Logf("start values (seat 0, first to move): odd %v, even %v; %d of %d zero", startVals["odd"], startVals["even"], startWithZero, found)
	for vi, run := range runs {
		aware, opp := run.aware, run.opp
		r := results[vi]
		name := "perfect"
		if aware {
			name = "aware"
		}
		tot := tally{r.res[0].won + r.res[1].won, r.res[0].tied + r.res[1].tied, r.res[0].lost + r.res[1].lost}
		t.Logf("%s vs %s: odd boards won %d tied %d lost %d; even boards won %d tied %d lost %d; all won %d tied %d lost %d of %d (%.1f%% wins)",
			name, opp, r.res[0].won, r.res[0].tied, r.res[0].lost, r.res[1].won, r.res[1].tied, r.res[1].lost,
			tot.won, tot.tied, tot.lost, 2*found, 100*float64(tot.won)/float64(2*found))
		t.Logf("%s: ties from start value 0: %d, from a lost start: %d; wins from a start value <= 0: %d", name, r.tiedAt0, r.tiedNeg, r.winFromL)
		var phases []string
		for lo := 0; lo < 64; lo += 4 {
			moves, bad := 0, 0
			for l := lo + 1; l <= lo+4; l++ {
				moves += r.oppMoves[l][0]
				bad += r.oppMoves[l][1]
			}
			if moves > 0 {
				phases = append(phases, fmt.Sprintf("%d-%d left: %d/%d", lo+1, lo+4, bad, moves))
			}
		}
		t.Logf("%s: %s's value-losing moves by edges left: %s", name, opp, strings.Join(phases, ", "))
	}
}
