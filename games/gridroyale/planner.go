package gridroyale

import (
	"slices"

	"github.com/arenabots/arena/game"
)

// options are what tell the harvester and the house bot apart: both run the
// same planner, house with every refinement switched on.
type options struct {
	returnPct   int  // head home when cargo reaches this % of cargo_cap
	radius      int  // how far (Manhattan) a unit looks for a cell to harvest
	spawnLeft   int  // no spawn with fewer turns than this left
	spawnPays   int  // spawn while the zone's ore per unit is this many spawn costs
	noReserve   int  // with this many units, spend the bank's last spawn_cost too
	zoneLead    int  // move inward this many turns before a shrink
	tripScore   bool // score cells by ore per turn of the whole trip, not by ore near
	threat      bool // keep laden units off cells an enemy can reach
	threatCargo int  // what "laden" means for that
	ram         bool // ram enemies when the trade pays, escort laden units
	ramMargin   int  // a ram must win this much more ore than it loses (2 players)
	ramMargin4  int  // the same with 4 players, where a kill helps the other two as much
}

var harvesterOptions = options{returnPct: 90, radius: 6, spawnLeft: 60, spawnPays: 3, noReserve: 1 << 30, zoneLead: 3}

var houseOptions = options{returnPct: 100, radius: 14, spawnLeft: 45, spawnPays: 3, noReserve: 2, zoneLead: 3,
	tripScore: true, threat: true, threatCargo: 300, ram: true, ramMargin: 150, ramMargin4: 1200}

// planner is a house bot: each turn it computes the cheapest way home from
// every cell, gives every unit a goal (a cell to harvest, home, inward, or an
// enemy to ram) and resolves the moves so that no two of its own units meet
// off the base.
//
// Work per turn: one Dijkstra over the grid (O(cells log cells)), one pass
// over the zone's cells for the spawn decision, per own unit a scan of the
// cells within opt.radius (O(units x radius^2)), and per enemy unit a pass
// over the own units (O(units^2)). Settling the moves takes rounds over the
// own units, each round deciding at least one. For house (radius 14, about
// 400 cells) with 50 units that is some 20,000 cell looks; measured, one
// answer at turn 100 of a 4-player match (about 25 units each) takes about
// 55 us, harvester about 30 us (BenchmarkHouseAct, BenchmarkHarvesterAct):
// far below what 5,000,000 units of wasm fuel buy.
type planner struct {
	opt  options
	s    *State
	seat int

	home  []int // cost-then-steps key from each cell to the base; -1 unreachable
	steps []int // steps of that path
	heap  []int

	cut       bool     // the budget cut this turn's field short
	shared    *planner // another planner whose field this one may copy (homeField)
	fieldOK   bool     // the last field is whole, made for fieldSeat at fieldTurn
	fieldTurn int
	fieldSeat int

	stamp   int
	claim   []int // == stamp: an own unit will stand here after this turn
	ownAt   []int // == stamp: an own unit stands here now (its index in ownIdx)
	ownIdx  []int
	reach   []int // == stamp: an enemy unit may stand here after this turn
	enemyAt []int // == stamp: an enemy unit stands here now
	taken   []int // == stamp: reserved as some unit's harvest cell

	decided []bool   // per unit index
	moving  []bool   // per unit index: decided to leave its cell
	cands   [][4]Dir // per unit index: the moves it would like, best first
	ncand   []int
	lastPos map[int]int  // enemy unit id -> its cell+1 last turn
	homing  map[int]bool // own unit id -> it is carrying its cargo home
	blocked map[int]int  // own unit id -> turns in a row it found its way blocked
	target  map[int]int  // own unit id -> the cell it was last sent to harvest
	batch   Batch

	// stop, when set, is asked before each unit's goal whether the turn's
	// budget is spent (SetStop).
	stop func() bool
}

