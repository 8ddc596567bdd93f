package gridroyale

import (
	"github.com/arenabots/arena/game"
)

// siegeBot plays house's economy (the same planner, the same options) and
// adds one idea: a base is where every laden unit must end its trip, so a
// unit posted beside a rival's base threatens every trip of that rival.
//
//   - One own unit per rival (the nearest one with little cargo) walks to a
//     free cell beside that rival's base and stays there, harvesting the
//     poor ground so that it can always pay to move. A rival that keeps its
//     laden units off every cell an enemy can reach (as house does) then
//     never banks a full unit again; one that walks in regardless loses it.
//   - The sentry steps onto the base when a laden rival unit is predicted to
//     step onto it this turn: both die and the cargo spills on a base its
//     owner can never harvest. The prediction runs two models of each rival,
//     the house planner and the harvester planner, every turn, and trusts
//     the one that foresaw that rival's last moves better.
//   - With two players every unit may be the sentry (the first one is); with
//     four, two units keep harvesting before any is posted, so the bank can
//     pay for the three sentries.
//
// Work per turn: its own planner plus two model planners per rival, i.e. at
// most seven planner turns (about 55 us each on a 4-player board at turn 100,
// see BenchmarkHouseAct), and a pass over the units per rival.
type siegeBot struct {
	p      planner
	sentry []int // per rival seat: the id of its sentry, 0 for none
	rivals []rival
}

// rival is what the bot knows of one other seat: its two models, what each
// predicted for this turn (unit id and cell, in unit order) and how well each
// has predicted so far.
type rival struct {
	models [2]*planner
	guess  [2][]guess
	score  [2]int
	best   int
}

type guess struct{ id, cell int }

// Cargo thresholds of the siege.
const (
	sentryMaxCargo = 300 // a unit carrying more goes home first
	sentryRamGain  = 100 // ram when the rival carries this much more than the sentry
	rammerMaxCargo = 500 // a rival unit carrying more is not expected to ram
)

func newSiegeBot() *siegeBot { return &siegeBot{p: planner{opt: houseOptions}} }

// Act answers for seat: sentries first, then the planner for the rest.
func (b *siegeBot) Act(st game.State, seat int) []byte {
	s, ok := st.(*State)
	if !ok || seat < 0 || seat >= s.N {
		return append([]byte(nil), noAction...) // not a Grid Royale match: order nothing
	}
	if b.sentry == nil {
		b.sentry = make([]int, s.N)
		b.rivals = make([]rival, s.N)
	}
	p := &b.p
	p.s, p.seat = s, seat
	p.prepare()
	p.batch.Orders = p.batch.Orders[:0]
	p.batch.Spawn = false
	b.predict()
	b.threats()
	b.post()
	p.plan()
	out := AppendBatch(make([]byte, 0, 32+24*len(p.batch.Orders)), &p.batch)
	p.remember()
	return out
}

// predict runs both models of every rival still in, scores what they
// predicted last turn against where the rival's units are now, and keeps
// this turn's guesses.
func (b *siegeBot) predict() {
	s := b.p.s
	for n := range b.rivals {
		// With a budget (SetStop) the rivals take turns at coming first, so
		// that a short budget does not always skip the same one.
		e := (n + s.TurnNum) % len(b.rivals)
		if e == b.p.seat || s.Out[e] {
			continue
		}
		r := &b.rivals[e]
		if r.models[0] == nil {
			// Both models make the same home field (the same zone lead):
			// the second copies the first's.
			house := &planner{opt: houseOptions, stop: b.p.stop}
			r.models = [2]*planner{house, {opt: harvesterOptions, stop: b.p.stop, shared: house}}
		}
		for k, m := range r.models {
			if b.p.stop != nil && b.p.stop() {
				// No budget left for this model: it guesses nothing this
				// turn, and is not scored on stale guesses next turn.
				r.guess[k] = r.guess[k][:0]
				continue
			}
			for _, g := range r.guess[k] {
				if i := s.UnitIndex(g.id); i >= 0 {
					if s.Units[i].Y*s.W+s.Units[i].X == g.cell {
						r.score[k]++
					} else {
						r.score[k] -= 3 // a wrong guess weighs more than a right one
					}
				}
			}
			m.Act(s, e)
			r.guess[k] = r.guess[k][:0]
			if m.cut {
				continue // its field was cut short: no guesses to trust
			}
			for i := range s.Units {
				if u := s.Units[i]; u.Owner == e {
					r.guess[k] = append(r.guess[k], guess{u.ID, u.Y*s.W + u.X})
				}
			}
			for _, o := range m.batch.Orders {
				u := s.Units[s.UnitIndex(o.Unit)]
				if u.Cargo < s.Ore[u.Y*s.W+u.X]/s.Set.MoveCostDivisor {
					continue // it cannot pay: it stays
				}
				for j := range r.guess[k] {
					if r.guess[k][j].id == o.Unit {
						r.guess[k][j].cell = (u.Y+dy[o.Do])*s.W + u.X + dx[o.Do]
					}
				}
			}
		}
		r.best = 0
		if r.score[1] > r.score[0] {
			r.best = 1
		}
	}
}

