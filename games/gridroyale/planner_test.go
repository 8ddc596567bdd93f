package gridroyale

import (
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// TestHousePlayGolden pins the play of the native house bots: the hash of
// every state of a few matches between them. The planner is written with
// the wasm builds' fuel in mind (internal/housebots), and a change made for
// their sake must not change what the native bots do; the figure was taken
// before that work began.
func TestHousePlayGolden(t *testing.T) {
	lineups := [][]string{
		{"house", "harvester"}, {"siege", "house"},
		{"house", "siege", "harvester", "siege"}, {"siege", "house", "harvester", "house"},
	}
	h := fnv.New64a()
	for _, names := range lineups {
		for seed := uint64(1); seed <= 2; seed++ {
			for _, x := range matchHashes(t, seed, names) {
				fmt.Fprintf(h, "%x,", x)
			}
		}
	}
	const want = "162cb780fd4de396"
	if got := fmt.Sprintf("%x", h.Sum64()); got != want {
		t.Errorf("the house bots' play hashes to %s, want %s", got, want)
	}
}

// TestHomeFieldMatchesReference checks the planner's home field against a
// plain Dijkstra written for clarity (refHomeField), for every seat after
// every turn of random matches on small and default grids, with the zone
// shrinking fast and, on some, steps so dear that it uses its heap: the two must agree on every cell's key and steps.
func TestHomeFieldMatchesReference(t *testing.T) {
	matches := 60
	if testing.Short() {
		matches = 20
	}
	compared := 0
	for m := 0; m < matches; m++ {
		src := rng.New(uint64(1000 + m))
		players := 2 + 2*(m%2)
		params := game.Params{ParamMaxTurns: "60", ParamShrinkInterval: fmt.Sprint(2 + m%5)}
		if m%3 == 0 {
			params[ParamGridSide] = "12"
		}
		if m%4 == 1 { // steps dear enough for the heap rather than the buckets (2 players)
			params[ParamMoveCostDivisor] = "1"
		}
		st, err := Game{}.New(game.Config{Seed: uint64(m), Players: players, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		batches := make([]*Batch, players)
		for !s.Done() {
			for seat := range players {
				for _, lead := range []int{0, 3} {
					p := &planner{opt: options{zoneLead: lead}, s: s, seat: seat}
					n := s.W * s.W
					p.home, p.steps = make([]int, n), make([]int, n)
					p.homeField()
					wantHome, wantSteps := refHomeField(s, seat, p.zoneAt(s.TurnNum+lead))
					for c := range n {
						if p.home[c] != wantHome[c] || (p.home[c] >= 0 && p.steps[c] != wantSteps[c]) {
							t.Fatalf("match %d turn %d seat %d lead %d cell %d: key %d steps %d, want %d and %d",
								m, s.TurnNum, seat, lead, c, p.home[c], p.steps[c], wantHome[c], wantSteps[c])
						}
					}
					compared++
				}
			}
			for seat := range batches {
				batches[seat] = randomBatch(src, s, seat)
			}
			s.Step(batches)
		}
	}
	if compared < matches*50 {
		t.Fatalf("only %d fields compared", compared)
	}
}

// refHomeField is the home field as first written: a Dijkstra with a
// binary heap of (key, cell), the key cost<<homeStepBits | steps.
func refHomeField(s *State, seat int, z Zone) (home, steps []int) {
	home, steps = make([]int, s.W*s.W), make([]int, s.W*s.W)
	for i := range home {
		home[i] = -1
	}
	inGrid := func(x, y int) bool { return x >= 0 && y >= 0 && x < s.W && y < s.W }
	var heap []int
	push := func(v int) {
		heap = append(heap, v)
		for i := len(heap) - 1; i > 0; {
			parent := (i - 1) / 2
			if heap[parent] <= heap[i] {
				break
			}
			heap[parent], heap[i] = heap[i], heap[parent]
			i = parent
		}
	}
	pop := func() int {
		top := heap[0]
		heap[0] = heap[len(heap)-1]
		heap = heap[:len(heap)-1]
		for i := 0; ; {
			l := 2*i + 1
			if l >= len(heap) {
				break
			}
			m := l
			if r := l + 1; r < len(heap) && heap[r] < heap[l] {
				m = r
			}
			if heap[i] <= heap[m] {
				break
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
		return top
	}
	base := s.Bases[seat]
	home[base], steps[base] = 0, 0
	push(base)
	for len(heap) > 0 {
		top := pop()
		key, c := top>>cellBits, top&(1<<cellBits-1)
		if key != home[c] {
			continue
		}
		x, y := c%s.W, c/s.W
		for d := North; d <= West; d++ {
			nx, ny := x+dx[d], y+dy[d]
			nc := ny*s.W + nx
			if !inGrid(nx, ny) || !z.Contains(nx, ny) || isBase(s, nc) {
				continue
			}
			nk := key + (s.Ore[nc]/s.Set.MoveCostDivisor)<<homeStepBits + 1
			if home[nc] < 0 || nk < home[nc] {
				home[nc] = nk
				steps[nc] = steps[c] + 1
				push(nk<<cellBits | nc)
			}
		}
	}
	return home, steps
}

// TestFieldStopsWhenTold: a planner whose budget is spent (stop always says
// so, as a wasm build's does with its tank low) cuts its home field after the
// first 64 cells, keeps the base's key, and still answers legally; with a
// budget that never runs out the field is whole.
func TestFieldStopsWhenTold(t *testing.T) {
	st, err := Game{}.New(game.Config{Seed: 3, Players: 4})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	for _, stopNow := range []bool{true, false} {
		asked := 0
		p := &planner{opt: houseOptions}
		p.SetStop(func() bool { asked++; return stopNow })
		out := p.Act(s, 1)
		reached := 0
		for _, k := range p.home {
			if k >= 0 {
				reached++
			}
		}
		switch {
		case p.cut != stopNow:
			t.Errorf("stop says %v: cut %v", stopNow, p.cut)
		case p.home[s.Bases[1]] != 0:
			t.Errorf("stop says %v: the base's key is %d", stopNow, p.home[s.Bases[1]])
		case stopNow && (reached < 64 || reached > 64*4):
			t.Errorf("cut after 64 cells, %d have a key", reached)
		case !stopNow && reached < s.W*s.W/2:
			t.Errorf("a whole field reaches %d of %d cells", reached, s.W*s.W)
		case asked == 0:
			t.Errorf("stop was never asked")
		}
		for seat, v := range s.Clone().Apply(answersFor(s.N, 1, out)) {
			if v.Status != "" && v.Status != game.OK {
				t.Errorf("stop says %v: seat %d's answer %s: %s %s", stopNow, seat, out, v.Status, v.Reason)
			}
		}
	}
}

// answersFor is a turn's answers with out for seat and nothing for the others.
func answersFor(n, seat int, out []byte) [][]byte {
	a := make([][]byte, n)
	a[seat] = out
	return a
}
