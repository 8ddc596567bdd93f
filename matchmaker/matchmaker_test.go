package matchmaker

import (
	"slices"
	"strings"
	"testing"

	"github.com/arenabots/arena/rating"
)

// settled makes an established bot (out of its burst) with version 100+id.
func settled(id int64, mu float64, recent int) Bot {
	return Bot{ID: id, Version: 100 + id, Rating: rating.Rating{Mu: mu, Sigma: 2}, Recent: recent, Played: 1000, Order: id}
}

func pairings(jobs []Job) []Pairing {
	out := make([]Pairing, len(jobs))
	for i, j := range jobs {
		out[i] = j.Bots()
	}
	return out
}

func TestCapacity(t *testing.T) {
	bots := []Bot{settled(1, 25, 0), settled(2, 25, 0), settled(3, 25, 0)}
	for _, tc := range []struct{ free, want int }{{-1, 0}, {0, 0}, {1, 1}, {5, 5}} {
		jobs := Next(Request{Bots: bots, Players: []int{2}, Free: tc.free, Seed: 1})
		if len(jobs) != tc.want {
			t.Errorf("Free %d: %d jobs, want %d", tc.free, len(jobs), tc.want)
		}
	}
}

func TestTooFewBots(t *testing.T) {
	if jobs := Next(Request{Bots: []Bot{settled(1, 25, 0)}, Players: []int{2}, Free: 3}); len(jobs) != 0 {
		t.Errorf("one bot: %v", jobs)
	}
	if jobs := Next(Request{Players: []int{2, 4}, Free: 3}); len(jobs) != 0 {
		t.Errorf("no bots: %v", jobs)
	}
	if jobs := Next(Request{Bots: []Bot{settled(1, 25, 0), settled(2, 25, 0)}, Players: nil, Free: 3}); len(jobs) != 0 {
		t.Errorf("no player counts: %v", jobs)
	}
}

func sizes(jobs []Job) []int {
	out := make([]int, len(jobs))
	for i, j := range jobs {
		out[i] = len(j.Seats)
	}
	return out
}

