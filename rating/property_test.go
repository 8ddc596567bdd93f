package rating

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randomRanks(rng *rand.Rand, n int) []int {
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = rng.IntN(n) // repeats make ties
	}
	return ranks
}

func randomRatings(rng *rand.Rand, n int) []Rating {
	r := make([]Rating, n)
	for i := range r {
		r[i] = Rating{Mu: rng.Float64()*60 - 10, Sigma: 0.1 + rng.Float64()*10}
	}
	return r
}

// Among players who start equal, a better rank never ends with a lower mean,
// the best never loses mean, the worst never gains it, and tied players move
// together.
func TestPropertyEqualPlayersOrderedByRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 5000 {
		n := 2 + rng.IntN(3)
		start := Rating{Mu: rng.Float64()*60 - 10, Sigma: 0.5 + rng.Float64()*10}
		before := make([]Rating, n)
		for i := range before {
			before[i] = start
		}
		ranks := randomRanks(rng, n)
		after := Update(before, ranks)
		best, worst := ranks[0], ranks[0]
		for _, r := range ranks {
			best, worst = min(best, r), max(worst, r)
		}
		for i := range after {
			if ranks[i] == best && after[i].Mu < start.Mu-1e-12 {
				t.Fatalf("iter %d: a winner lost mean: %v -> %v (ranks %v)", iter, start, after[i], ranks)
			}
			if ranks[i] == worst && best != worst && after[i].Mu > start.Mu+1e-12 {
				t.Fatalf("iter %d: a loser gained mean: %v -> %v (ranks %v)", iter, start, after[i], ranks)
			}
			for j := range after {
				if ranks[i] < ranks[j] && after[i].Mu < after[j].Mu {
					t.Fatalf("iter %d: seat %d ranked above %d ends lower: %v", iter, i, j, after)
				}
				if ranks[i] == ranks[j] && !close(after[i].Mu, after[j].Mu, 1e-12) {
					t.Fatalf("iter %d: tied seats %d and %d differ: %v", iter, i, j, after)
				}
			}
		}
	}
}

// Without tau, a match only ever adds information: no sigma grows. With
// tau, no sigma ends above its tau-inflated value, and limit-sigma keeps it
// at or below where it started.
func TestPropertySigmaShrinks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	noTau := DefaultModel()
	noTau.Tau = 0
	limited := DefaultModel()
	limited.LimitSigma = true
	for iter := range 5000 {
		n := 2 + rng.IntN(3)
		before := randomRatings(rng, n)
		ranks := randomRanks(rng, n)
		a, b, c := noTau.Update(before, ranks), Update(before, ranks), limited.Update(before, ranks)
		for i := range before {
			inflated := math.Hypot(before[i].Sigma, DefaultTau)
			if a[i].Sigma > before[i].Sigma || b[i].Sigma > inflated || c[i].Sigma > before[i].Sigma || a[i].Sigma <= 0 {
				t.Fatalf("iter %d seat %d: sigma %v -> %v (no tau), %v (tau), %v (limited)",
					iter, i, before[i].Sigma, a[i].Sigma, b[i].Sigma, c[i].Sigma)
			}
		}
	}
}

// Seating does not matter: permuting the seats permutes the results.
func TestPropertySeatPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 5000 {
		n := 2 + rng.IntN(3)
		before := randomRatings(rng, n)
		ranks := randomRanks(rng, n)
		after := Update(before, ranks)
		perm := rng.Perm(n)
		pb, pr := make([]Rating, n), make([]int, n)
		for i, p := range perm {
			pb[i], pr[i] = before[p], ranks[p]
		}
		pa := Update(pb, pr)
		for i, p := range perm {
			if !close(pa[i].Mu, after[p].Mu, 1e-12) || !close(pa[i].Sigma, after[p].Sigma, 1e-12) {
				t.Fatalf("iter %d: permuted %v gives %v for seat %d, unpermuted %v", iter, perm, pa[i], p, after[p])
			}
		}
	}
}