// threats narrows the planner's map of cells an enemy may step onto this
// turn (which its laden units avoid) to the steps of rival units that carry
// little, plus whatever the trusted models predict. Rivals' full units wait
// around their bases when a sentry keeps them out, and in a 4-player match
// the bases are five cells apart: counting every step of those units as a
// threat would keep our own laden units from ever reaching home.
func (b *siegeBot) threats() {
	p := &b.p
	s := p.s
	for i := range s.Units {
		u := s.Units[i]
		if u.Owner == p.seat {
			continue
		}
		for d := North; d <= West; d++ {
			if x, y := u.X+dx[d], u.Y+dy[d]; p.inGrid(x, y) {
				p.reach[y*s.W+x] = 0
			}
		}
	}
	for i := range s.Units {
		u := s.Units[i]
		c := u.Y*s.W + u.X
		if u.Owner == p.seat {
			continue
		}
		p.reach[c] = p.stamp
		if u.Cargo >= rammerMaxCargo || u.Cargo < s.Ore[c]/s.Set.MoveCostDivisor {
			continue
		}
		for d := North; d <= West; d++ {
			if x, y := u.X+dx[d], u.Y+dy[d]; p.inGrid(x, y) {
				p.reach[y*s.W+x] = p.stamp
			}
		}
	}
	for e := range b.rivals {
		if e == p.seat || s.Out[e] {
			continue
		}
		r := &b.rivals[e]
		for _, g := range r.guess[r.best] {
			p.reach[g.cell] = p.stamp
		}
	}
}

// post gives every rival still in a sentry, when a unit can be spared, and
// the sentries their orders.
func (b *siegeBot) post() {
	p := &b.p
	s := p.s
	own := 0
	for i := range s.Units {
		if s.Units[i].Owner == p.seat {
			own++
		}
	}
	spare := own - 2
	if s.N == 2 {
		spare = own
	}
	for e := range b.sentry {
		if b.sentry[e] != 0 && s.UnitIndex(b.sentry[e]) < 0 {
			b.sentry[e] = 0 // it died
		}
		if b.sentry[e] != 0 {
			spare--
		}
	}
	for e := range b.sentry {
		if e == p.seat || s.Out[e] {
			b.sentry[e] = 0
			continue
		}
		if b.sentry[e] == 0 && spare > 0 {
			b.sentry[e] = b.recruit(s.Bases[e])
			if b.sentry[e] != 0 {
				spare--
			}
		}
		if b.sentry[e] != 0 {
			b.guard(s.UnitIndex(b.sentry[e]), e)
		}
	}
}

// recruit picks the own unit nearest to base that carries little and is no
// sentry yet (ties to the lower id), or returns 0.
func (b *siegeBot) recruit(base int) int {
	p := &b.p
	s := p.s
	bx, by := base%s.W, base/s.W
	best, bestD := 0, 1<<30
	for i := range s.Units {
		u := s.Units[i]
		if u.Owner != p.seat || u.Cargo >= sentryMaxCargo || b.isSentry(u.ID) {
			continue
		}
		if d := abs(u.X-bx) + abs(u.Y-by); d < bestD {
			best, bestD = u.ID, d
		}
	}
	return best
}

