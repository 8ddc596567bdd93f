package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/protocol"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// The hostile corpus of cost model 2: small modules assembled by hand, each
// making the host do as much work as it can for its fuel, one way each
// (docs/sandbox.md). Each plays six turns under the restart-and-retire rule
// with the protocol's tank and must end every turn in a status that is not
// timeout, with the pinned statuses and fuel figures, within a bound of
// wall-clock time and host memory, and play the same way a second time.

// Scratch addresses of the echo module, above its stdin buffer.
const (
	scratch = 0x11000
	bigAt   = 0x20000 // the start of the large area of modules with MinPages
)

// wasiCall calls a WASI import with i32 arguments and drops its errno.
func wasiCall(f uint32, args ...int32) []byte {
	var b []byte
	for _, a := range args {
		b = append(b, I32(a)...)
	}
	return Cat(b, Call(f), Drop)
}

type corpusCase struct {
	name   string
	module Echo
	want   string // statuses of the six turns
	fuel   []int64
	detail string // in the first failure's detail
}

// The fuel figures of the dry turns are those of cost model 4; they moved
// from model 3's because a bulk operation in 4 MiB pays the memory
// surcharge (8 a turn), and the reserve of the check that stops the turn
// is 9,000 there instead of 1,000 (model 3: 4,981,201 for both 1 MiB
// operations, 4,996,321 for the grow and touch, whose memory grows past
// 2 MiB on the way).
var corpus = []corpusCase{
	{"memory.fill of 1 MiB, forever",
		Echo{MinPages: 64, Turn: Forever(I32(bigAt), I32(7), I32(1<<20), MemoryFill)},
		"fuel fuel fuel fuel retired retired", []int64{4_981_513, 4_981_513, 4_981_513, 4_981_513, 0, 0}, "ran out of fuel"},
	{"memory.copy of 1 MiB, forever",
		Echo{MinPages: 64, Turn: Forever(I32(bigAt+1<<20), I32(bigAt), I32(1<<20), MemoryCopy)},
		"fuel fuel fuel fuel retired retired", []int64{4_981_817, 4_981_817, 4_981_817, 4_981_817, 0, 0}, "ran out of fuel"},
	{"memory.fill with a length of 4 GiB, forever",
		Echo{Turn: Forever(I32(0), I32(0), I32(-1), MemoryFill)},
		"fuel fuel fuel fuel retired retired", []int64{9, 9, 9, 9, 0, 0}, "ran out of fuel"},
	{"memory.grow and touch every page",
		Echo{Turn: Forever(I32(1), MemoryGrow, I32(16), []byte{0x74}, I32(1), Store(0))}, // (grow(1) << 16) = 1
		"fuel fuel fuel fuel retired retired", []int64{4_979_409, 4_979_409, 4_979_409, 4_979_409, 0, 0}, "ran out of fuel"},
	{"memory.grow by 65535 pages, forever",
		Echo{Turn: Forever(I32(65535), MemoryGrow, Drop)},
		"fuel fuel fuel fuel retired retired", []int64{7, 7, 7, 7, 0, 0}, "ran out of fuel"},
	// (The tables count in the memory's size since cost model 5: the
	// answer's one memory access pays the surcharge of 8 MiB, 8 units.)
	{"table.grow with no maximum, forever",
		Echo{Table: true, Turn: Forever(RefNull, I32(100_000), TableGrow, Drop)},
		"fuel fuel fuel fuel retired retired", []int64{4_803_136, 4_803_136, 4_803_136, 4_803_136, 0, 0}, "ran out of fuel"},
	{"table.fill of a million elements, forever",
		Echo{Table: true, TableMin: 1 << 20, Turn: Forever(I32(0), RefNull, I32(1<<20), TableFill)},
		"fuel fuel fuel fuel retired retired", []int64{4_194_581, 4_194_581, 4_194_581, 4_194_581, 0, 0}, "ran out of fuel"},
	{"table.copy of a million elements, forever",
		Echo{Table: true, TableMin: 1 << 20, Turn: Forever(I32(0), I32(0), I32(1<<20), TableCopy)},
		"fuel fuel fuel fuel retired retired", []int64{4_194_581, 4_194_581, 4_194_581, 4_194_581, 0, 0}, "ran out of fuel"},
	{"64 KiB to stderr, forever",
		Echo{Turn: Forever(wasiCall(FdWrite, 2, 0, 1, scratch))},
		"fuel fuel fuel fuel retired retired", []int64{4_999_014, 4_999_014, 4_999_014, 4_999_014, 0, 0}, "ran out of fuel"},
	{"fd_write with a billion iovecs, forever",
		Echo{Turn: Forever(wasiCall(FdWrite, 2, 0, 1<<30, scratch))},
		"fuel fuel fuel fuel retired retired", []int64{4_984_540, 4_984_540, 4_984_540, 4_984_540, 0, 0}, "ran out of fuel"}, // each call is cut to 1,024 iovecs
	{"random_get of 64 KiB, forever",
		Echo{Turn: Forever(wasiCall(RandomGet, 1024, 1<<16))},
		"fuel fuel fuel fuel retired retired", []int64{4_993_765, 4_993_765, 4_993_765, 4_993_765, 0, 0}, "ran out of fuel"},
	{"random_get out of bounds, forever",
		Echo{Turn: Forever(wasiCall(RandomGet, -16, -1))},
		"fuel fuel fuel fuel retired retired", []int64{4_987_644, 4_987_644, 4_987_644, 4_987_644, 0, 0}, "ran out of fuel"},
	{"poll_oneoff with a million subscriptions, forever",
		Echo{Turn: Forever(wasiCall(PollOneoff, 0, scratch, 1<<20, scratch+64))},
		"fuel fuel fuel fuel retired retired", []int64{4_899_791, 4_899_791, 4_899_791, 4_899_791, 0, 0}, "ran out of fuel"},
	{"clock_time_get, forever",
		Echo{Turn: Forever(I32(1), I64(0), I32(scratch), Call(ClockTimeGet), Drop)},
		"fuel fuel fuel fuel retired retired", []int64{4_999_226, 4_999_226, 4_999_226, 4_999_226, 0, 0}, "ran out of fuel"},
	{"fd_read of a bad descriptor, forever",
		Echo{Turn: Forever(wasiCall(FdRead, 99, 0, 1, scratch))},
		"fuel fuel fuel fuel retired retired", []int64{4_999_014, 4_999_014, 4_999_014, 4_999_014, 0, 0}, "ran out of fuel"},
	{"straight-line code of 100,000 instructions, forever",
		Echo{Turn: Forever(Repeat(Cat(I32(0), Drop), 50_000))},
		"fuel fuel fuel fuel retired retired", []int64{4_900_055, 4_900_055, 4_900_055, 4_900_055, 0, 0}, "ran out of fuel"},
	{"recursion with frames of 49,000 locals",
		Echo{TurnLocals: 49_000, Turn: Call(TurnFunc)},
		"crash crash crash crash retired retired", nil, "unreachable"},
	{"recursion, forever",
		Echo{Turn: Call(TurnFunc)},
		"crash crash crash crash retired retired", nil, "unreachable"},
	{"bad pointers to every WASI function it imports",
		Echo{Turn: Cat(wasiCall(FdWrite, 1, -8, 4, -4), wasiCall(FdRead, 0, -8, 4, -4), wasiCall(RandomGet, -1, 100),
			wasiCall(PollOneoff, -48, -32, 2, -4), I32(0), I64(0), I32(-2), Call(ClockTimeGet), Drop)},
		"ok ok ok ok ok ok", nil, ""},
}

