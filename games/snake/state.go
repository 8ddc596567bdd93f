package snake

import (
	"slices"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// Point is a cell: x from 0 at the left, y from 0 at the bottom, as in
// Battlesnake.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// Dir is a move.
type Dir uint8

// The four moves. Up is y+1.
const (
	Up Dir = iota
	Down
	Left
	Right
)

var dirNames = [...]string{"up", "down", "left", "right"}

func (d Dir) String() string { return dirNames[d] }

// Step returns the neighbour of p in direction d (possibly off the board).
func (p Point) Step(d Dir) Point {
	switch d {
	case Up:
		return Point{p.X, p.Y + 1}
	case Down:
		return Point{p.X, p.Y - 1}
	case Left:
		return Point{p.X - 1, p.Y}
	}
	return Point{p.X + 1, p.Y}
}

// Why a snake was eliminated.
const (
	OutOfHealth = "out of health"
	Wall        = "wall"
	Self        = "self"
	Body        = "body"
	HeadToHead  = "head-to-head"
)

// StartHealth is every snake's health at the start and after eating.
const StartHealth = 100

// StartLength is every snake's length at the start: three parts on one cell.
const StartLength = 3

// MaxShout is the most bytes of a shout kept.
const MaxShout = 256

// Snake is one seat's snake.
type Snake struct {
	Body   []Point // head first
	Health int
	Shout  string // said on the last turn, shown to all on this one
	// Out is the turn (1 for the first) on which the snake was eliminated;
	// 0 while it is alive. Cause says why.
	Out   int
	Cause string
}

// Alive reports whether the snake is still in the match.
func (s *Snake) Alive() bool { return s.Out == 0 }

// Head is the snake's head.
func (s *Snake) Head() Point { return s.Body[0] }

// DefaultMove is the move a snake makes without a valid answer: on from its
// neck through its head, or up while the two share a cell.
func (s *Snake) DefaultMove() Dir {
	if len(s.Body) < 2 {
		return Up
	}
	h, n := s.Body[0], s.Body[1]
	switch {
	case h.X == n.X+1:
		return Right
	case h.X == n.X-1:
		return Left
	case h.Y == n.Y-1:
		return Down
	}
	return Up
}

// State is one match.
type State struct {
	Set     Settings
	N       int
	Seed    uint64
	TurnNum int
	Snakes  []Snake
	Food    []Point
	Over    bool

	asked []int
}

// Labels of the seeded streams (rng.Mix).
const (
	labelStart = 0x736e616b652d7374 // "snake-st"
	labelFood  = 0x736e616b652d666f // "snake-fo"
)

// StartCells lists the start cells of a w x h board in the rules' order:
// the corners' inner points, then the edge midpoints one cell in.
func StartCells(w, h int) []Point {
	mx, my := (w-1)/2, (h-1)/2
	return []Point{
		{1, 1}, {w - 2, h - 2}, {1, h - 2}, {w - 2, 1},
		{mx, 1}, {mx, h - 2}, {1, my}, {w - 2, my},
	}
}

// NewState starts a match: the first `players` start cells dealt to the
// seats in an order drawn from the seed, then the start food.
func NewState(set Settings, players int, seed uint64) *State {
	s := &State{Set: set, N: players, Seed: seed, Snakes: make([]Snake, players)}
	src := rng.New(rng.Mix(seed, labelStart))
	cells := StartCells(set.Width, set.Height)[:players]
	for i := len(cells) - 1; i > 0; i-- { // Fisher-Yates, from the seed
		j := src.Intn(i + 1)
		cells[i], cells[j] = cells[j], cells[i]
	}
	for seat := range s.Snakes {
		c := cells[seat]
		s.Snakes[seat] = Snake{Body: []Point{c, c, c}, Health: StartHealth}
	}
	s.placeStartFood(src)
	s.refreshAsked()
	return s
}

// placeStartFood puts one piece near each snake, away from the centre, then
// one on the centre, as Battlesnake's standard map does. On a board smaller
// than 11x11 with more than four snakes only the centre gets food.
func (s *State) placeStartFood(src *rng.Source) {
	w, h := s.Set.Width, s.Set.Height
	centre := Point{(w - 1) / 2, (h - 1) / 2}
	if s.N <= 4 || w*h >= 11*11 {
		for seat := range s.Snakes {
			head := s.Snakes[seat].Head()
			var ok []Point
			for _, p := range []Point{{head.X - 1, head.Y - 1}, {head.X - 1, head.Y + 1}, {head.X + 1, head.Y - 1}, {head.X + 1, head.Y + 1}} {
				away := (p.X < head.X && head.X < centre.X) || (centre.X < head.X && head.X < p.X) ||
					(p.Y < head.Y && head.Y < centre.Y) || (centre.Y < head.Y && head.Y < p.Y)
				corner := (p.X == 0 || p.X == w-1) && (p.Y == 0 || p.Y == h-1)
				if p != centre && away && !corner && !slices.Contains(s.Food, p) {
					ok = append(ok, p)
				}
			}
			if len(ok) > 0 {
				s.Food = append(s.Food, ok[src.Intn(len(ok))])
			}
		}
	}
	if !s.occupied(centre) {
		s.Food = append(s.Food, centre)
	}
}

// occupied reports whether a live snake or a piece of food is on p.
func (s *State) occupied(p Point) bool {
	if slices.Contains(s.Food, p) {
		return true
	}
	for i := range s.Snakes {
		if s.Snakes[i].Alive() && slices.Contains(s.Snakes[i].Body, p) {
			return true
		}
	}
	return false
}

// OnBoard reports whether p is on the board.
func (s *State) OnBoard(p Point) bool {
	return p.X >= 0 && p.Y >= 0 && p.X < s.Set.Width && p.Y < s.Set.Height
}

// Step resolves one turn: moves[seat] is the move of each live snake (dead
// seats' entries are ignored), shouts[seat] what it said (nil: nothing).
// It moves, starves, feeds and eliminates (Advance), then places food and
// ends the match when at most one snake is left or the turn limit is
// reached.
func (s *State) Step(moves []Dir, shouts []string) {
	if s.Over {
		return
	}
	s.Advance(moves, shouts)
	s.spawnFood()
	alive := 0
	for i := range s.Snakes {
		if s.Snakes[i].Alive() {
			alive++
		}
	}
	if alive <= 1 || s.TurnNum >= s.Set.MaxTurns {
		s.Over = true
	}
	s.refreshAsked()
}

// Advance is a turn without the food placement and the end: what a bot
// can foresee, since new food comes from the match's seed.
func (s *State) Advance(moves []Dir, shouts []string) {
	s.TurnNum++
	// 1. Move: a new head, the tail dropped.
	for i := range s.Snakes {
		sn := &s.Snakes[i]
		if !sn.Alive() {
			continue
		}
		head := sn.Head().Step(moves[i])
		copy(sn.Body[1:], sn.Body[:len(sn.Body)-1])
		sn.Body[0] = head
		sn.Shout = ""
		if i < len(shouts) {
			sn.Shout = shouts[i]
		}
	}
	// 2. Health.
	for i := range s.Snakes {
		if s.Snakes[i].Alive() {
			s.Snakes[i].Health--
		}
	}
	// 3. Feed: every head on a piece eats it; two heads on one piece both do.
	kept := s.Food[:0]
	for _, f := range s.Food {
		eaten := false
		for i := range s.Snakes {
			sn := &s.Snakes[i]
			if sn.Alive() && sn.Head() == f {
				sn.Health = StartHealth
				sn.Body = append(sn.Body, sn.Body[len(sn.Body)-1])
				eaten = true
			}
		}
		if !eaten {
			kept = append(kept, f)
		}
	}
	s.Food = kept
	s.eliminate()
}

// eliminate applies the rules' checks in the reference engine's two passes:
// first health and walls, whose snakes then neither block nor fight; then
// self, body and head-to-head collisions, all judged on the same positions
// and applied together.
func (s *State) eliminate() {
	for i := range s.Snakes {
		sn := &s.Snakes[i]
		if !sn.Alive() {
			continue
		}
		switch {
		case sn.Health <= 0:
			sn.Out, sn.Cause = s.TurnNum, OutOfHealth
		case slices.ContainsFunc(sn.Body, func(p Point) bool { return !s.OnBoard(p) }):
			sn.Out, sn.Cause = s.TurnNum, Wall
		}
	}
	causes := make([]string, len(s.Snakes))
	for i := range s.Snakes {
		sn := &s.Snakes[i]
		if !sn.Alive() {
			continue
		}
		head := sn.Head()
		if slices.Contains(sn.Body[1:], head) {
			causes[i] = Self
			continue
		}
		for j := range s.Snakes {
			if j != i && s.Snakes[j].Alive() && slices.Contains(s.Snakes[j].Body[1:], head) {
				causes[i] = Body
				break
			}
		}
		if causes[i] != "" {
			continue
		}
		for j := range s.Snakes {
			o := &s.Snakes[j]
			if j != i && o.Alive() && o.Head() == head && len(sn.Body) <= len(o.Body) {
				causes[i] = HeadToHead
				break
			}
		}
	}
	for i, c := range causes {
		if c != "" {
			s.Snakes[i].Out, s.Snakes[i].Cause = s.TurnNum, c
		}
	}
}

// spawnFood tops the food up to the minimum, or else places one piece with
// the spawn chance. Every draw comes from one stream seeded with the match
// seed and the turn: first the chance (only when the minimum is met), then
// for each piece a cell among the free ones in row order, bottom row first.
func (s *State) spawnFood() {
	src := rng.New(rng.Mix(s.Seed, labelFood, uint64(s.TurnNum)))
	n := 0
	switch {
	case len(s.Food) < s.Set.MinimumFood:
		n = s.Set.MinimumFood - len(s.Food)
	case s.Set.FoodSpawnChance > 0 && src.Intn(100) < s.Set.FoodSpawnChance:
		n = 1
	}
	for ; n > 0; n-- {
		var free []Point
		for y := 0; y < s.Set.Height; y++ {
			for x := 0; x < s.Set.Width; x++ {
				if p := (Point{x, y}); !s.occupied(p) {
					free = append(free, p)
				}
			}
		}
		if len(free) == 0 {
			return
		}
		s.Food = append(s.Food, free[src.Intn(len(free))])
	}
}

func (s *State) refreshAsked() {
	s.asked = s.asked[:0]
	if s.Over {
		return
	}
	for i := range s.Snakes {
		if s.Snakes[i].Alive() {
			s.asked = append(s.asked, i)
		}
	}
}

// Params returns every parameter in force.
func (s *State) Params() game.Params { return s.Set.Params() }

// Players is the number of seats.
func (s *State) Players() int { return s.N }

// Turn is the number of turns resolved.
func (s *State) Turn() int { return s.TurnNum }

// Done reports whether the match is over.
func (s *State) Done() bool { return s.Over }

// Asked lists the live snakes' seats.
func (s *State) Asked() []int { return s.asked }

// Scores order the seats as the rules place them, in one number each:
// turns survived x 1,000,000 + length x 1,000, plus the health of a snake
// alive at the end. Equal scores are a shared place.
func (s *State) Scores() []int64 {
	out := make([]int64, s.N)
	for i := range s.Snakes {
		sn := &s.Snakes[i]
		survived := sn.Out - 1
		health := 0
		if sn.Alive() {
			survived, health = s.TurnNum, sn.Health
		}
		out[i] = int64(survived)*1_000_000 + int64(len(sn.Body))*1_000 + int64(health)
	}
	return out
}

// Placement lists the seats best first: by score, then by seat.
func (s *State) Placement() []int {
	scores := s.Scores()
	p := make([]int, s.N)
	for i := range p {
		p[i] = i
	}
	slices.SortStableFunc(p, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	return p
}

// Hash is FNV-1a over the whole state.
func (s *State) Hash() uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	mix := func(v int) { h = (h ^ uint64(v)) * prime }
	mix(s.TurnNum)
	if s.Over {
		mix(1)
	}
	for i := range s.Snakes {
		sn := &s.Snakes[i]
		mix(sn.Out)
		mix(sn.Health)
		mix(len(sn.Body))
		for _, p := range sn.Body {
			mix(p.X)
			mix(p.Y)
		}
		mix(len(sn.Shout))
		for _, b := range []byte(sn.Shout) {
			mix(int(b))
		}
		mix(len(sn.Cause))
	}
	mix(len(s.Food))
	for _, p := range s.Food {
		mix(p.X)
		mix(p.Y)
	}
	return h
}

// Clone returns an independent copy.
func (s *State) Clone() game.State { return s.clone() }

func (s *State) clone() *State {
	c := *s
	c.Snakes = slices.Clone(s.Snakes)
	for i := range c.Snakes {
		c.Snakes[i].Body = slices.Clone(s.Snakes[i].Body)
	}
	c.Food = slices.Clone(s.Food)
	c.asked = slices.Clone(s.asked)
	return &c
}
