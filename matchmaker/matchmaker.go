// Package matchmaker decides which rated matches to run next for one game.
//
// It is pure: the caller (the server) reads the active bots and the recent
// matches from the store, says how many jobs the work queue can take, and
// gets back the jobs to create. No database, no queue, no clock and no
// math/rand: the same Request always gives the same jobs, so a schedule can
// be reproduced from its inputs and tested rule by rule.
//
// The rules, in the order they apply to every job:
//
//  1. Size. A game with several player counts cycles through them in
//     ascending order (Grid Royale: 2, 4, 2, 4, ...), continuing from the
//     size of the last recent match; a size needing more bots than are
//     active is skipped.
//  2. The seed bot. A new version that has played fewer than Burst rated
//     matches goes first (oldest upload first), so a new upload gets a
//     burst of matches and its rating settles within minutes. Otherwise the
//     bot with the fewest recent matches goes first; ties go to the one whose
//     last match is oldest, then to a hash of the request's seed.
//  3. Opponents. The other bots are ordered by how close their mean rating is
//     to the seed bot's; of the nearest (players-1)+Spare, those with the
//     fewest recent matches are taken (ties: the one idle longest; a central
//     bot, in every neighbour's window, would otherwise win every tie and
//     play far more than the rest). A match with exactly the same bots as
//     the seed bot's previous match is not scheduled again when any other bot
//     could take a place: the farthest pick is swapped for the next nearest.
//  4. Seats. Bots that have met in exactly this line-up before take the seats
//     of their last meeting rotated by one (two players swap sides); a new
//     line-up is seated so that each seat goes to the bot that has sat in it
//     least.
//  5. Capacity. Never more jobs than Request.Free.
//
// Jobs made in one call count as played for the next job of the same call,
// and the caller must count scheduled (queued or running) matches in Recent
// and Played, so that a slow queue does not hand the same bot every job.
package matchmaker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/arenabots/arena/rating"
)

// Defaults for the tunables of a Request left at zero.
const (
	// DefaultBurst is how many rated matches a new version gets first call
	// on: about when its sigma has fallen enough for a stable leaderboard row.
	DefaultBurst = 20
	// DefaultSpare is how many bots beyond the ones needed are considered
	// near enough in rating, so that a bot does not always meet the same
	// neighbours.
	DefaultSpare = 2
)

// Bot is one active bot of the game: the version of it that plays now.
// A bot appears once (if an ID appears twice, the entry with the larger
// Order is used).
type Bot struct {
	ID      int64         // the bot; stays the same over its versions
	Version int64         // the active version; jobs name it, so a result can be dropped if it changed
	Rating  rating.Rating // the version's current rating
	Recent  int           // rated matches of this bot in the caller's recent window, scheduled ones included
	Played  int           // rated matches this version ever had scheduled (0 for a fresh upload)
	Order   int64         // creation order of the version: larger is newer
}

// Pairing is one recent rated match of the game: its bots' IDs in seat order.
type Pairing []int64

// Request is everything the matchmaker decides from.
type Request struct {
	Bots []Bot
	// Recent lists the game's recent rated matches, scheduled ones included,
	// oldest first. It decides the next size, repeats and seating; a window
	// of a few hundred matches is plenty.
	Recent []Pairing
	// Players are the game's allowed player counts (game.Info.Players).
	Players []int
	// Free is how many jobs the work queue can take now.
	Free int
	// Seed varies tie-breaks and makes the match seeds; use a fresh value per
	// call (a counter is fine), never the clock, so a schedule can be replayed.
	Seed uint64
	// Burst overrides DefaultBurst when positive.
	Burst int
	// Spare overrides DefaultSpare when positive.
	Spare int
}

// Seat is one bot version at one seat of a match.
type Seat struct {
	Bot     int64
	Version int64
}

// Job is one match to run.
type Job struct {
	Seats []Seat // in seat order; len(Seats) is the player count
	Seed  uint64 // the match seed
	Rated bool   // true for the ladder's matches, false for challenges
}

// Bots returns the job's bot IDs in seat order.
func (j Job) Bots() Pairing {
	p := make(Pairing, len(j.Seats))
	for i, s := range j.Seats {
		p[i] = s.Bot
	}
	return p
}

// entry is a bot with the counters the matchmaker advances as it schedules.
type entry struct {
	Bot
	recent, played int
	last           int // index in the history of its latest match, -1 for none
	lastSet        []int64
	seatCounts     []int // matches in the history at each seat

	// scratch for ordering opponents
	dist float64
	tie  uint64
}