// SetStop has the planner ask stop before giving each unit its goal, and
// give the units left none once it says so: a wasm build's budget, by the
// fuel left (internal/housebots/hostplay). The native bot has no budget.
func (p *planner) SetStop(stop func() bool) { p.stop = stop }

// SetStop is the planner's, asked also before each model of a rival is run
// and by the models themselves.
func (b *siegeBot) SetStop(stop func() bool) {
	b.p.stop = stop
	for _, r := range b.rivals {
		for _, m := range r.models {
			if m != nil {
				m.stop = stop
			}
		}
	}
}

const (
	homeStepBits = 12 // home key = cost<<homeStepBits | steps
	cellBits     = 12 // heap entry = key<<cellBits | cell (grids up to 64x64)
)

// Act answers for seat. Like a wasm bot, the planner sees only what the
// observation holds, plus what it remembers from earlier turns.
func (p *planner) Act(st game.State, seat int) []byte {
	s, ok := st.(*State)
	if !ok || seat < 0 || seat >= s.N {
		return append([]byte(nil), noAction...) // not a Grid Royale match: order nothing
	}
	p.s, p.seat = s, seat
	p.prepare()
	p.batch.Orders = p.batch.Orders[:0]
	p.batch.Spawn = false
	p.plan()
	out := AppendBatch(make([]byte, 0, 32+24*len(p.batch.Orders)), &p.batch)
	p.remember()
	return out
}

func (p *planner) prepare() {
	s := p.s
	n := s.W * s.W
	if len(p.home) != n {
		p.home = make([]int, n)
		p.steps = make([]int, n)
		p.claim = make([]int, n)
		p.ownAt = make([]int, n)
		p.ownIdx = make([]int, n)
		p.reach = make([]int, n)
		p.enemyAt = make([]int, n)
		p.taken = make([]int, n)
		p.lastPos = map[int]int{}
		p.homing = map[int]bool{}
		p.blocked = map[int]int{}
		p.target = map[int]int{}
	}
	if cap(p.decided) < len(s.Units) {
		p.decided = make([]bool, len(s.Units), cap(s.Units))
		p.moving = make([]bool, len(s.Units), cap(s.Units))
		p.cands = make([][4]Dir, len(s.Units), cap(s.Units))
		p.ncand = make([]int, len(s.Units), cap(s.Units))
	}
	p.cands = p.cands[:len(s.Units)]
	p.ncand = p.ncand[:len(s.Units)]
	p.decided = p.decided[:len(s.Units)]
	p.moving = p.moving[:len(s.Units)]
	// Forget units that banked or died. (Deleting while ranging over a map
	// is safe, and the result does not depend on the order.)
	for id := range p.homing {
		if i := s.UnitIndex(id); i < 0 || s.Units[i].Cargo == 0 {
			delete(p.homing, id)
		}
	}
	for id := range p.blocked {
		if s.UnitIndex(id) < 0 {
			delete(p.blocked, id)
		}
	}
	for id := range p.target {
		if s.UnitIndex(id) < 0 {
			delete(p.target, id)
		}
	}
	p.stamp++
	for i := range s.Units {
		u := &s.Units[i]
		c := u.Y*s.W + u.X
		p.decided[i], p.moving[i] = false, false
		if u.Owner == p.seat {
			p.ownAt[c] = p.stamp
			p.ownIdx[c] = i
			continue
		}
		p.enemyAt[c] = p.stamp
		p.reach[c] = p.stamp
		if u.Cargo >= s.Ore[c]/s.Set.MoveCostDivisor { // it can afford to move
			for d := North; d <= West; d++ {
				if x, y := u.X+dx[d], u.Y+dy[d]; p.inGrid(x, y) {
					p.reach[y*s.W+x] = p.stamp
				}
			}
		}
	}
	p.cut = false
	p.homeField()
}

func (p *planner) remember() {
	clear(p.lastPos)
	for i := range p.s.Units {
		u := &p.s.Units[i]
		if u.Owner != p.seat {
			p.lastPos[u.ID] = u.Y*p.s.W + u.X + 1 // 0 means unknown
		}
	}
}