// Only the order of ranks matters: 0,1,2,3 and 10,20,30,40 rate alike.
func TestPropertyRankScaleFree(t *testing.T) {
	before := []Rating{{30, 2}, {20, 3}, {25, 5}, {26, 1}}
	a := Update(before, []int{0, 1, 1, 2})
	b := Update(before, []int{-10, 20, 20, 400})
	checkRatings(t, "scaled ranks", b, a, 0)
}

// A run of matches between a strong and a weak bot separates them clearly in
// the displayed rating within 30 matches (a few minutes of the matchmaker).
// One-sided results carry little information each, so sigma falls slowly.
func TestPropertyConvergence(t *testing.T) {
	strong, weak := Default(), Default()
	for range 30 {
		r := Update([]Rating{strong, weak}, []int{0, 1})
		strong, weak = r[0], r[1]
	}
	if strong.Display()-weak.Display() < 150 || strong.Sigma >= DefaultSigma || weak.Sigma >= DefaultSigma {
		t.Errorf("after 30 one-sided games: strong %v (%d), weak %v (%d)", strong, strong.Display(), weak, weak.Display())
	}
}

func FuzzUpdate(f *testing.F) {
	f.Add(25.0, 25.0/3, 25.0, 25.0/3, 25.0, 25.0/3, 25.0, 25.0/3, uint8(4), uint16(0x1234), false)
	f.Add(1e6, 1e-3, -1e6, 1e-3, 0.0, 1e6, 3.0, 1.0, uint8(2), uint16(0x0001), true)
	f.Add(40.0, 3.0, -20.0, 3.0, 0.0, 1.0, 0.0, 1.0, uint8(3), uint16(0x0000), true)
	f.Fuzz(func(t *testing.T, m0, s0, m1, s1, m2, s2, m3, s3 float64, n uint8, rankBits uint16, limit bool) {
		all := []Rating{{m0, s0}, {m1, s1}, {m2, s2}, {m3, s3}}
		seats := 2 + int(n%3)
		before := all[:seats]
		// The documented domain: |mu| <= 1e6, 1e-3 <= sigma <= 1e6.
		for _, r := range before {
			if !(math.Abs(r.Mu) <= 1e6) || !(r.Sigma >= 1e-3 && r.Sigma <= 1e6) {
				return
			}
		}
		ranks := make([]int, seats)
		for i := range ranks {
			ranks[i] = int(rankBits>>(4*i)) & 3
		}
		m := DefaultModel()
		m.LimitSigma = limit
		for _, model := range []Model{m, {Beta: DefaultBeta, Kappa: DefaultKappa}} {
			after := model.Update(before, ranks)
			for i, r := range after {
				if math.IsNaN(r.Mu) || math.IsInf(r.Mu, 0) || !(r.Sigma > 0) || math.IsInf(r.Sigma, 0) {
					t.Fatalf("seat %d: %v -> %v (ranks %v, model %+v)", i, before[i], r, ranks, model)
				}
				_ = r.Display()
			}
		}
	})
}

func BenchmarkUpdate2(b *testing.B) {
	before := []Rating{{27, 3}, {24, 4}}
	ranks := []int{0, 1}
	for b.Loop() {
		Update(before, ranks)
	}
}

func BenchmarkUpdate4(b *testing.B) {
	before := []Rating{{27, 3}, {24, 4}, {25, 8}, {30, 1}}
	ranks := []int{2, 0, 3, 1}
	for b.Loop() {
		Update(before, ranks)
	}
}

// The shown rating never contradicts the leaderboard's order by ordinal.
func TestPropertyDisplayMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		a, b := randomRatings(rng, 2)[0], randomRatings(rng, 2)[1]
		if a.Ordinal() > b.Ordinal() && a.Display() < b.Display() {
			t.Fatalf("%v (ordinal %v) shows %d, below %v (ordinal %v) showing %d",
				a, a.Ordinal(), a.Display(), b, b.Ordinal(), b.Display())
		}
	}
}
