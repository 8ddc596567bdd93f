// Command grid-royale is a Grid Royale bot in Go: each unit harvests the best
// ore near it and carries it home when half full, never steps where another
// unit stands or an enemy can step, and it spawns early only, since a unit
// spawned late does not pay back its cost. See README.md to build it.
//
// It reads the observation with the SDK's JSON rather than encoding/json: decoding
// the whole 7 KB observation with encoding/json would cost about 4.4 million
// of the 5 million fuel a turn brings. It keeps its buffers from turn to
// turn and writes its answer itself, so that a turn allocates little.
package main

import "strconv"

// Action is one turn's batch of orders.
type Action struct {
	Orders []Order
	Spawn  bool
}

// Order is one unit's order.
type Order struct {
	Unit int
	Do   string
}

// appendJSON appends the action as the game reads it:
// {"orders":[{"unit":3,"do":"MOVE_N"}],"spawn":false}, without "orders"
// when there are none.
func (a Action) appendJSON(b []byte) []byte {
	b = append(b, '{')
	if len(a.Orders) > 0 {
		b = append(b, `"orders":[`...)
		for i, o := range a.Orders {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(b, `{"unit":`...), int64(o.Unit), 10)
			b = append(append(append(b, `,"do":"`...), o.Do...), `"}`...)
		}
		b = append(b, "],"...)
	}
	b = strconv.AppendBool(append(b, `"spawn":`...), a.Spawn)
	return append(b, '}')
}

// maxOwnUnits is where this bot stops spawning: more units crowd each other
// out on a small map.
const maxOwnUnits = 5

func main() {
	var v view
	Run(func(obs JSON, answer []byte) []byte { return v.play(obs).appendJSON(answer) })
}

type cell struct{ x, y int }

// zone is a rectangle of cells, bounds inclusive.
type zone struct{ x0, y0, x1, y1 int }

func (z zone) contains(c cell) bool { return c.x >= z.x0 && c.x <= z.x1 && c.y >= z.y0 && c.y <= z.y1 }

type unit struct {
	id, owner int
	at        cell
	cargo     int
}

// view is what this bot reads of an observation.
type view struct {
	you, turn, maxTurns, width, height int
	zone                               zone
	ore                                []int // ore[y*width+x]
	base                               cell
	units                              []unit
	banks                              []int
	cargoCap, spawnCost, unitsCap      int
	moveDiv, harvestDiv, minZone       int

	blocked, targeted []bool  // play's marks, kept for the next turn
	orders            []Order // the last action's, kept for the next turn
}