func TestSizesAlternate(t *testing.T) {
	five := []Bot{settled(1, 20, 0), settled(2, 22, 0), settled(3, 24, 0), settled(4, 26, 0), settled(5, 28, 0)}
	cases := []struct {
		name    string
		bots    []Bot
		players []int
		recent  []Pairing
		want    []int
	}{
		{"fresh ladder starts small", five, []int{4, 2}, nil, []int{2, 4, 2, 4}},
		{"continues after a 2-player match", five, []int{2, 4}, []Pairing{{1, 2}}, []int{4, 2, 4, 2}},
		{"continues after a 4-player match", five, []int{2, 4}, []Pairing{{1, 2}, {1, 2, 3, 4}}, []int{2, 4, 2, 4}},
		{"too few bots for 4", five[:3], []int{2, 4}, nil, []int{2, 2, 2, 2}},
		{"exactly four bots", five[:4], []int{2, 4}, nil, []int{2, 4, 2, 4}},
		{"two-player game", five, []int{2}, []Pairing{{1, 2}}, []int{2, 2, 2, 2}},
		{"bad counts ignored", five, []int{0, 1, 2, 2, 9}, nil, []int{2, 2, 2, 2}},
	}
	for _, tc := range cases {
		got := sizes(Next(Request{Bots: tc.bots, Players: tc.players, Recent: tc.recent, Free: 4, Seed: 7}))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: sizes %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFewestRecentLeads(t *testing.T) {
	// Bot 2 has played least; it is in the first job whoever its opponent is.
	bots := []Bot{settled(1, 25, 9), settled(2, 40, 1), settled(3, 10, 5), settled(4, 30, 7)}
	jobs := Next(Request{Bots: bots, Players: []int{2}, Free: 1, Seed: 3})
	if !slices.Contains(jobs[0].Bots(), 2) {
		t.Errorf("first job %v lacks the least-played bot 2", jobs[0].Bots())
	}
	// Equal counts: the bot whose last match is oldest leads.
	bots = []Bot{settled(1, 25, 3), settled(2, 25, 3), settled(3, 25, 3)}
	recent := []Pairing{{3, 1}, {1, 2}, {2, 1}}
	jobs = Next(Request{Bots: bots, Players: []int{2}, Recent: recent, Free: 1, Seed: 3})
	if !slices.Contains(jobs[0].Bots(), 3) {
		t.Errorf("first job %v lacks bot 3, idle longest", jobs[0].Bots())
	}
}

func TestNewVersionBurst(t *testing.T) {
	fresh := Bot{ID: 9, Version: 900, Rating: rating.Default(), Recent: 12, Played: 3, Order: 50}
	bots := []Bot{settled(1, 25, 0), settled(2, 26, 0), settled(3, 24, 0), settled(4, 27, 0), fresh}
	jobs := Next(Request{Bots: bots, Players: []int{2}, Free: 6, Seed: 5})
	for i, j := range jobs {
		if !slices.Contains(j.Bots(), 9) {
			t.Errorf("job %d %v: the new version 9 is not in it", i, j.Bots())
		}
	}
	// The burst ends after Burst matches: 17 more here, with Burst 20.
	fresh.Played = 17
	bots[4] = fresh
	jobs = Next(Request{Bots: bots, Players: []int{2}, Free: 6, Seed: 5})
	if !slices.Contains(jobs[2].Bots(), 9) || slices.Contains(jobs[3].Bots(), 9) {
		t.Errorf("burst of 3 remaining: %v", pairings(jobs))
	}
	// A custom burst length.
	fresh.Played = 5
	bots[4] = fresh
	jobs = Next(Request{Bots: bots, Players: []int{2}, Free: 2, Seed: 5, Burst: 5})
	if slices.Contains(jobs[0].Bots(), 9) {
		t.Errorf("Burst 5 with 5 played still favours the new version: %v", pairings(jobs))
	}
	// Two new uploads: the older upload bursts first.
	older := Bot{ID: 8, Version: 800, Rating: rating.Default(), Recent: 12, Played: 0, Order: 40}
	jobs = Next(Request{Bots: append(bots[:4:4], fresh, older), Players: []int{2}, Free: 1, Seed: 5})
	if !slices.Contains(jobs[0].Bots(), 8) {
		t.Errorf("older upload 8 should burst first: %v", pairings(jobs))
	}
}

func TestOpponentsNearInRating(t *testing.T) {
	// Bot 5 (mu 50) leads; everyone else has equal counts.
	var bots []Bot
	for i, mu := range []float64{10, 20, 30, 41, 50, 58, 70, 80, 90} {
		recent := 4
		if mu == 50 {
			recent = 0
		}
		bots = append(bots, settled(int64(i+1), mu, recent))
	}
	cases := []struct {
		players []int
		spare   int
		recent  []Pairing
		want    []int64 // the line-up, sorted
	}{
		{[]int{2}, 0, nil, []int64{5, 6}},       // 58 is nearest to 50
		{[]int{4}, 0, nil, []int64{3, 4, 5, 6}}, // then 41, then 30 (20 away, before 70)
		{[]int{2, 4}, 0, []Pairing{{1, 2}}, []int64{3, 4, 5, 6}},
	}
	for _, tc := range cases {
		jobs := Next(Request{Bots: bots, Players: tc.players, Recent: tc.recent, Free: 1, Seed: 9, Spare: tc.spare})
		if got := sortedSet(jobs[0].Bots()); !slices.Equal(got, tc.want) {
			t.Errorf("players %v spare %d: line-up %v, want %v", tc.players, tc.spare, got, tc.want)
		}
	}
	// With spare places, the least-played of the near bots is taken.
	bots[5].Recent = 9 // bot 6, the nearest
	jobs := Next(Request{Bots: bots, Players: []int{2}, Free: 1, Seed: 9, Spare: 1})
	if got := sortedSet(jobs[0].Bots()); !slices.Equal(got, []int64{4, 5}) {
		t.Errorf("spare 1: line-up %v, want [4 5]", got)
	}
	// The window never reaches far bots: spare 1 of 2 needed with bot 6 busy
	// still stays among 58 and 41.
	for seed := range uint64(20) {
		jobs := Next(Request{Bots: bots, Players: []int{2}, Free: 1, Seed: seed, Spare: 1})
		if got := sortedSet(jobs[0].Bots()); !slices.Equal(got, []int64{4, 5}) && !slices.Equal(got, []int64{5, 6}) {
			t.Errorf("seed %d: far opponent %v", seed, got)
		}
	}
}

func TestNoImmediateRepeat(t *testing.T) {
	// Bot 1 leads; bot 2 is nearest, but 1 just played 2.
	bots := []Bot{settled(1, 25, 0), settled(2, 25.5, 3), settled(3, 40, 3)}
	jobs := Next(Request{Bots: bots, Players: []int{2}, Recent: []Pairing{{2, 1}}, Free: 1, Seed: 2, Spare: 0})
	if got := sortedSet(jobs[0].Bots()); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("2 players: line-up %v, want [1 3]", got)
	}
	// Within one call as well: two jobs for bot 1 meet different opponents.
	bots[0].Recent = -10
	jobs = Next(Request{Bots: bots, Players: []int{2}, Free: 2, Seed: 2, Spare: 0})
	if a, b := sortedSet(jobs[0].Bots()), sortedSet(jobs[1].Bots()); slices.Equal(a, b) {
		t.Errorf("same pairing twice in a row: %v", pairings(jobs))
	}
	// Only two bots: a repeat is the only match there is.
	jobs = Next(Request{Bots: bots[:2], Players: []int{2}, Recent: []Pairing{{2, 1}}, Free: 2, Seed: 2})
	if len(jobs) != 2 {
		t.Errorf("two bots: %d jobs, want 2", len(jobs))
	}
	// Four players: the same four again is avoided when a fifth exists.
	five := []Bot{settled(1, 25, 0), settled(2, 25, 2), settled(3, 25, 2), settled(4, 25, 2), settled(5, 45, 2)}
	jobs = Next(Request{Bots: five, Players: []int{4}, Recent: []Pairing{{4, 3, 2, 1}}, Free: 1, Seed: 2, Spare: 0})
	if got := sortedSet(jobs[0].Bots()); !slices.Contains(got, 5) || !slices.Contains(got, 1) {
		t.Errorf("4 players: line-up %v, want bot 1 with bot 5 swapped in", got)
	}
}

func TestSeatsAlternate(t *testing.T) {
	two := []Bot{settled(1, 25, 0), settled(2, 25, 0)}
	jobs := Next(Request{Bots: two, Players: []int{2}, Recent: []Pairing{{1, 2}}, Free: 4, Seed: 1})
	want := []Pairing{{2, 1}, {1, 2}, {2, 1}, {1, 2}}
	if got := pairings(jobs); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("2 players: %v, want %v", got, want)
	}
	four := []Bot{settled(1, 25, 0), settled(2, 25, 0), settled(3, 25, 0), settled(4, 25, 0)}
	jobs = Next(Request{Bots: four, Players: []int{4}, Recent: []Pairing{{3, 1, 4, 2}}, Free: 4, Seed: 1})
	want = []Pairing{{1, 4, 2, 3}, {4, 2, 3, 1}, {2, 3, 1, 4}, {3, 1, 4, 2}}
	if got := pairings(jobs); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("4 players: %v, want %v", got, want)
	}
	// A new line-up: bot 1 always sat first lately, so newcomer 3 goes first.
	three := []Bot{settled(1, 25, 0), settled(2, 25, 5), settled(3, 25.1, 1)}
	jobs = Next(Request{Bots: three, Players: []int{2}, Recent: []Pairing{{1, 2}, {1, 2}, {2, 1}, {1, 2}}, Free: 1, Seed: 1})
	if got := jobs[0].Bots(); !slices.Equal(got, Pairing{3, 1}) {
		t.Errorf("new line-up: %v, want [3 1]", got)
	}
}