func (p *planner) inGrid(x, y int) bool { return x >= 0 && y >= 0 && x < p.s.W && y < p.s.W }

// zoneAt is the safe zone after turn t has been resolved.
func (p *planner) zoneAt(t int) Zone {
	s := p.s
	r := min(t/s.Set.ShrinkInterval, (s.W-s.Set.MinZone)/2)
	return Zone{r, r, s.W - 1 - r, s.W - 1 - r}
}

// homeField is a Dijkstra from the base over the cells of the zone that
// will hold a few turns from now: leaving a cell costs its ore/divisor, ties
// go to fewer steps. A cell's key is the least (cost, steps) of a path from
// it, cost<<homeStepBits | steps, so any correct search finds the same field.
//
// It is written for the wasm house bots' fuel (internal/housebots) as much
// as for speed: in Go's wasm output every load and store is a metered memory
// access, dear in a memory of a few MiB (docs/fuel.md), so the slices are
// locals and the heap moves a hole instead of swapping. Even so a field of
// 32 x 32 cells costs a wasm build about 2,600,000 fuel, half a turn's.
//
// With a budget (SetStop) it asks stop every 64 cells; told to stop, it
// leaves the cells it has not settled with the keys found so far (the cost
// of some path home, not always the cheapest; -1 for the cells not reached,
// whose units head for the base directly) and says so in p.cut. Its fields
// grow outwards from the base, so what is settled is the ground nearest to
// it. When shared is set and has a field for the same seat and turn, the
// field is copied from there instead (siege's two models of one rival).
func (p *planner) homeField() {
	s := p.s
	if f := p.shared; f != nil && f.fieldOK && f.fieldTurn == s.TurnNum && f.fieldSeat == p.seat && f.opt.zoneLead == p.opt.zoneLead && len(f.home) == len(p.home) {
		copy(p.home, f.home)
		copy(p.steps, f.steps)
		p.fieldOK, p.fieldTurn, p.fieldSeat = true, s.TurnNum, p.seat
		return
	}
	p.fieldOK = false
	w := s.W
	z := p.zoneAt(s.TurnNum + p.opt.zoneLead)
	home, steps, ore, div := p.home, p.steps, s.Ore, s.Set.MoveCostDivisor
	for i := range home {
		home[i] = -1
	}
	for _, b := range s.Bases { // other bases are never entered
		home[b] = -2
	}
	base := s.Bases[p.seat]
	home[base] = 0
	steps[base] = 0
	h := append(p.heap[:0], base) // key 0
	for settled := 1; len(h) > 0; {
		top := h[0]
		n := len(h) - 1
		last := h[n]
		h = h[:n]
		if n > 0 { // sift last down from the root
			i := 0
			for {
				m := 2*i + 1
				if m >= n {
					break
				}
				if r := m + 1; r < n && h[r] < h[m] {
					m = r
				}
				if last <= h[m] {
					break
				}
				h[i] = h[m]
				i = m
			}
			h[i] = last
		}
		key, c := top>>cellBits, top&(1<<cellBits-1)
		if key != home[c] {
			continue // a stale entry: the cell was reached cheaper
		}
		if settled++; settled&63 == 0 && p.stop != nil && p.stop() {
			p.cut = true
			break
		}
		x, y := c%w, c/w
		next := steps[c] + 1
		for d := North; d <= West; d++ {
			nx, ny, nc := x, y, c
			switch d {
			case North:
				ny, nc = y-1, c-w
			case East:
				nx, nc = x+1, c+1
			case South:
				ny, nc = y+1, c+w
			default:
				nx, nc = x-1, c-1
			}
			if !z.Contains(nx, ny) { // the zone lies inside the grid
				continue
			}
			old := home[nc]
			nk := key + (ore[nc]/div)<<homeStepBits + 1
			if old == -2 || (old >= 0 && nk >= old) {
				continue
			}
			home[nc] = nk
			steps[nc] = next
			// push, sifting a hole up
			v := nk<<cellBits | nc
			i := len(h)
			h = append(h, v)
			for i > 0 {
				parent := (i - 1) / 2
				if h[parent] <= v {
					break
				}
				h[i] = h[parent]
				i = parent
			}
			h[i] = v
		}
	}
	for _, b := range s.Bases {
		if home[b] == -2 {
			home[b] = -1
		}
	}
	p.heap = h[:0]
	p.fieldOK, p.fieldTurn, p.fieldSeat = !p.cut, s.TurnNum, p.seat
}