func (b *siegeBot) isSentry(id int) bool {
	for _, s := range b.sentry {
		if s == id {
			return true
		}
	}
	return false
}

// guard orders sentry i of rival e: ram the base when a laden unit of e is
// predicted to step onto it, hold a post beside the base, or walk to one.
func (b *siegeBot) guard(i, e int) {
	p := &b.p
	s := p.s
	u := s.Units[i]
	base := s.Bases[e]
	bx, by := base%s.W, base/s.W
	if u.Cargo < s.Ore[u.Y*s.W+u.X]/s.Set.MoveCostDivisor {
		p.commit(i, Stay) // cannot pay: dig until it can
		return
	}
	if abs(u.X-bx)+abs(u.Y-by) == 1 {
		switch {
		case b.arriving(e, u.Cargo):
			p.commit(i, dirTo(u.X, u.Y, bx, by))
		case b.targeted(u.Y*s.W + u.X):
			b.dodge(i)
		default:
			p.commit(i, Stay)
		}
		return
	}
	// The post: the free cell beside the base nearest to the sentry.
	px, py, pd := -1, -1, 1<<30
	for d := North; d <= West; d++ {
		x, y := bx+dx[d], by+dy[d]
		if !p.inGrid(x, y) || !s.Zone.Contains(x, y) || p.enemyAt[y*s.W+x] == p.stamp || isBase(s, y*s.W+x) {
			continue
		}
		if dd := abs(x-u.X) + abs(y-u.Y); dd < pd {
			px, py, pd = x, y, dd
		}
	}
	if px < 0 {
		p.commit(i, Stay)
		return
	}
	var cands [4]Dir
	for _, d := range cands[:p.towards(u, px, py, &cands)] {
		c := (u.Y+dy[d])*s.W + u.X + dx[d]
		if p.free(c) && p.enemyAt[c] != p.stamp && !isBase(s, c) {
			p.commit(i, d)
			return
		}
	}
	p.commit(i, Stay)
}

// arriving reports whether the trusted model of rival e predicts that one
// of its units, carrying sentryRamGain more than cargo, steps onto its base
// this turn.
func (b *siegeBot) arriving(e, cargo int) bool {
	s := b.p.s
	r := &b.rivals[e]
	for _, g := range r.guess[r.best] {
		if g.cell != s.Bases[e] {
			continue
		}
		i := s.UnitIndex(g.id)
		if u := s.Units[i]; u.Y*s.W+u.X != g.cell && u.Cargo >= cargo+sentryRamGain {
			return true
		}
	}
	return false
}

// targeted reports whether a trusted model predicts a rival unit stepping
// onto cell c this turn.
func (b *siegeBot) targeted(c int) bool {
	s := b.p.s
	for e := range b.rivals {
		if e == b.p.seat || s.Out[e] {
			continue
		}
		r := &b.rivals[e]
		for _, g := range r.guess[r.best] {
			if g.cell == c {
				return true
			}
		}
	}
	return false
}

// dodge steps sentry i off its post onto the first free neighbouring cell
// that is no base and that no rival is predicted to reach; it comes back
// next turn. With nowhere to go it stays.
func (b *siegeBot) dodge(i int) {
	p := &b.p
	s := p.s
	u := s.Units[i]
	for d := North; d <= West; d++ {
		x, y := u.X+dx[d], u.Y+dy[d]
		c := y*s.W + x
		if p.inGrid(x, y) && s.Zone.Contains(x, y) && p.free(c) && p.enemyAt[c] != p.stamp && !isBase(s, c) && !b.targeted(c) {
			p.commit(i, d)
			return
		}
	}
	p.commit(i, Stay)
}

// dirTo is the move from a cell to a neighbouring one.
func dirTo(x, y, tx, ty int) Dir {
	for d := North; d <= West; d++ {
		if x+dx[d] == tx && y+dy[d] == ty {
			return d
		}
	}
	return Stay
}
