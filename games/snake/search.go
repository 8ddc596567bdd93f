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

	best, bestValue := mine[0], math.Inf(-1)
	moves := make([]Dir, s.N)
	for _, m := range mine {
		worst := math.Inf(1)
		idx := make([]int, len(near))
		for {
			if b.stop != nil && b.stop() {
				return answer(best)
			}
			copy(moves, fixed)
			moves[seat] = m
			for k, i := range near {
				moves[i] = replies[k][idx[k]]
			}
			c := s.clone()
			c.Advance(moves, nil)
			worst = min(worst, b.evaluate(c, seat))
			// next combination
			k := 0
			for ; k < len(idx); k++ {
				idx[k]++
				if idx[k] < len(replies[k]) {
					break
				}
				idx[k] = 0
			}
			if k == len(idx) {
				break
			}
		}
		if worst > bestValue {
			best, bestValue = m, worst
		}
	}
	return answer(best)
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
	if f.food >= 0 {
		need := 1.0
		if me.Health < 40 || len(me.Body) <= longest {
			need = 4
		}
		value -= float64(f.food) * need
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
	queue  []int
	// results for the evaluated seat
	owned, room, food int
}

func newField(w, h int) *field {
	n := w * h
	return &field{w: w, h: h, freeAt: make([]int, n), dist: make([]int, n), owner: make([]int, n), length: make([]int, n), queue: make([]int, 0, n)}
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
	f.owned, f.room, f.food = 0, 0, -1
	foodAt := make(map[int]bool, len(s.Food))
	for _, p := range s.Food {
		foodAt[p.Y*f.w+p.X] = true
	}
	for head := 0; head < len(f.queue); head++ {
		c := f.queue[head]
		if f.owner[c] == seat {
			f.owned++
			if foodAt[c] && f.food < 0 {
				f.food = f.dist[c]
			}
		}
		if f.owner[c] < 0 {
			continue // contested: nobody expands from here
		}
		var nbs [4]int
		for _, nc := range f.neighbours(c, &nbs) {
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
		var nbs [4]int
		for _, nc := range f.neighbours(c, &nbs) {
			d := f.dist[c] + 1
			if f.dist[nc] >= 0 || f.freeAt[nc] > d {
				continue
			}
			f.dist[nc] = d
			f.queue = append(f.queue, nc)
		}
	}
	return count
}

// neighbours returns the cells beside c on the board, in buf.
func (f *field) neighbours(c int, buf *[4]int) []int {
	x, y := c%f.w, c/f.w
	n := 0
	if y+1 < f.h {
		buf[n], n = c+f.w, n+1
	}
	if y > 0 {
		buf[n], n = c-f.w, n+1
	}
	if x > 0 {
		buf[n], n = c-1, n+1
	}
	if x+1 < f.w {
		buf[n], n = c+1, n+1
	}
	return buf[:n]
}
