package linesandboxes

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// TestAnalyzeExact (LNB_ANALYZE=A,B,boards,L) plays A against B on the
// tournament's boards, both seat orders, and judges every move made with at
// most L edges left against the exact solver.
func TestAnalyzeExact(t *testing.T) {
	spec := os.Getenv("LNB_ANALYZE")
	if spec == "" {
		t.Skip("LNB_ANALYZE not set")
	}
	var a, b string
	var boards, limit int
	if _, err := fmt.Sscanf(spec, "%s %s %d %d", &a, &b, &boards, &limit); err != nil {
		t.Fatal(err)
	}
	start := 0
	if s := os.Getenv("LNB_START"); s != "" {
		start, _ = strconv.Atoi(s)
	}
	type tally struct{ moves, bad, lost int }
	perBot := map[string]*tally{a: {}, b: {}}
	wins := [3]int{}
	for bd := start; bd < boards; bd++ {
		for first := 0; first < 2; first++ {
			s, bots := analysisGame(t, a, b, bd, first)
			names := [2]string{}
			names[first], names[1-first] = a, b
			x := newExactSolver(s.g)
			firstV, firstLeft, log := 0, -1, ""
			for !s.Done() {
				seat := s.ToMove()
				before := s.drawn
				sc := s.scores[seat]
				left := s.left
				line := bots[seat].Act(s, seat)
				v := s.Apply(answersFor(seat, line))
				if v[seat].Status != game.OK {
					t.Fatalf("bad answer")
				}
				if left <= limit {
					pv := x.value(before)
					if firstLeft < 0 {
						firstLeft = left
						firstV = pv
						if seat == 1 {
							firstV = -pv
						}
						firstV += int(s.scores[0] - s.scores[1])
						if seat == 0 {
							firstV -= int(s.scores[0]) - int(sc)
						} else {
							firstV += int(s.scores[1]) - int(sc)
						}
					}
					mv := int(s.scores[seat]-sc) - x.value(s.drawn)
					tl := perBot[names[seat]]
					tl.moves++
					if mv < pv {
						tl.bad++
						tl.lost += pv - mv
						log += fmt.Sprintf(" %s@%d:-%d", names[seat], left, pv-mv)
					}
				}
			}
			d := s.scores[0] - s.scores[1]
			if first == 1 {
				d = -d
			}
			switch {
			case d > 0:
				wins[0]++
			case d < 0:
				wins[2]++
			default:
				wins[1]++
			}
			t.Logf("board %d %dx%d %s first: final(seat0-seat1) %d, exact at %d left %d;%s", bd, s.g.rows, s.g.cols, names[0], s.scores[0]-s.scores[1], firstLeft, firstV, log)
		}
	}
	for name, tl := range perBot {
		t.Logf("%s: %d moves judged, %d lose value, %d boxes lost", name, tl.moves, tl.bad, tl.lost)
	}
	t.Logf("%s vs %s: won %d tied %d lost %d", a, b, wins[0], wins[1], wins[2])
}

