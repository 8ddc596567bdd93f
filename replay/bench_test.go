package replay_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// BenchmarkCheck is what the server pays to check a worker's replay
// before it records the match (internal/server's verified): Parse and
// Verify, for a whole match between house bots of each game, against
// playing that match (play-ms: the runner, the game and the bots, native,
// so far less than a match of wasm bots costs). It reports the replay's
// size and the check's share of playing the match, both in CPU time (of
// the process), which a loaded machine disturbs less than the wall clock.
//
//	go test -run '^$' -bench Check -benchtime 20x ./replay/
func BenchmarkCheck(b *testing.B) {
	for _, c := range []struct {
		game  string
		seats []string
	}{
		{"dots-and-boxes", []string{"greedy", "greedy"}},
		{"grid-royale", []string{"house", "house", "house", "house"}},
	} {
		b.Run(c.game, func(b *testing.B) {
			g, err := games.Lookup(c.game)
			if err != nil {
				b.Fatal(err)
			}
			open := func(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
				bt, err := bot.OpenBuiltin(c.seats[m.Seat], m)
				return bt, bot.Identity{Spec: "builtin:" + c.seats[m.Seat]}, err
			}
			c0 := cpuTime()
			r, err := match.Runner{}.Play(context.Background(), g, game.Config{Seed: 7, Players: len(c.seats)}, open)
			if err != nil {
				b.Fatal(err)
			}
			play := cpuTime() - c0
			data, err := r.Marshal()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			c0 = cpuTime()
			for b.Loop() {
				rep, err := replay.Parse(data)
				if err != nil {
					b.Fatal(err)
				}
				if err := replay.Verify(rep, g); err != nil {
					b.Fatal(err)
				}
			}
			per := (cpuTime() - c0) / time.Duration(b.N)
			b.ReportMetric(float64(len(r.Turns)), "turns")
			b.ReportMetric(float64(per)/1e6, "check-cpu-ms")
			b.ReportMetric(float64(play)/1e6, "play-cpu-ms")
			b.ReportMetric(float64(per)/float64(play), "check/play")
		})
	}
}

// BenchmarkParse is the decoding alone, of one match's replay of each
// game as the runner writes it (houseReplays): Parse, whose decoder reads
// the runner's layout directly, against encoding/json's decoding of the
// same bytes (json).
//
//	go test -run '^$' -bench Parse ./replay/
func BenchmarkParse(b *testing.B) {
	replays, err := houseReplays()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"dots-and-boxes", "grid-royale"} {
		data := replays[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := replay.Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"-json", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := replay.DecodeJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
