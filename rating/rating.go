// Package rating rates bots with the Weng-Lin Bayesian approximation under the
// Plackett-Luce model (Weng & Lin 2011, JMLR 12, Algorithm 4), the model the
// OpenSkill libraries implement. Every bot is a Gaussian belief about its skill,
// a mean Mu and an uncertainty Sigma; one match result (a ranking of the seats,
// with ties) moves the means towards what the result suggests and shrinks the
// uncertainties.
//
// The arithmetic follows the OpenSkill reference implementations step by step
// (docs/ratings.md lists the steps), so their published test vectors hold to a
// relative 1e-12. One difference in order of operations: each exp(mu/c) is
// taken relative to the largest mean of the sum it enters, which divides out
// of every probability but keeps ratings far apart from overflowing to
// infinity or underflowing to 0/0.
//
// The package is pure: no clock, no randomness, no map iteration. The same
// inputs give the same outputs on every run of the same binary.
package rating

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// The model's defaults, as in OpenSkill.
const (
	DefaultMu    = 25.0
	DefaultSigma = DefaultMu / 3
	DefaultBeta  = DefaultSigma / 2
	DefaultKappa = 0.0001
	DefaultTau   = DefaultMu / 300
)

// The display scale: Display() = DisplayBase + DisplayScale*Ordinal(), rounded.
// docs/ratings.md explains the choice.
const (
	DisplayBase  = 1000
	DisplayScale = 7.0
)

// Rating is one bot's skill belief: a mean and a standard deviation.
type Rating struct {
	Mu, Sigma float64
}

// Default is the rating of a bot that has never played: mu 25, sigma 25/3.
func Default() Rating { return Rating{Mu: DefaultMu, Sigma: DefaultSigma} }

// Ordinal is the conservative estimate mu - 3 sigma: the skill the bot has
// with about 99.7% confidence. The leaderboard sorts by it, so a lucky
// newcomer with one win does not outrank a bot proven over many matches.
// A new bot's ordinal is 0.
func (r Rating) Ordinal() float64 { return ordinal(r, 3, 1, 0) }

// ordinal is OpenSkill's general form alpha*((mu - z*sigma) + target/alpha).
func ordinal(r Rating, z, alpha, target float64) float64 {
	return alpha * ((r.Mu - z*r.Sigma) + target/alpha)
}

// Display is the rating shown on leaderboards: 1000 + 7*Ordinal(), rounded
// to the nearest integer. A new bot shows 1000; it is monotone in Ordinal, so
// the shown numbers never contradict the leaderboard's order (up to rounding).
func (r Rating) Display() int {
	v := DisplayBase + DisplayScale*r.Ordinal()
	// Keep absurd or broken values printable rather than wrapping an int.
	switch {
	case math.IsNaN(v):
		return DisplayBase
	case v > 1e9:
		return 1e9
	case v < -1e9:
		return -1e9
	}
	return int(math.Round(v))
}

// NewVersion is the rating a bot's new upload starts from: the same mean (a
// new version is usually close to the old one in strength) with the
// uncertainty of a newcomer, so that its first matches move it quickly.
func (r Rating) NewVersion() Rating { return Rating{Mu: r.Mu, Sigma: DefaultSigma} }

// String formats a rating for logs and test failures.
func (r Rating) String() string { return fmt.Sprintf("(mu %.4f, sigma %.4f)", r.Mu, r.Sigma) }

// Model holds the model's constants. The zero Model is not useful; start
// from DefaultModel.
type Model struct {
	// Beta is the spread of a single performance around the skill.
	Beta float64
	// Kappa is the floor of the factor that shrinks sigma (keeps it positive).
	Kappa float64
	// Tau is added to every sigma (in quadrature) before each match, so that
	// ratings keep following bots whose strength drifts.
	Tau float64
	// LimitSigma keeps a match from raising sigma above its value before Tau
	// was added.
	LimitSigma bool
}

// DefaultModel is OpenSkill's default: beta 25/6, kappa 0.0001, tau 25/300,
// sigma not limited.
func DefaultModel() Model {
	return Model{Beta: DefaultBeta, Kappa: DefaultKappa, Tau: DefaultTau}
}

// Update rates one match with DefaultModel: before has one rating per seat,
// ranks one rank per seat (lower is better, equal ranks tie; only their
// order matters, so placements 0,1,2,3 or 1,2,3,4 or scores negated all
// work). It returns the ratings after the match, one per seat.
func Update(before []Rating, ranks []int) []Rating {
	return DefaultModel().Update(before, ranks)
}

// Update rates one match of one-player teams; see the package-level Update.
// It panics when before and ranks differ in length or hold fewer than two
// seats: that is a caller's bug, not a match result.
func (m Model) Update(before []Rating, ranks []int) []Rating {
	teams := make([][]Rating, len(before))
	for i := range before {
		teams[i] = before[i : i+1 : i+1]
	}
	after := m.UpdateTeams(teams, ranks)
	out := make([]Rating, len(after))
	for i, t := range after {
		out[i] = t[0]
	}
	return out
}