// plan gives every own unit its order, laden units first so that they get
// the best way home, then decides the spawn.
func (p *planner) plan() {
	s := p.s
	own := make([]int, 0, 64)
	for i := range s.Units {
		if s.Units[i].Owner == p.seat {
			own = append(own, i)
		}
	}
	slices.SortStableFunc(own, func(a, b int) int { return s.Units[b].Cargo - s.Units[a].Cargo })
	p.rams(own)
	for _, i := range own {
		if p.decided[i] {
			continue
		}
		// Out of budget (a wasm build's fuel), the units not given a goal
		// yet, the least laden, keep the harvest cell they were last sent
		// to rather than look for a better one (pickTarget, the dear part);
		// settling them costs little.
		p.goal(i, p.stop != nil && p.stop())
	}
	for progress := true; progress; {
		progress = false
		for _, i := range own {
			if !p.decided[i] && p.settle(i, false) {
				progress = true
			}
		}
	}
	for _, i := range own {
		if !p.decided[i] {
			p.settle(i, true)
		}
	}
	left := s.Set.MaxTurns - s.TurnNum
	base := s.Bases[p.seat]
	// Keep one spawn's worth in the bank: a player with no units and that
	// much bank is still in the match. And spawn only while the ore that
	// will still be inside the zone in spawnLeft turns, shared among all the
	// units on the board, pays for a unit several times over.
	reserve := s.Set.SpawnCost
	if len(own) == 0 || len(own) >= p.opt.noReserve {
		reserve = 0
	}
	p.batch.Spawn = s.Banks[p.seat] >= s.Set.SpawnCost+reserve && len(own) < s.Set.UnitsCap &&
		left > p.opt.spawnLeft && p.claim[base] != p.stamp &&
		p.zoneOre(s.TurnNum+p.opt.spawnLeft) >= p.opt.spawnPays*s.Set.SpawnCost*(len(s.Units)+1)
}

// zoneOre is the ore on the cells that will still be in the zone at turn t.
func (p *planner) zoneOre(t int) int {
	s := p.s
	z := p.zoneAt(t)
	sum := 0
	for y := z.Y0; y <= z.Y1; y++ {
		for _, o := range s.Ore[y*s.W+z.X0 : y*s.W+z.X1+1] {
			sum += o
		}
	}
	return sum
}

// commit records unit i's order and the cell it will stand on.
func (p *planner) commit(i int, d Dir) {
	u := &p.s.Units[i]
	p.decided[i] = true
	p.moving[i] = d != Stay
	p.claim[(u.Y+dy[d])*p.s.W+u.X+dx[d]] = p.stamp
	if d != Stay {
		p.batch.Orders = append(p.batch.Orders, Order{Unit: u.ID, Do: d})
	}
}

// free reports whether an own unit may end this turn on cell c without
// meeting another own unit there.
func (p *planner) free(c int) bool {
	if c == p.s.Bases[p.seat] {
		return true
	}
	return p.claim[c] != p.stamp && (p.ownAt[c] != p.stamp || p.moving[p.ownIdx[c]])
}

