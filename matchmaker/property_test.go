package matchmaker

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arenabots/arena/rating"
)

// ladder simulates the server around the matchmaker: it keeps the full
// history, hands Next the recent window and counts, and lets every job
// finish before the next call.
type ladder struct {
	bots    []Bot
	players []int
	history []Pairing
	window  int
	total   map[int64]int
}

func (l *ladder) request(free int, seed uint64) Request {
	start := max(0, len(l.history)-l.window)
	recent := l.history[start:]
	bots := slices.Clone(l.bots)
	for i := range bots {
		bots[i].Recent = 0
		for _, m := range recent {
			if slices.Contains(m, bots[i].ID) {
				bots[i].Recent++
			}
		}
		bots[i].Played = l.total[bots[i].ID]
	}
	return Request{Bots: bots, Recent: recent, Players: l.players, Free: free, Seed: seed}
}

func checkJobs(t *testing.T, req Request, jobs []Job) {
	t.Helper()
	if len(jobs) > max(req.Free, 0) {
		t.Fatalf("%d jobs for %d free", len(jobs), req.Free)
	}
	versions := map[int64]int64{}
	for _, b := range req.Bots {
		versions[b.ID] = b.Version
	}
	for _, j := range jobs {
		if !slices.Contains(req.Players, len(j.Seats)) || !j.Rated {
			t.Fatalf("job %+v: %d seats, allowed %v", j, len(j.Seats), req.Players)
		}
		ids := j.Bots()
		if len(sortedSet(ids)) != len(slices.Compact(sortedSet(ids))) {
			t.Fatalf("job %v: a bot twice", ids)
		}
		for _, s := range j.Seats {
			if v, ok := versions[s.Bot]; !ok || v != s.Version {
				t.Fatalf("job %+v: seat %+v is not an active bot version", j, s)
			}
		}
	}
}

func TestPropertyRandomLadders(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for pop := range 60 {
		n := 2 + rng.IntN(13)
		l := &ladder{players: [][]int{{2}, {2, 4}}[rng.IntN(2)], window: 4 * n, total: map[int64]int{}}
		for i := range n {
			id := int64(rng.IntN(1000)*100 + i) // unique, unordered
			l.bots = append(l.bots, Bot{ID: id, Version: id + 7,
				Rating: rating.Rating{Mu: 10 + rng.Float64()*30, Sigma: 1 + rng.Float64()*7}, Order: int64(rng.IntN(50))})
			l.total[id] = DefaultBurst + rng.IntN(3) // established: fairness is what is measured
		}
		for round := range 400 {
			req := l.request(rng.IntN(5)-1, rng.Uint64())
			jobs := Next(req)
			checkJobs(t, req, jobs)
			if req.Free > 0 && len(jobs) != req.Free {
				t.Fatalf("pop %d round %d: %d jobs for %d free with %d bots", pop, round, len(jobs), req.Free, n)
			}
			for _, j := range jobs {
				l.history = append(l.history, j.Bots())
				for _, id := range j.Bots() {
					l.total[id]++
				}
			}
		}
		// Fairness: every bot leads its share of matches, so no bot falls
		// far behind the others, whatever its rating.
		lo, hi := -1, 0
		for _, b := range l.bots {
			c := l.total[b.ID] - DefaultBurst
			if lo < 0 || c < lo {
				lo = c
			}
			hi = max(hi, c)
		}
		if float64(lo) < 0.8*float64(hi) {
			t.Errorf("pop %d (%d bots, players %v): matches per bot range %d..%d", pop, n, l.players, lo, hi)
		}
	}
}

// A new version joining a settled ladder plays its burst first.
func TestPropertyBurstSettlesNewVersion(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	l := &ladder{players: []int{2, 4}, window: 40, total: map[int64]int{}}
	for i := range 10 {
		id := int64(i + 1)
		l.bots = append(l.bots, Bot{ID: id, Version: id, Rating: rating.Rating{Mu: 15 + 2*float64(i), Sigma: 1.5}, Order: id})
		l.total[id] = 200
	}
	l.bots = append(l.bots, Bot{ID: 99, Version: 99, Rating: rating.Default(), Order: 99})
	jobs := 0
	for l.total[99] < DefaultBurst {
		req := l.request(2, rng.Uint64())
		for _, j := range Next(req) {
			jobs++
			l.history = append(l.history, j.Bots())
			for _, id := range j.Bots() {
				l.total[id]++
			}
		}
		if jobs > DefaultBurst+2 {
			t.Fatalf("after %d jobs the new version has played %d", jobs, l.total[99])
		}
	}
}

func FuzzNext(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8}, uint64(1), int8(3), true)
	f.Add([]byte{9, 9, 9, 9, 0, 0, 0, 0, 1, 1}, uint64(99), int8(-1), false)
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, free int8, grid bool) {
		// Bytes become bots (id, mu, recent, played), then history pairs.
		req := Request{Players: []int{2}, Free: int(free) % 9, Seed: seed}
		if grid {
			req.Players = []int{2, 4}
		}
		for len(data) >= 4 && len(req.Bots) < 12 {
			req.Bots = append(req.Bots, Bot{ID: int64(data[0] % 16), Version: int64(data[0]),
				Rating: rating.Rating{Mu: float64(data[1]) - 100, Sigma: 3}, Recent: int(data[2] % 8), Played: int(data[3] % 30)})
			data = data[4:]
		}
		for len(data) >= 2 {
			req.Recent = append(req.Recent, Pairing{int64(data[0] % 16), int64(data[1] % 16)})
			data = data[2:]
		}
		jobs := Next(req)
		// Duplicate IDs in the input keep the newest entry; check against it.
		dedup := map[int64]Bot{}
		for _, b := range req.Bots {
			if old, ok := dedup[b.ID]; !ok || b.Order > old.Order {
				dedup[b.ID] = b
			}
		}
		var unique []Bot
		for _, b := range req.Bots {
			if dedup[b.ID] == b {
				unique = append(unique, b)
				delete(dedup, b.ID)
			}
		}
		checkJobs(t, Request{Bots: unique, Players: req.Players, Free: req.Free}, jobs)
	})
}

func BenchmarkNext(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	l := &ladder{players: []int{2, 4}, window: 400, total: map[int64]int{}}
	for i := range 200 {
		id := int64(i + 1)
		l.bots = append(l.bots, Bot{ID: id, Version: id, Rating: rating.Rating{Mu: 10 + rng.Float64()*30, Sigma: 2}, Order: id})
		l.total[id] = 100
	}
	for range 400 {
		l.history = append(l.history, Pairing{int64(1 + rng.IntN(200)), int64(1 + rng.IntN(200))})
	}
	req := l.request(2, 1)
	for b.Loop() {
		Next(req)
	}
}