// UpdateTeams rates one match between teams: teams[i] are the players of
// team i, ranks[i] its rank (lower is better, equal ranks tie). It returns
// new ratings in the same shape. It panics on fewer than two teams, an empty
// team, or a ranks slice of another length.
func (m Model) UpdateTeams(teams [][]Rating, ranks []int) [][]Rating {
	n := len(teams)
	if n < 2 || len(ranks) != n {
		panic(fmt.Sprintf("rating: %d teams with %d ranks", n, len(ranks)))
	}
	// Step 1: every sigma grows by tau before the match is taken into account.
	prior := make([][]Rating, n)
	for i, t := range teams {
		if len(t) == 0 {
			panic(fmt.Sprintf("rating: team %d is empty", i))
		}
		prior[i] = make([]Rating, len(t))
		for j, p := range t {
			prior[i][j] = Rating{Mu: p.Mu, Sigma: math.Sqrt(p.Sigma*p.Sigma + m.Tau*m.Tau)}
		}
	}

	// Step 2: team strength is the sum of its players' means and variances.
	mu := make([]float64, n)
	s2 := make([]float64, n)
	for i, t := range prior {
		for _, p := range t {
			mu[i] += p.Mu
			s2[i] += p.Sigma * p.Sigma
		}
	}

	// Work in rank order, as the reference implementations do, so that the
	// sums below add the same terms in the same order whatever the seating.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ranks[order[a]] < ranks[order[b]] })

	// Step 3: c is the match-wide scale.
	var c2 float64
	for _, i := range order {
		c2 += s2[i] + m.Beta*m.Beta
	}
	c := math.Sqrt(c2)

	// Step 4: sumQ[q] sums exp(mu/c) over the teams ranked at or below q;
	// a[q] counts the teams tied with q. Each sum is taken relative to the
	// largest mean it covers (shift[q]), which cancels in every probability
	// below but keeps exp from overflowing, or every term of a sum from
	// underflowing to 0, when ratings are far apart.
	sumQ := make([]float64, n)
	shift := make([]float64, n)
	a := make([]float64, n)
	for _, q := range order {
		shift[q] = math.Inf(-1)
		for _, i := range order {
			if ranks[i] >= ranks[q] {
				shift[q] = math.Max(shift[q], mu[i])
			}
		}
		for _, i := range order {
			if ranks[i] >= ranks[q] {
				sumQ[q] += math.Exp((mu[i] - shift[q]) / c)
			}
			if ranks[i] == ranks[q] {
				a[q]++
			}
		}
	}

	// Steps 5-7.
	out := make([][]Rating, n)
	for i := range prior {
		var omega, delta float64
		for _, q := range order {
			if ranks[q] > ranks[i] {
				continue
			}
			p := math.Exp((mu[i]-shift[q])/c) / sumQ[q]
			delta += p * (1 - p) / a[q]
			if q == i {
				omega += (1 - p) / a[q]
			} else {
				omega -= p / a[q]
			}
		}
		gamma := math.Sqrt(s2[i]) / c
		omega *= s2[i] / c
		delta *= s2[i] / (c * c) * gamma

		out[i] = make([]Rating, len(prior[i]))
		for j, p := range prior[i] {
			share := p.Sigma * p.Sigma / s2[i]
			newMu := p.Mu + share*omega
			newSigma := p.Sigma * math.Sqrt(math.Max(1-share*delta, m.Kappa))
			// Step 8: optionally never end above the sigma before tau.
			if m.LimitSigma {
				newSigma = math.Min(newSigma, teams[i][j].Sigma)
			}
			out[i][j] = Rating{Mu: newMu, Sigma: newSigma}
		}
	}
	return out
}

// Ranks turns a finished match into Update's ranks: placement lists the
// seats best first (game.State.Placement) and scores are per seat. When ties
// is true (game.Info.Ties), seats with equal scores share the better rank,
// as tournaments count them; otherwise the placement alone decides. It fails
// when placement is not an ordering of every seat once.
func Ranks(placement []int, scores []int64, ties bool) ([]int, error) {
	n := len(scores)
	if len(placement) != n {
		return nil, fmt.Errorf("rating: placement of %d seats for %d scores", len(placement), n)
	}
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = -1
	}
	for p, seat := range placement {
		if seat < 0 || seat >= n || ranks[seat] >= 0 {
			return nil, fmt.Errorf("rating: placement %v is not an ordering of %d seats", placement, n)
		}
		ranks[seat] = p
	}
	if ties {
		shared := slices.Clone(ranks)
		for a := range n {
			for b := range n {
				if scores[a] == scores[b] && ranks[b] < shared[a] {
					shared[a] = ranks[b]
				}
			}
		}
		ranks = shared
	}
	return ranks, nil
}