// risky reports whether a unit with cargo had better not end the turn on c.
// Everyone avoids stepping onto an enemy; with threat awareness, a laden unit
// also avoids every cell an enemy can reach.
func (p *planner) risky(c, cargo int) bool {
	if p.enemyAt[c] == p.stamp || (isBase(p.s, c) && c != p.s.Bases[p.seat]) {
		return true
	}
	return p.opt.threat && cargo >= p.opt.threatCargo && p.reach[c] == p.stamp
}

// goal works out where unit i wants to go and lists the moves that get it
// there, best first, in p.cands[i]. With keep (out of budget) a unit that
// would look for a harvest cell keeps the one it was last sent to instead.
func (p *planner) goal(i int, keep bool) {
	s := p.s
	u := s.Units[i]
	c := u.Y*s.W + u.X
	left := s.Set.MaxTurns - s.TurnNum
	inner := p.zoneAt(s.TurnNum + p.opt.zoneLead)
	cands := &p.cands[i]
	switch {
	case !inner.Contains(u.X, u.Y):
		p.ncand[i] = p.towards(u, min(max(u.X, inner.X0), inner.X1), min(max(u.Y, inner.Y0), inner.Y1), cands)
	case u.Cargo > 0 && (p.homing[u.ID] || u.Cargo*100 >= p.opt.returnPct*s.Set.CargoCap || p.home[c] < 0 || left <= p.steps[c]+3):
		p.homing[u.ID] = true
		p.ncand[i] = p.homeward(u, cands)
	case keep:
		// The cell it was sent to, if it is still free and has a way home;
		// else it stays and harvests where it stands.
		p.ncand[i] = 0
		if t, ok := p.target[u.ID]; ok && p.taken[t] != p.stamp && p.home[t] >= 0 {
			p.taken[t] = p.stamp
			p.ncand[i] = p.towards(u, t%s.W, t/s.W, cands)
		}
	default:
		t := p.pickTarget(i)
		if t >= 0 {
			p.taken[t] = p.stamp
			p.target[u.ID] = t
			p.ncand[i] = p.towards(u, t%s.W, t/s.W, cands)
			return
		}
		// Nothing worth harvesting: bank what it has, wait on the base.
		p.homing[u.ID] = u.Cargo > 0
		p.ncand[i] = p.homeward(u, cands)
	}
}

// settle gives unit i its order when it can: the first of its moves that
// leads to a free, safe cell. A unit whose way is blocked by an own unit
// that has not decided yet waits for a later round, unless final.
func (p *planner) settle(i int, final bool) bool {
	s := p.s
	u := s.Units[i]
	c := u.Y*s.W + u.X
	if u.Cargo < s.Ore[c]/s.Set.MoveCostDivisor { // cannot pay to move
		p.commit(i, Stay)
		return true
	}
	inner := p.zoneAt(s.TurnNum + p.opt.zoneLead)
	escaping := !inner.Contains(u.X, u.Y)
	waiting := false
	for _, d := range p.cands[i][:p.ncand[i]] {
		dc := (u.Y+dy[d])*s.W + u.X + dx[d]
		if !escaping && p.risky(dc, u.Cargo) {
			continue
		}
		if p.free(dc) {
			p.commit(i, d)
			return true
		}
		if j := p.ownIdx[dc]; p.ownAt[dc] == p.stamp && !p.decided[j] {
			waiting = true
			if final && p.swap(i, d, j) {
				return true
			}
		}
	}
	if waiting && !final {
		return false
	}
	if waiting { // blocked for good this turn: after two such turns, step aside
		p.blocked[u.ID]++
		if p.blocked[u.ID] > 2 && p.sidestep(i, inner, false) {
			delete(p.blocked, u.ID)
			return true
		}
	}
	// Staying is deadly (outside the zone soon) or dangerous: step anywhere better.
	if (escaping && p.sidestep(i, p.zoneAt(s.TurnNum+1), true)) ||
		(p.opt.threat && p.risky(c, u.Cargo) && p.sidestep(i, p.zoneAt(s.TurnNum+1), false)) {
		return true
	}
	p.commit(i, Stay)
	return true
}