func (e *entry) atSeat(s int) int {
	if s < len(e.seatCounts) {
		return e.seatCounts[s]
	}
	return 0
}

type planner struct {
	bots    []*entry // sorted by ID
	byID    map[int64]*entry
	history []Pairing
	sets    [][]int64 // history[i]'s bots, sorted
	burst   int
	spare   int
	seed    uint64
}

// Next returns the next rated jobs for the game described by req, at most
// req.Free of them, possibly none (fewer active bots than the smallest
// player count, or no free capacity).
func Next(req Request) []Job {
	if req.Free <= 0 {
		return nil
	}
	p := newPlanner(req)
	var sizes []int
	for _, n := range req.Players {
		if n >= 2 && n <= len(p.bots) && !slices.Contains(sizes, n) {
			sizes = append(sizes, n)
		}
	}
	if len(sizes) == 0 {
		return nil
	}
	sort.Ints(sizes)
	next := 0
	if len(p.history) > 0 {
		if i := slices.Index(sizes, len(p.history[len(p.history)-1])); i >= 0 {
			next = (i + 1) % len(sizes)
		}
	}

	jobs := make([]Job, 0, req.Free)
	for len(jobs) < req.Free {
		size := sizes[next]
		next = (next + 1) % len(sizes)
		lead := p.pickLead()
		line := append([]*entry{lead}, p.pickOpponents(lead, size-1)...)
		seats := p.seat(line)
		job := Job{Seats: make([]Seat, len(seats)), Seed: mix(req.Seed + uint64(len(jobs)) + 1), Rated: true}
		for i, e := range seats {
			job.Seats[i] = Seat{Bot: e.ID, Version: e.Version}
		}
		p.record(job.Bots())
		jobs = append(jobs, job)
	}
	return jobs
}

func newPlanner(req Request) *planner {
	p := &planner{byID: make(map[int64]*entry), burst: DefaultBurst, spare: DefaultSpare, seed: req.Seed}
	if req.Burst > 0 {
		p.burst = req.Burst
	}
	if req.Spare > 0 {
		p.spare = req.Spare
	}
	for _, b := range req.Bots {
		if old, ok := p.byID[b.ID]; ok {
			if b.Order > old.Order {
				old.Bot = b
				old.recent, old.played = b.Recent, b.Played
			}
			continue
		}
		e := &entry{Bot: b, recent: b.Recent, played: b.Played, last: -1}
		p.byID[b.ID] = e
		p.bots = append(p.bots, e)
	}
	sort.Slice(p.bots, func(i, j int) bool { return p.bots[i].ID < p.bots[j].ID })
	for _, m := range req.Recent {
		p.remember(m)
	}
	return p
}

// remember adds a match to the history without counting it as played (the
// caller's counts already include the recent ones).
func (p *planner) remember(m Pairing) {
	idx := len(p.history)
	set := sortedSet(m)
	p.history = append(p.history, m) // read only, and not kept past the call
	p.sets = append(p.sets, set)
	for seat, id := range m {
		if e, ok := p.byID[id]; ok {
			e.last = idx
			e.lastSet = set
			for len(e.seatCounts) <= seat {
				e.seatCounts = append(e.seatCounts, 0)
			}
			e.seatCounts[seat]++
		}
	}
}

// record adds a match scheduled by this call.
func (p *planner) record(m Pairing) {
	p.remember(m)
	for _, id := range m {
		e := p.byID[id]
		e.recent++
		e.played++
	}
}

func (p *planner) inBurst(e *entry) bool { return e.played < p.burst }

// tie is a per-call pseudo-random tie-break: without it the lowest ID would
// win every tie and meet the ladder more often.
func (p *planner) tie(id int64, salt uint64) uint64 {
	return mix(p.seed ^ mix(uint64(id)^salt*0x9e3779b97f4a7c15))
}

// pickLead chooses the bot the next match is built around (rule 2).
func (p *planner) pickLead() *entry {
	best := p.bots[0]
	for _, e := range p.bots[1:] {
		if p.leadsBefore(e, best) {
			best = e
		}
	}
	return best
}

