package dotsandboxes

import (
	"context"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
	"github.com/arenabots/arena/match"
)

// BenchmarkRandomPlayout plays whole random games through the engine's typed
// API: a shuffle of the 60 edges, then 60 moves with box closing and turn
// passing. The target is 1,000,000 playouts per second per core.
func BenchmarkRandomPlayout(b *testing.B) {
	src := rng.New(1)
	var order [NumEdges]Edge
	for i := range order {
		order[i] = Edge(i)
	}
	scores := 0
	for b.Loop() {
		var bd Board
		// Fisher-Yates with two 32-bit draws per 64 random bits; the bias
		// of multiply-shift at n <= 60 is below 2^-26, fine for a playout.
		var r uint64
		for i := NumEdges - 1; i > 0; i-- {
			if i&1 == 1 {
				r = src.Uint64()
			} else {
				r >>= 32
			}
			j := (r & 0xffffffff * uint64(i+1)) >> 32
			order[i], order[j] = order[j], order[i]
		}
		for _, e := range order {
			bd.Play(e)
		}
		scores += bd.Score(0)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "playouts/s")
	if scores == 0 {
		b.Fatal("no boxes closed")
	}
}

// BenchmarkApplyJSON is one turn as a bot sees it: observation out, answer in.
func BenchmarkApplyJSON(b *testing.B) {
	s := NewState(1)
	buf := make([]byte, 0, 1024)
	answers := [][]byte{[]byte(`{"orient":"V","r":4,"c":5}`), nil}
	for b.Loop() {
		if s.Done() {
			s = NewState(1)
		}
		buf = s.AppendObservation(buf[:0], 0)
		answers[s.ToMove], answers[1-s.ToMove] = []byte(`garbage`), nil
		s.Apply(answers)
	}
}

// BenchmarkMatch runs whole 60-turn matches through the runner between two
// house bots, replay recording included.
func BenchmarkMatch(b *testing.B) {
	for _, pair := range [][2]string{{"greedy", "random"}, {"chains", "greedy"}} {
		b.Run(pair[0]+"-vs-"+pair[1], func(b *testing.B) {
			seed := uint64(0)
			for b.Loop() {
				seed++
				bots := make([]bot.Bot, 2)
				ids := make([]bot.Identity, 2)
				for seat, name := range pair {
					var err error
					bots[seat], err = bot.OpenBuiltin(name, bot.Match{Game: Game{}, Seed: seed, Seat: seat})
					if err != nil {
						b.Fatal(err)
					}
					ids[seat] = bot.Identity{Spec: "builtin:" + name}
				}
				r, err := match.Run(context.Background(), Game{}, game.Config{Seed: seed, Players: 2}, bots, ids)
				if err != nil || r.Result.Turns != NumEdges {
					b.Fatal(err)
				}
			}
		})
	}
}