// analysisGame starts the game of the tournament's board number board with
// bot a in seat first and b in the other (analysisBot names).
func analysisGame(t *testing.T, a, b string, board, first int) (*State, [2]game.HouseBot) {
	t.Helper()
	seed := rng.Mix(1, 0, uint64(board))
	s, err := NewState(seed, game.Params{"rows": "0", "cols": "0", "predrawn": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	var bots [2]game.HouseBot
	bots[first] = analysisBot(t, a, rng.Mix(seed, 1), first)
	bots[1-first] = analysisBot(t, b, rng.Mix(seed, 2), 1-first)
	return s, bots
}

// playAnalysisGame plays analysisGame's game to its end, calling before with
// the state before each move, and returns the finished state.
func playAnalysisGame(t *testing.T, a, b string, board, first int, before func(s *State)) *State {
	t.Helper()
	s, bots := analysisGame(t, a, b, board, first)
	for !s.Done() {
		before(s)
		seat := s.ToMove()
		s.Apply(answersFor(seat, bots[seat].Act(s, seat)))
	}
	return s
}

// analysisBot is a house bot, or "oracleN-NAME": NAME played exactly from N edges left.
func analysisBot(t *testing.T, name string, seed uint64, seat int) game.HouseBot {
	var n int
	var inner string
	if _, err := fmt.Sscanf(strings.Replace(name, "-", " ", 1), "oracle%d %s", &n, &inner); err == nil {
		return &oracleBot{inner: houseBot(t, inner, seed, seat), limit: n}
	}
	var bud, endBud, endAt, quiet, exactBelow, tt int
	if _, err := fmt.Sscanf(strings.ReplaceAll(name, ":", " "), "var %d %d %d %d %d %d", &bud, &endBud, &endAt, &quiet, &exactBelow, &tt); err == nil {
		return &searchBot{budget: bud, endBudget: endBud, endAt: endAt, tt: make([]ttEntry, 1<<tt), limits: pruneLimits{maxQuietLength: quiet, exactBelow: exactBelow}}
	}
	var chains, ext int
	if _, err := fmt.Sscanf(strings.ReplaceAll(name, ":", " "), "strongvar %d %d %d %d %d %d %d", &bud, &quiet, &exactBelow, &tt, &endAt, &chains, &ext); err == nil {
		b := newStrongBot()
		b.budget, b.limits.maxQuietLength, b.limits.exactBelow, b.limits.allQuietBelow, b.endAt, b.chains, b.safeExt = bud, quiet, exactBelow, tt, endAt, chains == 1, ext
		b.loony = false // the variants were measured before loony playouts
		return b
	}
	var rule int
	if _, err := fmt.Sscanf(strings.ReplaceAll(name, ":", " "), "loony %d %d %d %d", &bud, &tt, &rule, &ext); err == nil {
		b := newStrongBot()
		b.budget, b.limits.allQuietBelow, b.chains, b.safeExt = bud, tt, rule == 1, ext
		return b
	}
	return houseBot(t, name, seed, seat)
}

// oracleBot plays exactly (the slow solver) with at most limit edges left,
// and like inner before: an upper bound on what exact endgames can gain.
type oracleBot struct {
	inner game.HouseBot
	limit int
	x     *exactSolver
}

func (o *oracleBot) Act(s game.State, seat int) []byte {
	st := s.(*State)
	if st.left > o.limit {
		return o.inner.Act(s, seat)
	}
	if o.x == nil || o.x.g != st.g {
		o.x = newExactSolver(st.g)
	}
	p := st.position()
	best, bestV := move{}, -1<<20
	for _, m := range p.moves(nil) {
		c := p
		c.play(m)
		if v := int(m.gain) - o.x.value(c.drawn); v > bestV {
			best, bestV = m, v
		}
	}
	return ActionJSON(p.segment(best))
}

// TestSafePhaseEnd (LNB_SAFE_END="A B boards") plays A against B on the
// tournament's boards, both seat orders, and logs for each game where its
// safe phase ended (the first position with no safe line and nothing to
// take): the edges left, who must open, the chains and loops then, whether
// the chain rule is exact there, its value for the opener, and the final
// margin: how far the rule is from what the loony phase makes of it.
func TestSafePhaseEnd(t *testing.T) {
	spec := os.Getenv("LNB_SAFE_END")
	if spec == "" {
		t.Skip("LNB_SAFE_END not set")
	}
	var a, b string
	var boards int
	if _, err := fmt.Sscanf(spec, "%s %s %d", &a, &b, &boards); err != nil {
		t.Fatal(err)
	}
	exactRule, ties := 0, 0
	for bd := 0; bd < boards; bd++ {
		for first := 0; first < 2; first++ {
			end, ended := "the safe phase never ended", false
			s := playAnalysisGame(t, a, b, bd, first, func(s *State) {
				p := s.position()
				if ended || p.three != 0 || p.hasSafe() {
					return
				}
				ended = true
				odd, even, loops, clean := p.chainStructure()
				opener := a
				if s.ToMove() != first {
					opener = b
				}
				if clean {
					exactRule++
				}
				end = fmt.Sprintf("%d edges left, %s opens: %d odd chains, %d even, %d loops, rule exact %v, rule %+d for the opener, %s ahead by %d",
					p.left, opener, odd, even, loops, clean, ruleValue(odd, even, loops), a, s.scores[first]-s.scores[1-first])
			})
			margin := s.scores[first] - s.scores[1-first]
			if margin == 0 {
				ties++
			}
			t.Logf("board %d %dx%d, %s first %v: %s; final margin %+d", bd, s.g.rows, s.g.cols, a, first == 0, end, margin)
		}
	}
	t.Logf("%d games: the chain rule exact where the safe phase ended in %d, %d ties", 2*boards, exactRule, ties)
}

// TestLoonyPlayoutAccuracy (LNB_LOONY_ACC=boards) measures the searches'
// leaf values where the games are decided: in strong's games against search
// on the tournament's boards, every position past the safe phase (no safe
// line) with at most 20 edges left is valued by the exact solver and by
// both playouts (search's greedy one, strong's loony one). Where a box can
// be taken it also counts the positions where every best move declines it,
// and those where every best move is a capturing line of two or more edges.
func TestLoonyPlayoutAccuracy(t *testing.T) {
	boards, _ := strconv.Atoi(os.Getenv("LNB_LOONY_ACC"))
	if boards == 0 {
		t.Skip("LNB_LOONY_ACC not set")
	}
	var positions, capturable, declineBest, longCaptureBest int
	var exact, absErr [2]int // greedy playout, loony playout
	for bd := 0; bd < boards; bd++ {
		for first := 0; first < 2; first++ {
			var x *exactSolver
			playAnalysisGame(t, "strong", "search", bd, first, func(s *State) {
				p := s.position()
				if s.left > 20 || p.hasSafe() {
					return
				}
				if x == nil {
					x = newExactSolver(s.g)
				}
				want := x.value(p.drawn)
				positions++
				for i, loony := range []bool{false, true} {
					v, _ := p.playout(loony)
					if v == want {
						exact[i]++
					}
					absErr[i] += max(v-want, want-v)
				}
				if p.three == 0 {
					return
				}
				capturable++
				// The best value of moves that take nothing, that take with
				// one edge, and that take with more.
				best := [3]int{-1 << 20, -1 << 20, -1 << 20}
				for _, m := range p.moves(nil) {
					c := p
					c.play(m)
					kind := 0
					if m.gain > 0 {
						kind = min(int(m.b-m.a), 2)
					}
					best[kind] = max(best[kind], int(m.gain)-x.value(c.drawn))
				}
				if best[0] > max(best[1], best[2]) {
					declineBest++
				}
				if best[2] > max(best[0], best[1]) {
					longCaptureBest++
				}
			})
		}
	}
	if positions == 0 {
		t.Fatal("no position judged")
	}
	for i, name := range []string{"greedy", "loony"} {
		t.Logf("%s playout: exact on %d of %d positions, %.2f boxes off on average", name, exact[i], positions, float64(absErr[i])/float64(positions))
	}
	t.Logf("%d with a box to take: declining it is best in %d, a capturing line of two or more edges in %d", capturable, declineBest, longCaptureBest)
}
