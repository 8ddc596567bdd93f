package snake

import (
	"slices"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// HouseBots lists the built-in players, weakest first.
func (Game) HouseBots() []game.HouseBotInfo {
	return []game.HouseBotInfo{
		{Name: "random", Level: "Beginner", Doc: "any move but back into its own neck, at random",
			New: func(seed uint64, _ int) game.HouseBot { return &randomBot{src: rng.New(seed)} }},
		{Name: "safe", Level: "Easy", Doc: "never moves into certain death when it can avoid it, and keeps its head away from snakes as long as itself; otherwise at random",
			New: func(seed uint64, _ int) game.HouseBot { return &safeBot{src: rng.New(seed)} }},
		{Name: "greedy", Level: "Medium", Doc: "safe's moves, and of those one that leaves room for its whole body, nearest to food: the starter kits' bot",
			New: func(uint64, int) game.HouseBot { return &greedyBot{} }},
		{Name: "search", Level: "Hard", Doc: "the strong one: tries each of its moves against the worst replies of the snakes near it, and values what follows by the cells it reaches first, the room it has, length and food",
			New: func(uint64, int) game.HouseBot { return &searchBot{} }},
	}
}

func answer(d Dir) []byte { return AppendAnswer(nil, Answer{Move: d}) }

type randomBot struct{ src *rng.Source }

func (b *randomBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	sn := &s.Snakes[seat]
	var ok []Dir
	for d := Up; d <= Right; d++ {
		if len(sn.Body) < 2 || sn.Head().Step(d) != sn.Body[1] {
			ok = append(ok, d)
		}
	}
	return answer(ok[b.src.Intn(len(ok))])
}

// certainDeath reports whether moving seat's snake in direction d
// eliminates it whatever the others do: off the board, into a body part
// that stays where it is, or out of health without food.
func (s *State) certainDeath(seat int, d Dir) bool {
	sn := &s.Snakes[seat]
	p := sn.Head().Step(d)
	if !s.OnBoard(p) {
		return true
	}
	for i := range s.Snakes {
		o := &s.Snakes[i]
		if !o.Alive() {
			continue
		}
		// Every part but the tail is still there after the move (a tail
		// doubled by a meal is there twice, so it stays too).
		for _, q := range o.Body[:len(o.Body)-1] {
			if q == p {
				return true
			}
		}
	}
	if sn.Health <= 1 {
		for _, f := range s.Food {
			if f == p {
				return false
			}
		}
		return true
	}
	return false
}

// headRisk reports whether a snake at least as long as seat's could move
// its head onto p this turn.
func (s *State) headRisk(seat int, p Point) bool {
	me := len(s.Snakes[seat].Body)
	for i := range s.Snakes {
		o := &s.Snakes[i]
		if i == seat || !o.Alive() || len(o.Body) < me {
			continue
		}
		h := o.Head()
		if abs(h.X-p.X)+abs(h.Y-p.Y) == 1 {
			return true
		}
	}
	return false
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// safeMoves lists the moves that are not certain death (all four when
// every move is), and of those the ones without a head-to-head risk.
func (s *State) safeMoves(seat int) (alive, calm []Dir) {
	for d := Up; d <= Right; d++ {
		if s.certainDeath(seat, d) {
			continue
		}
		alive = append(alive, d)
		if !s.headRisk(seat, s.Snakes[seat].Head().Step(d)) {
			calm = append(calm, d)
		}
	}
	if len(alive) == 0 {
		alive = []Dir{Up, Down, Left, Right}
	}
	return alive, calm
}

type safeBot struct{ src *rng.Source }

func (b *safeBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	alive, calm := s.safeMoves(seat)
	if len(calm) > 0 {
		return answer(calm[b.src.Intn(len(calm))])
	}
	return answer(alive[b.src.Intn(len(alive))])
}

// greedyBot plays as the starter kits do (games/snake/kits): of the moves
// that are not certain death it prefers one without a head-to-head risk,
// then one from which the room it can reach holds its whole body, then the
// one nearest to food; ties go to up, down, left, right in that order.
type greedyBot struct {
	seen  []bool
	queue []Point
}

func (b *greedyBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	alive, calm := s.safeMoves(seat)
	sn := &s.Snakes[seat]
	best, bestScore := alive[0], -1
	for _, d := range alive {
		p := sn.Head().Step(d)
		score := 0
		if slices.Contains(calm, d) {
			score += 1 << 20
		}
		if b.room(s, p, len(sn.Body)) >= len(sn.Body) {
			score += 1 << 19
		}
		score += 1<<10 - min(s.foodDistance(p), 1<<10-1)
		if score > bestScore {
			best, bestScore = d, score
		}
	}
	return answer(best)
}

// room counts the cells reachable from p through cells that no body part
// holds after this turn's move (tails move on), stopping at limit.
func (b *greedyBot) room(s *State, p Point, limit int) int {
	if !s.OnBoard(p) {
		return 0
	}
	w := s.Set.Width
	b.seen = slices.Grow(b.seen[:0], w*s.Set.Height)[:w*s.Set.Height]
	clear(b.seen)
	for i := range s.Snakes {
		o := &s.Snakes[i]
		if o.Alive() {
			for _, q := range o.Body[:len(o.Body)-1] {
				if s.OnBoard(q) {
					b.seen[q.Y*w+q.X] = true
				}
			}
		}
	}
	b.queue = append(b.queue[:0], p)
	b.seen[p.Y*w+p.X] = true
	for k := 0; k < len(b.queue) && len(b.queue) < limit; k++ {
		for d := Up; d <= Right; d++ {
			q := b.queue[k].Step(d)
			if s.OnBoard(q) && !b.seen[q.Y*w+q.X] {
				b.seen[q.Y*w+q.X] = true
				b.queue = append(b.queue, q)
			}
		}
	}
	return len(b.queue)
}

// foodDistance is the number of moves from p to the nearest food, bodies
// aside, or 0 when there is none.
func (s *State) foodDistance(p Point) int {
	best := -1
	for _, f := range s.Food {
		if d := abs(f.X-p.X) + abs(f.Y-p.Y); best < 0 || d < best {
			best = d
		}
	}
	return max(best, 0)
}