func TestDeterministic(t *testing.T) {
	bots := []Bot{settled(1, 25, 0), settled(2, 25, 0), settled(3, 25, 0), settled(4, 25, 0), settled(5, 25, 0)}
	req := Request{Bots: bots, Players: []int{2, 4}, Free: 8, Seed: 42}
	a, b := Next(req), Next(req)
	if !slices.EqualFunc(a, b, func(x, y Job) bool { return slices.Equal(x.Seats, y.Seats) && x.Seed == y.Seed }) {
		t.Errorf("same request, different jobs:\n%v\n%v", a, b)
	}
	// Input order does not matter.
	rev := slices.Clone(bots)
	slices.Reverse(rev)
	c := Next(Request{Bots: rev, Players: []int{4, 2}, Free: 8, Seed: 42})
	if !slices.EqualFunc(a, c, func(x, y Job) bool { return slices.Equal(x.Seats, y.Seats) && x.Seed == y.Seed }) {
		t.Errorf("reordered input, different jobs:\n%v\n%v", a, c)
	}
	seeds := map[uint64]bool{}
	for _, j := range a {
		if seeds[j.Seed] || !j.Rated {
			t.Errorf("job %+v: repeated match seed or unrated", j)
		}
		seeds[j.Seed] = true
	}
	d := Next(Request{Bots: bots, Players: []int{2, 4}, Free: 8, Seed: 43})
	if d[0].Seed == a[0].Seed {
		t.Errorf("another request seed gives the same match seed")
	}
	// The request is not written to.
	if bots[0] != settled(1, 25, 0) {
		t.Errorf("input changed: %+v", bots[0])
	}
}

