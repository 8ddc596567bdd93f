// Command snake is a Snake bot in Go: of the moves that do not run into a
// wall or a body, it prefers one that keeps its head away from snakes as
// long as itself, then one that leaves it room to move, then the one
// nearest to food. See README.md to build it.
//
// The observation is Battlesnake's /move request body and the answer its
// /move response, so the move logic of a Battlesnake bot fits in play.
package main

// point is a cell: x from 0 at the left, y from 0 at the bottom.
type point struct{ x, y int }

// snake is one live snake of the observation, head first.
type snake struct {
	id   string
	body []point
}

// The moves in the order the bot tries them (ties go to the first).
var moves = [4]struct {
	name   string
	dx, dy int
}{{"up", 0, 1}, {"down", 0, -1}, {"left", -1, 0}, {"right", 1, 0}}

// view is what the bot reads of an observation. Its slices are kept from
// turn to turn, so that a turn allocates little.
type view struct {
	width, height int
	you           string
	food          []point
	snakes        []snake
	blocked       []bool // a body part that is still there after the move
	seen          []bool
	queue         []int
}

func main() {
	var v view
	Run(func(obs JSON, answer []byte) []byte {
		v.read(obs)
		answer = append(answer, `{"move":"`...)
		answer = append(answer, v.choose()...)
		return append(answer, `"}`...)
	})
}

// read picks the fields the bot needs out of the observation.
func (v *view) read(obs JSON) {
	board := obs.Get("board")
	v.width, v.height = board.Get("width").Int(), board.Get("height").Int()
	v.you = obs.Get("you").Get("id").Str()
	v.food = v.food[:0]
	for _, f := range board.Get("food").Elems() {
		v.food = append(v.food, point{f.Get("x").Int(), f.Get("y").Int()})
	}
	n := 0
	for _, s := range board.Get("snakes").Elems() {
		if n == len(v.snakes) {
			v.snakes = append(v.snakes, snake{})
		}
		sn := &v.snakes[n]
		sn.id, sn.body = s.Get("id").Str(), sn.body[:0]
		for _, p := range s.Get("body").Elems() {
			sn.body = append(sn.body, point{p.Get("x").Int(), p.Get("y").Int()})
		}
		if len(sn.body) > 0 {
			n++
		}
	}
	v.snakes = v.snakes[:n]
}

func (v *view) onBoard(p point) bool { return p.x >= 0 && p.x < v.width && p.y >= 0 && p.y < v.height }

func (v *view) index(p point) int { return p.y*v.width + p.x }

// choose returns the name of the move to make.
func (v *view) choose() string {
	var me *snake
	for i := range v.snakes {
		if v.snakes[i].id == v.you {
			me = &v.snakes[i]
		}
	}
	if me == nil || v.width < 1 || v.height < 1 || v.width > 64 || v.height > 64 {
		return "up" // not an observation this bot knows
	}
	// Every body part but a tail stays where it is this turn (a tail
	// doubled by a meal is listed twice, so its first copy blocks).
	cells := v.width * v.height
	v.blocked = resize(v.blocked, cells)
	for _, s := range v.snakes {
		for _, p := range s.body[:len(s.body)-1] {
			if v.onBoard(p) {
				v.blocked[v.index(p)] = true
			}
		}
	}
	head := me.body[0]
	best, bestScore := "up", -1
	for _, m := range moves {
		p := point{head.x + m.dx, head.y + m.dy}
		if !v.onBoard(p) || v.blocked[v.index(p)] {
			continue // certain death
		}
		// Score, most important first: no head of a snake at least as
		// long can reach p; room for the whole body from p; near food.
		score := 0
		if !v.headRisk(me, p) {
			score += 1 << 20
		}
		if v.room(p, len(me.body)) >= len(me.body) {
			score += 1 << 19
		}
		score += 1<<10 - min(v.foodDistance(p), 1<<10-1)
		if score > bestScore {
			best, bestScore = m.name, score
		}
	}
	return best
}

// headRisk reports whether another snake at least as long as me could move
// its head onto p this turn.
func (v *view) headRisk(me *snake, p point) bool {
	for _, s := range v.snakes {
		if s.id != me.id && len(s.body) >= len(me.body) && distance(s.body[0], p) == 1 {
			return true
		}
	}
	return false
}

// room counts the free cells reachable from p, stopping at limit.
func (v *view) room(p point, limit int) int {
	v.seen = resize(v.seen, v.width*v.height)
	v.queue = append(v.queue[:0], v.index(p))
	v.seen[v.index(p)] = true
	for k := 0; k < len(v.queue) && len(v.queue) < limit; k++ {
		c := point{v.queue[k] % v.width, v.queue[k] / v.width}
		for _, m := range moves {
			q := point{c.x + m.dx, c.y + m.dy}
			if v.onBoard(q) && !v.blocked[v.index(q)] && !v.seen[v.index(q)] {
				v.seen[v.index(q)] = true
				v.queue = append(v.queue, v.index(q))
			}
		}
	}
	return len(v.queue)
}

// foodDistance is the number of moves from p to the nearest food, ignoring
// bodies, or 0 when there is none.
func (v *view) foodDistance(p point) int {
	d := -1
	for _, f := range v.food {
		if e := distance(p, f); d < 0 || e < d {
			d = e
		}
	}
	return max(d, 0)
}

func distance(a, b point) int { return abs(a.x-b.x) + abs(a.y-b.y) }

func abs(v int) int { return max(v, -v) }

// resize returns buf as n cells, all false.
func resize(buf []bool, n int) []bool {
	if cap(buf) < n {
		return make([]bool, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}