// sidestep moves unit i to the first free neighbouring cell inside z (and
// not risky, unless anyRisk) and reports whether it found one.
func (p *planner) sidestep(i int, z Zone, anyRisk bool) bool {
	s := p.s
	u := s.Units[i]
	for d := North; d <= West; d++ {
		x, y := u.X+dx[d], u.Y+dy[d]
		dc := y*s.W + x
		if p.inGrid(x, y) && z.Contains(x, y) && p.free(dc) && (anyRisk || !p.risky(dc, u.Cargo)) {
			p.commit(i, d)
			return true
		}
	}
	return false
}

// swap lets unit i step onto the cell of own unit j while j steps onto i's:
// units that exchange cells pass through each other.
func (p *planner) swap(i int, d Dir, j int) bool {
	s := p.s
	ui, uj := s.Units[i], s.Units[j]
	if uj.Cargo < s.Ore[uj.Y*s.W+uj.X]/s.Set.MoveCostDivisor {
		return false
	}
	for _, dj := range p.cands[j][:p.ncand[j]] {
		if uj.X+dx[dj] == ui.X && uj.Y+dy[dj] == ui.Y && !p.risky(ui.Y*s.W+ui.X, uj.Cargo) {
			p.commit(i, d)
			p.commit(j, dj)
			return true
		}
	}
	return false
}

// towards lists the moves that bring u closer to (tx, ty), the one onto the
// poorer cell first (it is cheaper to leave again).
func (p *planner) towards(u Unit, tx, ty int, out *[4]Dir) int {
	n := 0
	dist := abs(tx-u.X) + abs(ty-u.Y)
	for _, d := range [...]Dir{East, West, South, North} {
		if abs(tx-u.X-dx[d])+abs(ty-u.Y-dy[d]) < dist {
			out[n] = d
			n++
		}
	}
	if n == 2 {
		a := p.s.Ore[(u.Y+dy[out[0]])*p.s.W+u.X+dx[out[0]]]
		b := p.s.Ore[(u.Y+dy[out[1]])*p.s.W+u.X+dx[out[1]]]
		if b < a {
			out[0], out[1] = out[1], out[0]
		}
	}
	return n
}

// homeward lists the moves down the home field, best first.
func (p *planner) homeward(u Unit, out *[4]Dir) int {
	s := p.s
	here := p.home[u.Y*s.W+u.X]
	if here < 0 { // outside the field: head for the base directly
		b := s.Bases[p.seat]
		return p.towards(u, b%s.W, b/s.W, out)
	}
	n := 0
	for d := North; d <= West; d++ {
		x, y := u.X+dx[d], u.Y+dy[d]
		if !p.inGrid(x, y) {
			continue
		}
		k := p.home[y*s.W+x]
		if k < 0 || k >= here {
			continue
		}
		j := n
		for j > 0 && p.home[(u.Y+dy[out[j-1]])*s.W+u.X+dx[out[j-1]]] > k {
			out[j] = out[j-1]
			j--
		}
		out[j] = d
		n++
	}
	return n
}

