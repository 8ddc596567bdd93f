package dotsandboxes

// Tools for studying where builtin:search loses (docs/bots-strength.md,
// "Against a public engine"). None runs unless its variable is set:
//
//   - TestEngineStudy plays the search against an outside engine, DNB_ENGINE
//     (a command that reads one line of drawn edge indexes in drawn order and
//     prints the index of its edge, as scripts/dnb-engine-adapter.py feeds
//     it), on DNB_BOARDS boards from DNB_FIRST, each with either side first;
//     the engine's first DNB_OPENING moves are random safe edges drawn from
//     the board number, so that deterministic players do not replay one game.
//     It writes the games to DNB_OUT (JSON lines) and logs the search's CPU
//     time a move. In-process and without the protocol, it is the quick form
//     of `arena tournament` with the adapter, not the measure of record.
//   - TestEngineLosses reads such games (DNB_IN) and, from DNB_EXACT free
//     edges on, values every position of the games the search did not win
//     with the exact solver, to find the moves that lost boxes. With
//     DNB_ORACLE=search it values them with the search itself, unlimited,
//     which is exact too and many times faster at 36 to 40 free edges.
//   - TestSearchUnlimited runs the search with no depth or node limit on
//     positions of those games (DNB_UNLIMITED) and compares its value and its
//     move with the exact solver's.
//   - TestSearchNodes runs the search with no depth or node limit on the
//     first DNB_MAXPOS positions of DNB_NODES's games that have DNB_F free
//     edges and no capture pending, and prints its nodes and time: the
//     measure of the exact search's cost.
//   - TestSearchSlowMoves times the hard level's move, from a cold table, at
//     every position of DNB_SLOW's games with 37 or 38 free edges and no
//     capture pending, where its exact attempt runs: its slowest moves.
//   - TestChainsStudy plays DNB_CHAINS_BOARDS seat-balanced boards against
//     chains on the tournament's boards (seed 1).
//
// LV_NODES, LV_QUIET, LV_LATENODES, LV_LATEFREE, LV_PLAYOUTS, LV_ALLGIFTS,
// LV_EXACTNODES, LV_EXACTFREE and LV_TABLEBITS change the hard level's
// settings for them.
//
//   - TestMiddleAccuracy scores the level on positions of the fight for
//     control whose moves the unlimited search has valued (its comment).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arenabots/arena/game"
	solver "github.com/arenabots/arena/games/dotsandboxes/exact"
	"github.com/arenabots/arena/internal/rng"
)

type engineProc struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	out *bufio.Scanner
}

func startEngine(t testing.TB, spec string) *engineProc {
	f := strings.Fields(spec)
	cmd := exec.Command(f[0], f[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &engineProc{cmd: cmd, in: bufio.NewWriter(stdin), out: bufio.NewScanner(stdout)}
}

// move asks the engine for its edge; NoEdge when it fails to answer one (the
// caller plays the default move then, as the platform would).
func (p *engineProc) move(history []Edge) Edge {
	var sb strings.Builder
	for i, e := range history {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(strconv.Itoa(int(e)))
	}
	sb.WriteByte('\n')
	if _, err := p.in.WriteString(sb.String()); err != nil {
		return NoEdge
	}
	if err := p.in.Flush(); err != nil || !p.out.Scan() {
		return NoEdge
	}
	v, err := strconv.Atoi(strings.TrimSpace(p.out.Text()))
	if err != nil {
		return NoEdge
	}
	return Edge(v)
}

type harnessGame struct {
	Board      int    `json:"board"`
	SearchSeat int    `json:"search_seat"`
	Moves      []Edge `json:"moves"`
	Score      [2]int `json:"score"`
}

func harnessLevel() searchLevel {
	lv := levelHard
	set := func(name string, p *int) {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				panic(fmt.Sprintf("%s=%q: %v", name, v, err))
			}
			*p = n
		}
	}
	set("LV_NODES", &lv.nodes)
	set("LV_QUIET", &lv.quiet)
	set("LV_LATENODES", &lv.lateNodes)
	set("LV_LATEFREE", &lv.lateFree)
	set("LV_PLAYOUTS", &lv.playouts)
	set("LV_ALLGIFTS", &lv.allGifts)
	set("LV_EXACTNODES", &lv.exactNodes)
	set("LV_EXACTFREE", &lv.exactFree)
	set("LV_TABLEBITS", &lv.tableBits)
	set("LV_NEARNODES", &lv.nearNodes)
	set("LV_NEARFREE", &lv.nearFree)
	return lv
}