// marks returns buf resized to n cells, all false.
func marks(buf []bool, n int) []bool {
	if cap(buf) < n {
		return make([]bool, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// read picks the fields out of an observation, going over it once: a Get on
// the observation for each field would scan past the ore map every time.
func (v *view) read(obs JSON) {
	*v = view{ore: v.ore[:0], units: v.units[:0], banks: v.banks[:0], blocked: v.blocked, targeted: v.targeted, orders: v.orders}
	var bases JSON
	for name, value := range obs.Fields() {
		switch name {
		case "you":
			v.you = value.Int()
		case "turn":
			v.turn = value.Int()
		case "max_turns":
			v.maxTurns = value.Int()
		case "width":
			v.width = value.Int()
		case "height":
			v.height = value.Int()
		case "safe_zone":
			v.zone = zone{value.Get("x0").Int(), value.Get("y0").Int(), value.Get("x1").Int(), value.Get("y1").Int()}
		case "ore":
			v.ore = value.Ints(v.ore)
		case "bases":
			bases = value
		case "banks":
			v.banks = value.Ints(v.banks)
		case "units":
			for _, u := range value.Elems() {
				v.units = append(v.units, unit{id: u.Get("id").Int(), owner: u.Get("owner").Int(),
					at: cell{u.Get("x").Int(), u.Get("y").Int()}, cargo: u.Get("cargo").Int()})
			}
		case "params":
			v.cargoCap, v.spawnCost = value.Get("cargo_cap").Int(), value.Get("spawn_cost").Int()
			v.unitsCap, v.minZone = value.Get("units_cap").Int(), value.Get("min_zone").Int()
			v.moveDiv, v.harvestDiv = value.Get("move_cost_divisor").Int(), value.Get("harvest_divisor").Int()
		}
	}
	for _, b := range bases.Elems() { // after the loop: "you" may come later
		if b.Get("owner").Int() == v.you {
			v.base = cell{b.Get("x").Int(), b.Get("y").Int()}
		}
	}
}

func (v *view) play(obs JSON) Action {
	v.read(obs)
	grid := zone{0, 0, v.width - 1, v.height - 1}
	if v.moveDiv <= 0 || v.harvestDiv <= 0 || len(v.ore) != v.width*v.height || !grid.contains(v.base) {
		return Action{} // not the observation this bot knows: every unit stays
	}
	// Harvest only where the next shrink of the zone cannot reach.
	inner := v.zone
	if inner.x1-inner.x0+1 > v.minZone {
		inner = zone{inner.x0 + 1, inner.y0 + 1, inner.x1 - 1, inner.y1 - 1}
	}
	// blocked marks every cell a unit stands on now, one of ours moves to or
	// an enemy can move to: our units never collide with each other and only
	// meet an enemy that walks into them. targeted marks the cells our units
	// head for, so that they spread out.
	v.blocked, v.targeted = marks(v.blocked, len(v.ore)), marks(v.targeted, len(v.ore))
	blocked, targeted := v.blocked, v.targeted
	mark := func(marks []bool, c cell) {
		if grid.contains(c) {
			marks[c.y*v.width+c.x] = true
		}
	}
	for _, u := range v.units {
		mark(blocked, u.at)
		if u.owner != v.you {
			for _, d := range []cell{{0, -1}, {1, 0}, {0, 1}, {-1, 0}} {
				mark(blocked, cell{u.at.x + d.x, u.at.y + d.y})
			}
		}
	}

	act := Action{Orders: v.orders[:0]}
	mine, onBase := 0, false
	for _, u := range v.units {
		if u.owner != v.you || !grid.contains(u.at) {
			continue
		}
		mine++
		goal := v.goal(u, inner, targeted)
		mark(targeted, goal)
		next := v.step(u, goal, blocked)
		mark(blocked, next)
		onBase = onBase || next == v.base
		act.Orders = append(act.Orders, Order{Unit: u.id, Do: direction(u.at, next)})
	}
	act.Spawn = !onBase && mine < maxOwnUnits && mine < v.unitsCap &&
		v.you >= 0 && v.you < len(v.banks) && v.banks[v.you] >= v.spawnCost && v.turn < v.maxTurns/4
	v.orders = act.Orders
	return act
}

// goal picks where unit u should head: home when it carries enough (or time
// runs out), else the cell with the best harvest for the walk.
func (v *view) goal(u unit, inner zone, targeted []bool) cell {
	if u.cargo >= v.cargoCap/2 || (u.cargo > 0 && v.maxTurns-v.turn <= dist(u.at, v.base)+2) {
		return v.base
	}
	best, bestYield, bestDist := v.base, 0, 0
	for y := max(inner.y0, 0); y <= min(inner.y1, v.height-1); y++ {
		for x := max(inner.x0, 0); x <= min(inner.x1, v.width-1); x++ {
			c := cell{x, y}
			if c == v.base || (targeted[y*v.width+x] && c != u.at) {
				continue
			}
			yield, d := v.ore[y*v.width+x]/v.harvestDiv, dist(u.at, c)
			// Better yield per turn of walking: yield/(d+2) > bestYield/(bestDist+2).
			if yield*(bestDist+2) > bestYield*(d+2) {
				best, bestYield, bestDist = c, yield, d
			}
		}
	}
	return best
}

// step returns the cell unit u moves to on its way to goal: its own cell when
// it is there, cannot afford to move, or every way forward is blocked.
func (v *view) step(u unit, goal cell, blocked []bool) cell {
	at := u.at
	if u.cargo < v.ore[at.y*v.width+at.x]/v.moveDiv {
		return at // a move it cannot afford would waste the turn: harvest instead
	}
	dx, dy := sign(goal.x-at.x), sign(goal.y-at.y)
	options := []cell{{at.x + dx, at.y}, {at.x, at.y + dy}}
	if abs(goal.y-at.y) > abs(goal.x-at.x) {
		options[0], options[1] = options[1], options[0]
	}
	for _, c := range options {
		if c != at && v.zone.contains(c) && (c == v.base || !blocked[c.y*v.width+c.x]) {
			return c
		}
	}
	return at
}

func direction(from, to cell) string {
	switch {
	case to.y < from.y:
		return "MOVE_N"
	case to.y > from.y:
		return "MOVE_S"
	case to.x > from.x:
		return "MOVE_E"
	case to.x < from.x:
		return "MOVE_W"
	}
	return "STAY"
}

func dist(a, b cell) int { return abs(a.x-b.x) + abs(a.y-b.y) }

func abs(v int) int { return max(v, -v) }

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