func TestDuplicateBotIDs(t *testing.T) {
	old := settled(1, 25, 0)
	newer := old
	newer.Version, newer.Order = 555, 99
	jobs := Next(Request{Bots: []Bot{newer, settled(2, 25, 0), old}, Players: []int{2}, Free: 3, Seed: 1})
	for _, j := range jobs {
		for _, s := range j.Seats {
			if s.Bot == 1 && s.Version != 555 {
				t.Errorf("bot 1 scheduled with version %d, want the newest 555", s.Version)
			}
		}
	}
	if len(jobs) != 3 {
		t.Errorf("%d jobs, want 3", len(jobs))
	}
}

func TestChallenge(t *testing.T) {
	active := []Bot{settled(1, 25, 0), settled(2, 25, 0), settled(3, 25, 0), settled(4, 25, 0), settled(5, 25, 0)}
	job, err := Challenge([]int{2, 4}, active, []int64{4, 2}, 77)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Seat{{4, 104}, {2, 102}}; !slices.Equal(job.Seats, want) || job.Seed != 77 || job.Rated {
		t.Errorf("challenge job %+v", job)
	}
	if job, err := Challenge([]int{2, 4}, active, []int64{5, 1, 3, 2}, 0); err != nil || len(job.Seats) != 4 {
		t.Errorf("4-player challenge: %+v, %v", job, err)
	}
	bad := []struct {
		players []int
		want    []int64
		msg     string
	}{
		{[]int{2}, []int64{1, 2, 3, 4}, "needs 2 bots, not 4"},
		{[]int{2, 4}, []int64{1, 2, 3}, "needs 2 or 4 bots, not 3"},
		{[]int{2, 4}, []int64{1}, "not 1"},
		{[]int{2, 4}, nil, "not 0"},
		{[]int{2}, []int64{3, 3}, "bot 3 is named twice"},
		{[]int{2}, []int64{1, 9}, "bot 9 is not an active bot of this game"},
		{[]int{2}, []int64{-1, 1}, "bot -1 is not an active"},
	}
	for _, tc := range bad {
		_, err := Challenge(tc.players, active, tc.want, 1)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Challenge(%v, %v) = %v, want an error with %q", tc.players, tc.want, err, tc.msg)
		}
	}
}
