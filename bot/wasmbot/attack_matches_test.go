package wasmbot_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/game"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// The red team's modules (sandbox/attack_corpus_test.go) as seat 0 of whole Dots
// and Boxes matches against a well-behaved wasm bot: the match is played to
// its end in bounded time, no turn of the hostile seat is a timeout, and a
// second run writes the same replay byte for byte.
func TestAttackMatches(t *testing.T) {
	const big = 0x20000 // above the echo module's buffers
	startFn := func(e Echo) []byte { return WithSections(e.Module(), Sec(8, ULEB(TurnFunc))) }
	iov64M := Cat(I32(0x11000), I32(big), Store(0), I32(0x11004), I32(64<<20), Store(0))
	cases := []struct {
		name string
		wasm []byte
		want string // seat 0's first six statuses
		// hostHeavy: most of its fuel buys work in the host's Go code,
		// which the race detector slows so that the backstop fires.
		hostHeavy bool
	}{
		{"a start function that loops forever", startFn(Echo{Turn: Forever()}),
			"fuel fuel fuel fuel retired retired", false},
		{"64 MiB to stdout without a newline, forever, in the start function",
			startFn(Echo{MinPages: 1100, Turn: Cat(iov64M, Forever(I32(1), I32(0x11000), I32(1), I32(0x11008), Call(FdWrite), Drop))}),
			"fuel fuel fuel fuel retired retired", true},
		{"random_get of 100 MiB in the start function and every turn",
			startFn(Echo{MinPages: 3968, Turn: Cat(I32(big), I32(100<<20), Call(RandomGet), Drop)}),
			"fuel fuel fuel fuel retired retired", true},
		{"a name section of 15M local names", WithSections(Echo{}.Module(),
			Sec(0, Cat(Name("name"), []byte{2}, ULEB(3+15<<21), ULEB(1), ULEB(7), ULEB(15<<20), Repeat([]byte{0, 0}, 15<<20)))),
			"malformed ignored malformed ignored malformed ignored", false},
	}
	dots := dotsBotPath(t)
	if wasm, err := os.ReadFile(dots); err != nil {
		t.Fatal(err)
	} else if _, err := testRT.Compile(context.Background(), wasm); err != nil { // outside the timed matches
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.hostHeavy && raceEnabled {
				t.Skip("host work under the race detector reaches the wall-clock backstop")
			}
			path := Write(t, "redteam", c.wasm)
			wasm, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := testRT.Compile(context.Background(), wasm); err != nil { // outside the timed match
				t.Fatal(err)
			}
			var first []byte
			for run := 0; run < 2; run++ {
				start := time.Now()
				r := playDots(t, 7, path, dots)
				took := time.Since(start)
				var got []string
				for i, turn := range r.Turns {
					for _, s := range turn.Seats {
						if s.Seat != 0 {
							continue
						}
						if s.Status == game.Timeout {
							t.Errorf("turn %d: timeout", i)
						}
						if i < 6 {
							got = append(got, string(s.Status))
						}
					}
				}
				if strings.Join(got, " ") != c.want {
					t.Errorf("seat 0: %v, want %s", got, c.want)
				}
				if r.Result.Turns != 60 {
					t.Errorf("%d turns", r.Result.Turns)
				}
				if took > 20*time.Second && !raceEnabled {
					t.Errorf("the match took %v", took)
				}
				t.Logf("run %d: %v", run, took)
				b, err := r.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				if run == 0 {
					first = b
				} else if !bytes.Equal(first, b) {
					t.Error("the second run wrote a different replay")
				}
			}
		})
	}
}