// pickTarget chooses the cell unit i should harvest next, or -1.
func (p *planner) pickTarget(i int) int {
	// This is the wasm house bots' dearest loop (some 400 cells a unit): in
	// Go's wasm output every field read through s or p is a metered memory
	// access, and the compiler does not hoist them out of the loop. So what
	// the loop reads is held in locals, the zone of each distance is worked
	// out once, and the cells outside the nearest turn's zone, which holds
	// every later one, are not visited. A cell is picked only if it passes
	// every test, so the order of the tests changes nothing.
	s := p.s
	u := s.Units[i]
	r := p.opt.radius
	w, turn, stamp := s.W, s.TurnNum, p.stamp
	left := s.Set.MaxTurns - turn
	capacity, hdiv, mdiv := s.Set.CargoCap, s.Set.HarvestDivisor, s.Set.MoveCostDivisor
	room := capacity - u.Cargo
	tripScore := p.opt.tripScore
	ore, taken, home, steps := s.Ore, p.taken, p.home, p.steps
	ownAt, enemyAt, reach, bases := p.ownAt, p.enemyAt, p.reach, s.Bases
	var zoneBuf [32]Zone
	zones := zoneBuf[:0]
	for d := 0; d <= r; d++ {
		zones = append(zones, p.zoneAt(turn+d+4))
	}
	z := zones[0]
	best, bestScore := -1, 0
	for y := max(0, u.Y-r, z.Y0); y <= min(w-1, u.Y+r, z.Y1); y++ {
		dy := abs(y - u.Y)
		ry := r - dy
		for x := max(0, u.X-ry, z.X0); x <= min(w-1, u.X+ry, z.X1); x++ {
			c := y*w + x
			d := abs(x-u.X) + dy
			if taken[c] == stamp || home[c] < 0 || d+steps[c]+3 > left ||
				(d > 0 && (ownAt[c] == stamp || enemyAt[c] == stamp)) || !zones[d].Contains(x, y) {
				continue
			}
			o := ore[c]
			if o/hdiv == 0 || o/mdiv > capacity || slices.Contains(bases, c) {
				continue
			}
			var score int
			if tripScore {
				gain := min(room, o*58/100) // about three turns of harvest
				score = gain * 256 / (d + 3 + steps[c])
				if reach[c] == stamp {
					score /= 2
				}
			} else {
				score = o * 256 / (d + 2)
			}
			if score > bestScore {
				best, bestScore = c, score
			}
		}
	}
	return best
}

func isBase(s *State, c int) bool {
	for _, b := range s.Bases {
		if b == c {
			return true
		}
	}
	return false
}

// rams sends empty units into enemies that will most likely stay where they
// are (they cannot pay to move, or they harvested there last turn), when the
// enemy's cargo, plus half a unit, plus the cargo of an own laden unit it
// threatens (escort duty), beats what the rammer loses by opt.ramMargin.
func (p *planner) rams(own []int) {
	s := p.s
	for ei := range s.Units {
		e := s.Units[ei]
		ec := e.Y*s.W + e.X
		if e.Owner == p.seat || ec == s.Bases[e.Owner] {
			continue
		}
		value := e.Cargo + s.Set.SpawnCost/2
		stuck := e.Cargo < s.Ore[ec]/s.Set.MoveCostDivisor
		stayed := p.lastPos[e.ID] == ec+1 && e.Cargo*100 < 75*s.Set.CargoCap
		switch {
		case ec == s.Bases[p.seat]:
			value = 1 << 30 // it blocks our base: every bot clears it
		case !p.opt.ram || (!stuck && !stayed):
			continue
		}
		for _, i := range own {
			m := s.Units[i]
			if d := abs(m.X-e.X) + abs(m.Y-e.Y); d <= 2 && m.Cargo >= 150 {
				value += m.Cargo / 2 // it threatens an own laden unit
			}
		}
		rammer, rd := -1, Stay
		for _, i := range own {
			m := s.Units[i]
			if p.decided[i] || abs(m.X-e.X)+abs(m.Y-e.Y) != 1 || m.Cargo < s.Ore[m.Y*s.W+m.X]/s.Set.MoveCostDivisor {
				continue
			}
			margin := p.opt.ramMargin
			if s.N > 2 {
				margin = p.opt.ramMargin4
			}
			if m.Cargo+s.Set.SpawnCost/2+margin > value {
				continue
			}
			if rammer < 0 || m.Cargo < s.Units[rammer].Cargo {
				rammer = i
				for d := North; d <= West; d++ {
					if m.X+dx[d] == e.X && m.Y+dy[d] == e.Y {
						rd = d
					}
				}
			}
		}
		if rammer >= 0 && p.claim[ec] != p.stamp {
			p.commit(rammer, rd)
		}
	}
}
