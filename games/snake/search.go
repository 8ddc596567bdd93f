package snake

import (
	"math"
	"slices"

	"github.com/arenabots/arena/game"
)

// searchBot tries each of its moves against every combination of replies of
// the snakes whose heads are near (the worst case counts: a paranoid search
// one turn deep), and values each outcome with evaluate. Snakes further
// away are assumed to make a safe move.
type searchBot struct {
	scratch *field
	stop    func() bool // a wasm build's fuel budget (SetStop); nil natively
}

// SetStop has the search ask stop before each outcome it values, and
// answer with the best move so far once stop says so: as a wasm bot it
// counts fuel, not outcomes.
func (b *searchBot) SetStop(stop func() bool) { b.stop = stop }

// nearDistance is how far (in moves) a head must be to be searched; near
// limits how many such snakes are searched, nearest first.
const (
	nearDistance = 4
	nearLimit    = 3
)

func (b *searchBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	if b.scratch == nil {
		b.scratch = newField(s.Set.Width, s.Set.Height)
	}
	alive, calm := s.safeMoves(seat)
	// The calm moves first, so that a search cut short has valued them.
	mine := append(calm, slices.DeleteFunc(alive, func(d Dir) bool { return slices.Contains(calm, d) })...)
	// The other snakes' moves: the near ones every non-fatal move, the
	// others one safe move each.
	head := s.Snakes[seat].Head()
	var near []int
	fixed := make([]Dir, s.N)
	for i := range s.Snakes {
		o := &s.Snakes[i]
		if i == seat || !o.Alive() {
			continue
		}
		h := o.Head()
		if abs(h.X-head.X)+abs(h.Y-head.Y) <= nearDistance {
			near = append(near, i)
		}
		alive, calm := s.safeMoves(i)
		fixed[i] = alive[0]
		if len(calm) > 0 {
			fixed[i] = calm[0]
		}
	}
	slices.SortStableFunc(near, func(a, c int) int {
		da := abs(s.Snakes[a].Head().X-head.X) + abs(s.Snakes[a].Head().Y-head.Y)
		dc := abs(s.Snakes[c].Head().X-head.X) + abs(s.Snakes[c].Head().Y-head.Y)
		return da - dc
	})
	if len(near) > nearLimit {
		near = near[:nearLimit]
	}
	replies := make([][]Dir, len(near))
	for k, i := range near {
		replies[k], _ = s.safeMoves(i)
	}

	moves := make([]Dir, s.N)
	outcome := func(m Dir, idx []int) float64 {
		copy(moves, fixed)
		moves[seat] = m
		for k, i := range near {
			if idx != nil {
				moves[i] = replies[k][idx[k]]
			}
		}
		c := s.clone()
		c.Advance(moves, nil)
		return b.evaluate(c, seat)
	}
	// worst[k] is the worst outcome of mine[k] valued so far (valued[k]
	// once there is one); the move with the best worst case is played.
	worst, valued := make([]float64, len(mine)), make([]bool, len(mine))
	for k := range worst {
		worst[k] = math.Inf(1)
	}
	pick := func() []byte {
		best, bestValue := mine[0], math.Inf(-1)
		for k, m := range mine {
			if valued[k] && worst[k] > bestValue {
				best, bestValue = m, worst[k]
			}
		}
		return answer(best)
	}
	// A search that fuel may cut short (SetStop) and that has more than
	// one near snake's replies to try first values every move against the
	// others' likeliest replies (fixed: one of the combinations below, so
	// a search that finishes plays as without this): stopped halfway, it
	// still compares all its moves.
	combos := 1
	for _, r := range replies {
		combos *= len(r)
	}
	if b.stop != nil && combos > 4 {
		for k, m := range mine {
			if b.stop() {
				return pick()
			}
			worst[k], valued[k] = outcome(m, nil), true
		}
	}
	for k, m := range mine {
		idx := make([]int, len(near))
		for {
			if b.stop != nil && b.stop() {
				return pick()
			}
			worst[k], valued[k] = min(worst[k], outcome(m, idx)), true
			// next combination
			j := 0
			for ; j < len(idx); j++ {
				idx[j]++
				if idx[j] < len(replies[j]) {
					break
				}
				idx[j] = 0
			}
			if j == len(idx) {
				break
			}
		}
	}
	return pick()
}

// evaluate values s for seat: large and negative when its snake is gone
// (less so when every snake is), large when it is the last one; otherwise
// the cells it reaches before any other snake, the room it can reach at
// all, its length against the longest rival, and the way to food when its
// health runs low.
func (b *searchBot) evaluate(s *State, seat int) float64 {
	me := &s.Snakes[seat]
	others, longest := 0, 0
	for i := range s.Snakes {
		if i != seat && s.Snakes[i].Alive() {
			others++
			longest = max(longest, len(s.Snakes[i].Body))
		}
	}
	if !me.Alive() {
		if others == 0 {
			return -5e8 // a shared end is better than a loss
		}
		return -1e9
	}
	if others == 0 {
		return 1e9
	}
	f := b.scratch
	f.voronoi(s, seat)
	room := f.room
	value := float64(f.owned) * 10
	if room < len(me.Body) {
		value -= 1e6 - float64(room)*1e3 // trapped: the less room the worse
	}
	value += float64(min(len(me.Body)-longest, 4)) * 25
	if f.foodDist >= 0 {
		need := 1.0
		if me.Health < 40 || len(me.Body) <= longest {
			need = 4
		}
		value -= float64(f.foodDist) * need
	} else if me.Health < 20 {
		value -= 500
	}
	return value
}