func TestEngineStudy(t *testing.T) {
	spec := os.Getenv("DNB_ENGINE")
	if spec == "" {
		t.Skip("DNB_ENGINE not set")
	}
	boards := envInt("DNB_BOARDS", 10)
	first := envInt("DNB_FIRST", 1)
	opening := envInt("DNB_OPENING", 2)
	lv := harnessLevel()
	t.Logf("level %+v", lv)
	eng := startEngine(t, spec)
	defer eng.cmd.Process.Kill()
	var outF *os.File
	if p := os.Getenv("DNB_OUT"); p != "" {
		var err error
		if outF, err = os.Create(p); err != nil {
			t.Fatal(err)
		}
		defer outF.Close()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpuTotal, cpuWorst time.Duration
	searchMoves, nodeTotal := 0, 0
	engineWins, margin, games := 0, 0, 0
	for board := first; board < first+boards; board++ {
		for searchSeat := 0; searchSeat < 2; searchSeat++ {
			src := rng.New(uint64(board) * 7919)
			st := NewState(int64(board))
			bot := &searchBot{lv: lv}
			var history []Edge
			engMoves := 0
			for !st.Over() {
				var e Edge
				if int(st.ToMove) == searchSeat {
					if bot.s != nil {
						bot.s.nodes = 0
					}
					t0 := threadCPU()
					e = bot.move(&st.Board)
					d := threadCPU() - t0
					cpuTotal += d
					cpuWorst = max(cpuWorst, d)
					searchMoves++
					nodeTotal += bot.s.nodes
				} else {
					_, safe, _ := st.classify()
					if engMoves < opening && safe != 0 {
						e = nthBit(safe, src.Intn(bits.OnesCount64(safe)))
					} else {
						e = eng.move(history)
						if e < 0 || e >= NumEdges || st.IsDrawn(e) {
							t.Logf("engine bad answer %d", e)
							e = st.FirstUndrawn()
						}
					}
					engMoves++
				}
				st.Play(e)
				history = append(history, e)
			}
			sc := [2]int{st.Score(0), st.Score(1)}
			d := sc[1-searchSeat] - sc[searchSeat]
			if d > 0 {
				engineWins++
			}
			margin += d
			games++
			t.Logf("board %d search seat %d: engine %+d", board, searchSeat, d)
			if outF != nil {
				b, err := json.Marshal(harnessGame{board, searchSeat, history, sc})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := fmt.Fprintln(outF, string(b)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	t.Logf("CPU search: %d moves, mean %.1f ms, worst %.1f ms, mean nodes %d", searchMoves, float64(cpuTotal.Microseconds())/1000/float64(searchMoves), float64(cpuWorst.Microseconds())/1000, nodeTotal/searchMoves)
	t.Logf("RESULT engine wins %d of %d, mean engine margin %+.2f", engineWins, games, float64(margin)/float64(games))
}

// studyGames reads the games TestEngineStudy wrote to the file that the
// variable names, skipping the test when it is not set.
func studyGames(t *testing.T, variable string) []harnessGame {
	path := os.Getenv(variable)
	if path == "" {
		t.Skip(variable + " not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var games []harnessGame
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var g harnessGame
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		games = append(games, g)
	}
	return games
}

// move is Act without the state and the JSON.
func (b *searchBot) move(bd *Board) Edge {
	if b.s == nil {
		b.s = newSearcher(b.lv)
	}
	return b.s.bestMove(bd)
}

// TestEngineLosses walks the games of DNB_IN that the engine won and
// prints the exact value (to the search's side) of every position from
// DNB_EXACT free edges on, marking the search's moves that lost value.
func TestEngineLosses(t *testing.T) {
	games := studyGames(t, "DNB_IN")
	limit := envInt("DNB_EXACT", 30)
	ab, err := solver.NewAlphaBeta(Rows, Cols, 23)
	if err != nil {
		t.Fatal(err)
	}
	value := ab.Value
	if os.Getenv("DNB_ORACLE") == "search" {
		value = func(drawn uint64) int {
			b := Board{Drawn: drawn}
			if b.Over() {
				return 0
			}
			s := unlimitedSearcher(22)
			_, v, _ := s.root(&b, s.moves(&b), NumEdges)
			return v
		}
	}
	for _, g := range games {
		if g.Score[g.SearchSeat] > g.Score[1-g.SearchSeat] && os.Getenv("DNB_ALL") == "" {
			continue
		}
		var b Board
		prev := 99
		prevWho := ""
		for i, e := range g.Moves {
			free := bits.OnesCount64(b.Undrawn())
			if free <= limit {
				v := value(b.Drawn)
				// to the search's side, counting boxes so far
				sv := b.Score(g.SearchSeat) - b.Score(1-g.SearchSeat)
				if int(b.ToMove) == g.SearchSeat {
					sv += v
				} else {
					sv -= v
				}
				mark := ""
				if prev != 99 && sv < prev {
					mark = " <-- lost"
				}
				if free == limit || mark != "" {
					_, safe, _ := b.classify()
					t.Logf("board %d seat %d ply %d free %d safe %d: final for search %+d (last move by %s)%s drawn %x", g.Board, g.SearchSeat, i, free, bits.OnesCount64(safe), sv, prevWho, mark, b.Drawn)
				}
				prev = sv
			}
			prevWho = "engine"
			if int(b.ToMove) == g.SearchSeat {
				prevWho = "search"
			}
			b.Play(e)
		}
		t.Logf("board %d seat %d: final %v", g.Board, g.SearchSeat, g.Score)
	}
}

// TestChainsStudy plays the harness level against chains, seat-balanced,
// on the tournament's board seeds (seed 1, round 0).
func TestChainsStudy(t *testing.T) {
	boards := envInt("DNB_CHAINS_BOARDS", 0)
	if boards == 0 {
		t.Skip("DNB_CHAINS_BOARDS not set")
	}
	lv := harnessLevel()
	t.Logf("level %+v", lv)
	wins, margin, games := 0, 0, 0
	for b := 0; b < boards; b++ {
		for searchSeat := 0; searchSeat < 2; searchSeat++ {
			st, bots := chainsPairing(b, searchSeat, lv)
			for !st.Over() {
				answers := [][]byte{bots[0].Act(st, 0), bots[1].Act(st, 1)}
				st.Apply(answers)
			}
			d := st.Score(searchSeat) - st.Score(1-searchSeat)
			if d > 0 {
				wins++
			} else {
				t.Logf("board %d search seat %d: %+d", b, searchSeat, d)
			}
			margin += d
			games++
		}
	}
	t.Logf("RESULT search wins %d of %d against chains, mean margin %+.2f", wins, games, float64(margin)/float64(games))
}

// TestSearchUnlimited: see the file's comment. Positions with a capture
// pending are skipped (the search makes it without searching).
func TestSearchUnlimited(t *testing.T) {
	games := studyGames(t, "DNB_UNLIMITED")
	frees := []int{envInt("DNB_F1", 34), envInt("DNB_F2", 33), 32, 30}
	for gi, g := range games {
		if gi >= envInt("DNB_MAXGAMES", 6) {
			break
		}
		var b Board
		for _, e := range g.Moves {
			free := bits.OnesCount64(b.Undrawn())
			closing, _, _ := b.classify()
			for _, f := range frees {
				if free == f && closing == 0 {
					ab, err := solver.NewAlphaBeta(Rows, Cols, 22)
					if err != nil {
						t.Fatal(err)
					}
					v := ab.Value(b.Drawn)
					s := newSearcher(harnessLevel())
					s.budget = 1 << 40
					moves := s.moves(&b)
					t0 := time.Now()
					best, bv, _ := s.root(&b, moves, NumEdges)
					d := time.Since(t0)
					after := b
					n := after.Play(best)
					mv := n + ab.Value(after.Drawn)
					if n == 0 {
						mv = -ab.Value(after.Drawn)
					}
					t.Logf("game %d free %d: exact %d, bot %d (its move worth %d) nodes %d in %v inexact %v", gi, free, v, bv, mv, s.nodes, d.Round(time.Millisecond), s.inexact)
				}
			}
			b.Play(e)
		}
	}
}

// TestSearchNodes: see the file's comment.
func TestSearchNodes(t *testing.T) {
	games := studyGames(t, "DNB_NODES")
	f, maxPos := envInt("DNB_F", 34), envInt("DNB_MAXPOS", 20)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	total, n := 0, 0
	var cpu time.Duration
	for _, g := range games {
		var b Board
		for _, e := range g.Moves {
			closing, _, _ := b.classify()
			if bits.OnesCount64(b.Undrawn()) == f && closing == 0 && n < maxPos {
				s := newSearcher(harnessLevel())
				s.budget = math.MaxInt
				t0 := threadCPU()
				best, v, _ := s.root(&b, s.moves(&b), NumEdges)
				d := threadCPU() - t0
				cpu += d
				total += s.nodes
				n++
				t.Logf("position %d: move %d, value %+d, %d nodes, %v CPU", n, best, v, s.nodes, d.Round(time.Millisecond))
			}
			b.Play(e)
		}
	}
	t.Logf("RESULT %d positions at %d free edges: %d nodes, %v CPU", n, f, total, cpu.Round(time.Millisecond))
}

// midPosition is a position of the fight for control with the exact value
// of each of the search's root moves there.
type midPosition struct {
	Drawn  uint64       `json:"drawn"`
	Owned  [2]uint32    `json:"owned"`
	ToMove int8         `json:"to_move"`
	Values map[Edge]int `json:"values"` // move -> exact net boxes for the mover from here on
}

// TestMiddleAccuracy measures the hard level (as LV_* set it) on positions
// of the engine games DNB_MID_GAMES with DNB_MID_FREE free edges (40 by
// default), where the games are decided and no exact search fits in a move:
// the share of positions where its move keeps the exact value, and the mean
// boxes its moves lose. The exact values of every move take about a second
// each; they are kept in DNB_MID (JSON lines), made on the first run.
func TestMiddleAccuracy(t *testing.T) {
	path := os.Getenv("DNB_MID")
	if path == "" {
		t.Skip("DNB_MID not set")
	}
	var positions []midPosition
	if data, err := os.ReadFile(path); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var p midPosition
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			positions = append(positions, p)
		}
	} else {
		games := studyGames(t, "DNB_MID_GAMES")
		free, most := envInt("DNB_MID_FREE", 40), envInt("DNB_MID_MAX", 30)
		for _, g := range games {
			var b Board
			for _, e := range g.Moves {
				closing, _, _ := b.classify()
				if bits.OnesCount64(b.Undrawn()) == free && closing == 0 {
					positions = append(positions, midPosition{Drawn: b.Drawn, Owned: b.Owned, ToMove: b.ToMove, Values: map[Edge]int{}})
					break
				}
				b.Play(e)
			}
			if len(positions) == most {
				break
			}
		}
		// Two at a time: the machine has two cores.
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					p := &positions[i]
					b := Board{Drawn: p.Drawn, Owned: p.Owned, ToMove: p.ToMove}
					values := map[Edge]int{}
					for _, m := range newSearcher(levelHard).moves(&b) {
						o := unlimitedSearcher(22)
						values[m] = o.child(&b, m, NumEdges, -NumBoxes-1, NumBoxes+1)
					}
					p.Values = values
					t.Logf("position %d valued", i)
				}
			}()
		}
		for i := range positions {
			next <- i
		}
		close(next)
		wg.Wait()
		var out strings.Builder
		for _, p := range positions {
			line, _ := json.Marshal(p)
			out.Write(line)
			out.WriteByte('\n')
		}
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lv := harnessLevel()
	keeps, lost := 0, 0
	for _, p := range positions {
		b := Board{Drawn: p.Drawn, Owned: p.Owned, ToMove: p.ToMove}
		best := math.MinInt
		for _, v := range p.Values {
			best = max(best, v)
		}
		m := newSearcher(lv).bestMove(&b)
		v, ok := p.Values[m]
		if !ok {
			t.Fatalf("%x: move %d is not among the valued moves", p.Drawn, m)
		}
		if v == best {
			keeps++
		}
		lost += best - v
	}
	t.Logf("RESULT level %+v: keeps the value in %d of %d positions, loses %.2f boxes a position", lv, keeps, len(positions), float64(lost)/float64(len(positions)))
}

// TestSearchSlowMoves: see the file's comment.
func TestSearchSlowMoves(t *testing.T) {
	games := studyGames(t, "DNB_SLOW")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var worst, total time.Duration
	n := 0
	for _, g := range games {
		var b Board
		for _, e := range g.Moves {
			closing, _, _ := b.classify()
			if free := bits.OnesCount64(b.Undrawn()); (free == 37 || free == 38) && closing == 0 {
				d, _ := timedMove(levelHard, &b)
				worst = max(worst, d)
				total += d
				n++
			}
			b.Play(e)
		}
	}
	if n == 0 {
		t.Fatal("no position with 37 or 38 free edges")
	}
	t.Logf("RESULT %d positions: mean %v CPU a move, slowest %v", n, (total / time.Duration(n)).Round(time.Millisecond), worst.Round(time.Millisecond))
}

// TestNearAccuracy scores two models of the middle game, each searched to
// its end with no node limit, on the positions of DNB_MID (made by
// TestMiddleAccuracy): with DNB_NEAR_MODEL=small (the default) the near
// search, sacrifices of one or two boxes while safe edges remain; with
// "safe", no sacrifice at all until no safe edge is left (every position
// then valued by the loony table). It prints the share of positions where
// the model's move keeps the exact value, the boxes lost, and the nodes.
func TestNearAccuracy(t *testing.T) {
	path := os.Getenv("DNB_MID")
	if path == "" {
		t.Skip("DNB_MID not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	model := os.Getenv("DNB_NEAR_MODEL")
	keeps, lost, n := 0, 0, 0
	var nodes []int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var p midPosition
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		b := Board{Drawn: p.Drawn, Owned: p.Owned, ToMove: p.ToMove}
		best := math.MinInt
		for _, v := range p.Values {
			best = max(best, v)
		}
		s := unlimitedSearcher(20)
		var e Edge
		if model == "safe" {
			e = safeOnlyMove(s, &b)
		} else {
			s.smallGifts = true
			e, _, _ = s.root(&b, s.moves(&b), NumEdges)
		}
		v, ok := p.Values[e]
		if !ok {
			t.Fatalf("%x: move %d is not among the valued moves", p.Drawn, e)
		}
		n++
		if v == best {
			keeps++
		}
		lost += best - v
		nodes = append(nodes, s.nodes)
	}
	slices.Sort(nodes)
	t.Logf("RESULT model %q: keeps the value in %d of %d positions, loses %.2f boxes a position; nodes median %d, most %d",
		model, keeps, n, float64(lost)/float64(n), nodes[len(nodes)/2], nodes[len(nodes)-1])
}

// safeOnlyMove is the best safe move of b when both players play only safe
// edges until none is left and the loony table values what remains.
func safeOnlyMove(s *searcher, b *Board) Edge {
	memo := map[uint64]int{}
	var value func(b *Board) int
	value = func(b *Board) int {
		if v, ok := memo[b.Drawn]; ok {
			return v
		}
		_, safe, _ := b.classify()
		v := math.MinInt
		if safe == 0 {
			v = s.loonyValue(b)
		}
		for m := distinctSafe(safe); m != 0; m &= m - 1 {
			after := *b
			after.Play(Edge(bits.TrailingZeros64(m)))
			s.nodes++
			v = max(v, -value(&after))
		}
		memo[b.Drawn] = v
		return v
	}
	_, safe, _ := b.classify()
	best, bestValue := NoEdge, math.MinInt
	for m := distinctSafe(safe); m != 0; m &= m - 1 {
		after := *b
		after.Play(Edge(bits.TrailingZeros64(m)))
		if v := -value(&after); v > bestValue {
			best, bestValue = Edge(bits.TrailingZeros64(m)), v
		}
	}
	return best
}

// chainsPairing is the game of TestChainsStudy's board (the tournament's
// seed 1, round 0) with the search at lv in searchSeat and chains in the
// other seat.
func chainsPairing(board, searchSeat int, lv searchLevel) (*State, [2]interface {
	Act(st game.State, seat int) []byte
}) {
	var bots [2]interface {
		Act(st game.State, seat int) []byte
	}
	bots[searchSeat] = &searchBot{lv: lv}
	bots[1-searchSeat] = &chainsBot{}
	return NewState(Nonce(rng.Mix(1, 0, uint64(board)))), bots
}

// unlimitedSearcher searches every sacrifice with no node limit: exact, the
// studies' judge.
func unlimitedSearcher(tableBits int) *searcher {
	s := newSearcher(searchLevel{sacrifices: true, allGifts: NumEdges, tableBits: tableBits})
	s.budget = math.MaxInt
	return s
}

// TestChainsGameValues replays one game of TestChainsStudy's pairing,
// DNB_CHAINS_GAME=board:seat (search's seat), and values each move search
// makes with 30 to 44 free edges and no capture pending against the
// unlimited search: the move's exact worth and the position's, and which
// search made it, so a lost game shows where its value went. With
// DNB_DETAIL set, a move that lost value is followed by every choice of its
// position, valued exactly and under the near search's model.
func TestChainsGameValues(t *testing.T) {
	var board, searchSeat int
	if _, err := fmt.Sscanf(os.Getenv("DNB_CHAINS_GAME"), "%d:%d", &board, &searchSeat); err != nil {
		t.Skip("DNB_CHAINS_GAME (board:seat) not set")
	}
	st, bots := chainsPairing(board, searchSeat, harnessLevel())
	for !st.Over() {
		before := st.Board
		closing, safe, _ := before.classify()
		st.Apply([][]byte{bots[0].Act(st, 0), bots[1].Act(st, 1)})
		free := bits.OnesCount64(before.Undrawn())
		if int(before.ToMove) != searchSeat || closing != 0 || free > 44 || free < 30 {
			continue
		}
		e := Edge(bits.TrailingZeros64(st.Drawn &^ before.Drawn))
		o := unlimitedSearcher(22)
		_, best, _ := o.root(&before, o.moves(&before), NumEdges)
		worth := o.child(&before, e, NumEdges, -NumBoxes-1, NumBoxes+1)
		by := moveMadeBy(bots[searchSeat].(*searchBot).s, free)
		t.Logf("free %d, safe %d: move %d (%s) worth %+d, best %+d", free, bits.OnesCount64(safe), e, by, worth, best)
		if worth < best && os.Getenv("DNB_DETAIL") != "" {
			// Every choice under both models: which one the near search
			// misjudged, the move it made or the one it missed.
			t.Logf("  drawn %x", before.Drawn)
			n := unlimitedSearcher(22)
			n.smallGifts = true
			for _, m := range o.moves(&before) {
				n.nodes = 0
				near := n.child(&before, m, NumEdges, -NumBoxes-1, NumBoxes+1)
				t.Logf("  move %2d gift %d: exact %+d, near %+d (%d nodes)", m, bits.OnesCount32(before.handedBy(m)), o.child(&before, m, NumEdges, -NumBoxes-1, NumBoxes+1), near, n.nodes)
			}
		}
	}
	t.Logf("final %d-%d", st.Score(searchSeat), st.Score(1-searchSeat))
}