// rssBytes is the process's resident memory now.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// peakRSS samples the resident memory while f runs and returns the most it
// grew by.
func peakRSS(f func()) int64 {
	base := rssBytes()
	stop := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var most int64
		for {
			most = max(most, rssBytes()-base)
			select {
			case <-stop:
				peak <- most
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	return <-peak
}

// The bounds of every corpus match: six turns.
const (
	corpusWall   = 10 * time.Second
	corpusMemory = 400 << 20 // the 256 MiB cap and what the host needs beside it
)

// hostMemoryLimit widens a bound on the host's memory in race builds, where
// the detector shadows the Go heap (wazero's decoded module and its stacks
// live there): a 30 MB module grew the host by 47 MiB plain and by 233-478
// MiB under -race.
func hostMemoryLimit(bound int64) int64 {
	if raceScale > 1 {
		return 3 * bound
	}
	return bound
}

func TestHostileCorpus(t *testing.T) {
	echo := `{"cmd":"echo"}`
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			mod := compileBytes(t, c.module.Module())
			var first []protocol.Reply
			for run := 0; run < 2; run++ {
				var rs []protocol.Reply
				start := time.Now()
				grew := peakRSS(func() { rs = play(t, supervised(mod, protocolTank, &bot.Log{}), repeat(echo, 6)...) })
				wall := time.Since(start)
				if got := statuses(rs); got != c.want {
					t.Fatalf("statuses %q, want %q\n%+v", got, c.want, rs)
				}
				for i, r := range rs {
					if r.Status == protocol.Timeout {
						t.Errorf("turn %d: timeout", i)
					}
					if c.fuel != nil && r.Fuel != c.fuel[i] {
						t.Errorf("turn %d: fuel %d, want %d", i, r.Fuel, c.fuel[i])
					}
					if r.Fuel > 20_000_000 {
						t.Errorf("turn %d: fuel %d, more than a full tank", i, r.Fuel)
					}
				}
				if c.detail != "" && !strings.Contains(rs[0].Detail, c.detail) {
					t.Errorf("detail %q, want it to contain %q", rs[0].Detail, c.detail)
				}
				if wall > corpusWall*raceScale {
					t.Errorf("the match took %v", wall)
				}
				if grew > hostMemoryLimit(corpusMemory) {
					t.Errorf("the host's memory grew by %d MiB", grew>>20)
				}
				t.Logf("run %d: %v, host memory +%d MiB", run, wall, grew>>20)
				if run == 0 {
					first = rs
				} else if !sameReplies(first, rs) {
					t.Errorf("a second run differs:\n%+v\n%+v", first, rs)
				}
			}
		})
	}
}

func sameReplies(a, b []protocol.Reply) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Status != b[i].Status || a[i].Fuel != b[i].Fuel || a[i].Detail != b[i].Detail || !bytes.Equal(a[i].Line, b[i].Line) {
			return false
		}
	}
	return true
}

var _ = fmt.Sprint