// field is the scratch space of evaluate's searches over the board.
type field struct {
	w, h   int
	freeAt []int // turns until a cell is free of the body part on it
	dist   []int // per cell, the first arrival's distance
	owner  []int // per cell, the seat that arrives first (-1: nobody or a tie)
	length []int // per cell, the length of the snake that arrives first
	food   []bool
	queue  []int
	// adj lists each cell's neighbours on the board (up, down, left,
	// right), four slots a cell, -1 for none: computed once, since the
	// searches ask for them hundreds of thousands of times a turn.
	adj []int
	// results for the evaluated seat
	owned, room, foodDist int
}

func newField(w, h int) *field {
	n := w * h
	f := &field{w: w, h: h, freeAt: make([]int, n), dist: make([]int, n), owner: make([]int, n), length: make([]int, n),
		food: make([]bool, n), queue: make([]int, 0, n), adj: make([]int, 0, 4*n)}
	for c := 0; c < n; c++ {
		x, y := c%w, c/w
		f.adj = append(f.adj, cellIf(y+1 < h, c+w), cellIf(y > 0, c-w), cellIf(x > 0, c-1), cellIf(x+1 < w, c+1))
	}
	return f
}

func cellIf(ok bool, c int) int {
	if ok {
		return c
	}
	return -1
}

// voronoi runs one breadth-first search from every live head at once,
// honouring the body parts that leave their cells as the snakes move on,
// and counts for seat the cells it reaches strictly first (a tie goes to
// the longer snake, or to nobody), the cells it reaches at all before
// others close them, and its distance to the nearest food it reaches first
// (-1: none).
func (f *field) voronoi(s *State, seat int) {
	n := f.w * f.h
	for c := 0; c < n; c++ {
		f.freeAt[c], f.dist[c], f.owner[c], f.length[c] = 0, -1, -1, 0
	}
	for i := range s.Snakes {
		sn := &s.Snakes[i]
		if !sn.Alive() {
			continue
		}
		for k, p := range sn.Body {
			if s.OnBoard(p) {
				c := p.Y*f.w + p.X
				f.freeAt[c] = max(f.freeAt[c], len(sn.Body)-k)
			}
		}
	}
	f.queue = f.queue[:0]
	for i := range s.Snakes {
		sn := &s.Snakes[i]
		if !sn.Alive() {
			continue
		}
		c := sn.Head().Y*f.w + sn.Head().X
		switch {
		case f.dist[c] < 0:
			f.dist[c], f.owner[c], f.length[c] = 0, i, len(sn.Body)
			f.queue = append(f.queue, c)
		case len(sn.Body) > f.length[c]:
			f.owner[c], f.length[c] = i, len(sn.Body)
		}
	}
	f.owned, f.room, f.foodDist = 0, 0, -1
	clear(f.food)
	for _, p := range s.Food {
		if s.OnBoard(p) {
			f.food[p.Y*f.w+p.X] = true
		}
	}
	for head := 0; head < len(f.queue); head++ {
		c := f.queue[head]
		if f.owner[c] == seat {
			f.owned++
			if f.food[c] && f.foodDist < 0 {
				f.foodDist = f.dist[c]
			}
		}
		if f.owner[c] < 0 {
			continue // contested: nobody expands from here
		}
		for _, nc := range f.adj[4*c : 4*c+4] {
			if nc < 0 {
				continue
			}
			d := f.dist[c] + 1
			if f.freeAt[nc] > d {
				continue
			}
			switch {
			case f.dist[nc] < 0:
				f.dist[nc], f.owner[nc], f.length[nc] = d, f.owner[c], f.length[c]
				f.queue = append(f.queue, nc)
			case f.dist[nc] == d && f.owner[nc] != f.owner[c]:
				if f.length[c] > f.length[nc] {
					f.owner[nc], f.length[nc] = f.owner[c], f.length[c]
				} else if f.length[c] == f.length[nc] {
					f.owner[nc] = -1
				}
			}
		}
	}
	f.room = f.reach(s, seat)
}

// reach counts the cells seat's head can reach with the others standing
// still, up to twice its length (enough to tell room from a trap).
func (f *field) reach(s *State, seat int) int {
	n := f.w * f.h
	for c := 0; c < n; c++ {
		f.dist[c] = -1
	}
	sn := &s.Snakes[seat]
	start := sn.Head().Y*f.w + sn.Head().X
	f.dist[start] = 0
	f.queue = append(f.queue[:0], start)
	limit := 2 * len(sn.Body)
	count := 0
	for head := 0; head < len(f.queue) && count < limit; head++ {
		c := f.queue[head]
		count++
		for _, nc := range f.adj[4*c : 4*c+4] {
			d := f.dist[c] + 1
			if nc < 0 || f.dist[nc] >= 0 || f.freeAt[nc] > d {
				continue
			}
			f.dist[nc] = d
			f.queue = append(f.queue, nc)
		}
	}
	return count
}