func (p *planner) leadsBefore(a, b *entry) bool {
	if ba, bb := p.inBurst(a), p.inBurst(b); ba != bb {
		return ba
	} else if ba && a.Order != b.Order {
		return a.Order < b.Order
	}
	if a.recent != b.recent {
		return a.recent < b.recent
	}
	if a.last != b.last {
		return a.last < b.last
	}
	return p.tie(a.ID, 1) < p.tie(b.ID, 1)
}

// pickOpponents chooses need opponents for lead (rule 3).
func (p *planner) pickOpponents(lead *entry, need int) []*entry {
	cands := make([]*entry, 0, len(p.bots)-1)
	for _, e := range p.bots {
		if e != lead {
			cands = append(cands, e)
		}
	}
	for _, e := range cands {
		e.dist, e.tie = math.Abs(e.Rating.Mu-lead.Rating.Mu), p.tie(e.ID, 2)
	}
	slices.SortFunc(cands, func(a, b *entry) int {
		if a.dist != b.dist {
			return cmp.Compare(a.dist, b.dist)
		}
		return cmp.Compare(a.tie, b.tie)
	})
	window := min(len(cands), need+p.spare)
	near := slices.Clone(cands[:window])
	slices.SortStableFunc(near, func(a, b *entry) int {
		if a.recent != b.recent {
			return cmp.Compare(a.recent, b.recent)
		}
		return cmp.Compare(a.last, b.last)
	})
	picked := near[:need]

	// No immediate repeat: swap the farthest pick for the nearest bot left out.
	set := make([]int64, 0, need+1)
	set = append(set, lead.ID)
	for _, e := range picked {
		set = append(set, e.ID)
	}
	if lead.lastSet != nil && slices.Equal(sortedSet(set), lead.lastSet) {
		far := 0
		for i, e := range picked {
			if e.dist >= picked[far].dist {
				far = i
			}
		}
		for _, e := range cands {
			if !slices.Contains(picked, e) {
				picked[far] = e
				break
			}
		}
	}
	return picked
}

// seat orders a line-up (rule 4).
func (p *planner) seat(line []*entry) []*entry {
	ids := make([]int64, len(line))
	for i, e := range line {
		ids[i] = e.ID
	}
	set := sortedSet(ids)
	for i := len(p.history) - 1; i >= 0; i-- {
		prev := p.history[i]
		if slices.Equal(p.sets[i], set) {
			out := make([]*entry, len(prev))
			for s := range prev {
				out[s] = p.byID[prev[(s+1)%len(prev)]]
			}
			return out
		}
	}
	left := slices.Clone(line)
	out := make([]*entry, 0, len(line))
	for s := range line {
		best := 0
		for i, e := range left {
			b := left[best]
			if e.atSeat(s) < b.atSeat(s) ||
				e.atSeat(s) == b.atSeat(s) && p.tie(e.ID, 3+uint64(s)) < p.tie(b.ID, 3+uint64(s)) {
				best = i
			}
		}
		out = append(out, left[best])
		left = slices.Delete(left, best, best+1)
	}
	return out
}

func sortedSet(ids []int64) []int64 {
	s := slices.Clone(ids)
	slices.Sort(s)
	return s
}

// mix is SplitMix64's finaliser: a fixed, well-spread hash for tie-breaks
// and match seeds.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Challenge checks a user's request for an unrated match between the bots
// want (bot IDs in seat order) of one game, whose allowed player counts are
// players and whose active bots are active, and returns the job to run with
// the given match seed. Every refusal says what to change.
func Challenge(players []int, active []Bot, want []int64, seed uint64) (Job, error) {
	if !slices.Contains(players, len(want)) {
		counts := make([]string, len(players))
		for i, n := range players {
			counts[i] = fmt.Sprint(n)
		}
		return Job{}, fmt.Errorf("a challenge in this game needs %s bots, not %d", strings.Join(counts, " or "), len(want))
	}
	job := Job{Seats: make([]Seat, len(want)), Seed: seed}
	for i, id := range want {
		if slices.Contains(want[:i], id) {
			return Job{}, fmt.Errorf("bot %d is named twice: each seat needs a different bot", id)
		}
		found := false
		var order int64
		for _, b := range active {
			// As in Next, the newest entry of a bot listed twice counts.
			if b.ID == id && (!found || b.Order > order) {
				job.Seats[i] = Seat{Bot: b.ID, Version: b.Version}
				found, order = true, b.Order
			}
		}
		if !found {
			return Job{}, fmt.Errorf("bot %d is not an active bot of this game", id)
		}
	}
	return job, nil
}
