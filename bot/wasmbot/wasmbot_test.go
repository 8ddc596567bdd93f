package wasmbot_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/wasmbot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox"
	"github.com/arenabots/arena/sandbox/meter"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

var testRT *sandbox.Runtime

func TestMain(m *testing.M) {
	os.Exit(wasmtest.RunWithCacheDir(m, func(dir string) (func(), error) {
		var err error
		testRT, err = sandbox.NewRuntime(context.Background(), sandbox.Options{CacheDir: dir})
		return func() { testRT.Close(context.Background()) }, err
	}))
}

func probePath(tb testing.TB, mode string) string {
	flags := ""
	if mode != "" {
		flags = "-X main.mode=" + mode
	}
	return wasmtest.GoBuild(tb, filepath.Join("..", "..", "sandbox", "testdata", "probe"), flags)
}

func dotsBotPath(tb testing.TB) string {
	return wasmtest.GoBuild(tb, filepath.Join("testdata", "dotsbot"), "")
}

// policyGame is a game that is only its fuel policy, for driving bots by hand.
type policyGame struct{ fuel game.FuelPolicy }

func (g policyGame) Info() game.Info { return game.Info{ID: "policy", Fuel: g.fuel} }
func (g policyGame) New(game.Config) (game.State, error) {
	return nil, errors.New("policyGame plays no matches")
}
func (g policyGame) HouseBots() []game.HouseBotInfo { return nil }

func open(t *testing.T, path string, g game.Game, seed uint64) *wasmbot.Bot {
	t.Helper()
	b, err := wasmbot.OpenIn(context.Background(), testRT, path, bot.Match{Game: g, Seed: seed, Seat: 1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type answer struct {
	Left     int64 `json:"left"`
	PerTurn  int64 `json:"per_turn"`
	Cap      int64 `json:"cap"`
	FuelLeft int64 `json:"fuel_left"`
}

// act plays the observations in turn and returns the replies.
func act(b bot.Bot, observations ...string) []bot.Reply {
	var rs []bot.Reply
	for i, o := range observations {
		rs = append(rs, b.Act(context.Background(), bot.Request{Turn: i, Observation: []byte(o)}))
	}
	b.Close()
	return rs
}

func idleThenSpend(n int64) []string {
	obs := make([]string, 10)
	for i := range obs {
		obs[i] = `{"cmd":"echo"}`
	}
	obs[9] = fmt.Sprintf(`{"cmd":"spend","n":%d}`, n)
	return obs
}

// A bot that idles nine answers has a full tank of 20M on the tenth, and may
// spend 19.8M of it; one that needs 20.1M runs dry.
func TestFuelExactness(t *testing.T) {
	path := probePath(t, "")
	rs := act(open(t, path, policyGame{game.DefaultFuel}, 1), idleThenSpend(19_800_000)...)
	for i, r := range rs {
		if r.Status != game.OK {
			t.Fatalf("turn %d: %+v", i, r)
		}
	}
	var prev answer
	for i, r := range rs {
		var a answer
		if err := json.Unmarshal(r.Line, &a); err != nil {
			t.Fatal(err)
		}
		if a.PerTurn != 5_000_000 || a.Cap != 20_000_000 {
			t.Errorf("turn %d: fuel field per_turn %d cap %d", i, a.PerTurn, a.Cap)
		}
		// fuel_left, read by the bot while answering, is what the
		// observation said minus what the bot spent so far. (Encoding and
		// writing the answer after it costs the Go bot several times
		// what it did under cost model 3, whose loads and stores cost 1:
		// under model 4 they cost 9 in its memory of a few MiB.)
		if spentBefore := a.Left - a.FuelLeft; spentBefore <= 0 || spentBefore > r.Fuel || r.Fuel-spentBefore > 1_000_000 {
			t.Errorf("turn %d: left %d, fuel_left %d, answer spent %d", i, a.Left, a.FuelLeft, r.Fuel)
		}
		// The tank: what was left after the previous answer (less the
		// little the bot spent after its newline), plus 5M, cut to 20M.
		if i > 0 {
			want := min(prev.Left-rs[i-1].Fuel+5_000_000, 20_000_000)
			if a.Left > want || want-a.Left > 1_000_000 {
				t.Errorf("turn %d: left %d, want about %d", i, a.Left, want)
			}
		}
		prev = a
	}
	if prev.Left != 20_000_000 || rs[9].Fuel < 19_800_000 {
		t.Errorf("tenth answer: left %d, spent %d; want a full tank and 19.8M spent", prev.Left, rs[9].Fuel)
	}

	rs = act(open(t, path, policyGame{game.DefaultFuel}, 1), idleThenSpend(20_100_000)...)
	// Stopped at the check that found less than its code and the
	// reserve at the price of the Go bot's memory (a few MiB): all but
	// that spent, never more than the tank (19,999,005 under cost model 3,
	// whose reserve was 1,000).
	if got, r := rs[9], goReserve; got.Status != game.Fuel || got.Fuel > 20_000_000 || got.Fuel < 20_000_000-r-1_000 {
		t.Errorf("spending 20.1M: %+v, want fuel after spending all but at most %d of the 20M", got, r+1_000)
	}
}

// The same bot and seed spend the same fuel on every run.
func TestSameFuelEveryRun(t *testing.T) {
	path := probePath(t, "")
	obs := []string{`{"cmd":"echo"}`, `{"cmd":"spend","n":3000000}`, `{"cmd":"echo"}`}
	first := act(open(t, path, policyGame{game.DefaultFuel}, 9), obs...)
	for run := 0; run < 2; run++ {
		again := act(open(t, path, policyGame{game.DefaultFuel}, 9), obs...)
		for i := range first {
			if first[i].Fuel != again[i].Fuel || !bytes.Equal(first[i].Line, again[i].Line) {
				t.Errorf("turn %d: %d then %d fuel", i, first[i].Fuel, again[i].Fuel)
			}
		}
	}
}

// A per-game tank (a chess clock) is filled once and survives restarts.
func TestPerGameTank(t *testing.T) {
	const tank = 30_000_000
	b := open(t, probePath(t, ""), policyGame{game.FuelPolicy{PerGame: tank}}, 1)
	rs := act(b, `{"cmd":"spend","n":12000000}`, `{"cmd":"spend","n":12000000}`, `{"cmd":"spend","n":12000000}`,
		`{"cmd":"echo"}`, `{"cmd":"echo"}`)
	var a answer
	if err := json.Unmarshal(rs[0].Line, &a); err != nil {
		t.Fatalf("%+v: %v", rs[0], err)
	}
	if a.Left != tank || a.PerTurn != 0 || a.Cap != tank {
		t.Errorf("first observation's fuel: %+v, want left = cap = %d, per_turn 0", a, tank)
	}
	// Two answers fit in the tank, the third runs it dry, and the restarted
	// instance finds it empty.
	got := []game.Status{rs[0].Status, rs[1].Status, rs[2].Status, rs[3].Status, rs[4].Status}
	want := []game.Status{game.OK, game.OK, game.Fuel, game.Fuel, game.Fuel}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

// A chess clock with a per-answer bound: an answer that would spend more is
// `fuel` having spent only the bound, and the rest of the clock stays for the
// next instance, whose observation and fuel_left show the whole tank.
func TestPerAnswerBound(t *testing.T) {
	const tank, bound = 30_000_000, 10_000_000
	b := open(t, probePath(t, ""), policyGame{game.FuelPolicy{PerGame: tank, PerAnswer: bound}}, 1)
	rs := act(b, `{"cmd":"spend","n":12000000}`, `{"cmd":"spend","n":5000000}`, `{"cmd":"echo"}`)
	got := []game.Status{rs[0].Status, rs[1].Status, rs[2].Status}
	if want := []game.Status{game.Fuel, game.OK, game.OK}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	if rs[0].Fuel > bound || rs[0].Fuel < bound-goReserve-2_000 {
		t.Errorf("the dry answer spent %d, want the bound %d (less at most the check's reserve)", rs[0].Fuel, bound)
	}
	var a answer
	if err := json.Unmarshal(rs[1].Line, &a); err != nil {
		t.Fatalf("%+v: %v", rs[1], err)
	}
	if a.Left != tank-rs[0].Fuel || a.Cap != tank {
		t.Errorf("second observation's fuel %+v, want left %d, cap %d", a, tank-rs[0].Fuel, tank)
	}
	// fuel_left, read after spending 5,000,000, counts the held-back part.
	if spent := a.Left - a.FuelLeft; spent < 5_000_000 || spent > 5_500_000 {
		t.Errorf("left %d, fuel_left %d after spending 5,000,000", a.Left, a.FuelLeft)
	}
}

func TestIdentity(t *testing.T) {
	path := probePath(t, "")
	b := open(t, path, nil, 1)
	defer b.Close()
	wasm, _ := os.ReadFile(path)
	sum := sha256.Sum256(wasm)
	if id := b.Identity(); id.SHA256 != hex.EncodeToString(sum[:]) || id.Spec != "wasm:"+path {
		t.Errorf("identity %+v", id)
	}
}

// A module the sandbox refuses fails Open with the reason.
func TestOpenRefuses(t *testing.T) {
	notWasm := filepath.Join(t.TempDir(), "bot.wasm")
	os.WriteFile(notWasm, []byte("MZ\x90\x00 not a wasm file"), 0o644)
	forbidden := wasmtest.Write(t, "forbidden", wasmtest.Echo{Import: "env.system"}.Module())
	for path, want := range map[string]string{
		notWasm:                     "magic",
		forbidden:                   `"env"."system"`,
		filepath.Join("no", "such"): "no such file",
	} {
		_, err := wasmbot.OpenIn(context.Background(), testRT, path, bot.Match{Game: dotsandboxes.Game{}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s): %v, want an error mentioning %q", path, err, want)
		}
	}
}

// playDots plays a whole Dots and Boxes match between two wasm bots.
func playDots(tb testing.TB, seed uint64, paths ...string) *replay.Replay {
	tb.Helper()
	g := dotsandboxes.Game{}
	var bots []bot.Bot
	var ids []bot.Identity
	for seat, p := range paths {
		b, err := wasmbot.OpenIn(context.Background(), testRT, p, bot.Match{Game: g, Seed: seed, Seat: seat})
		if err != nil {
			tb.Fatal(err)
		}
		bots = append(bots, b)
		ids = append(ids, b.Identity())
	}
	r, err := match.Run(context.Background(), g, game.Config{Seed: seed, Players: 2}, bots, ids)
	for _, b := range bots {
		b.Close()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// Two runs of a match between wasm bots write byte-identical replays.
func TestMatchReplaysIdentical(t *testing.T) {
	p := dotsBotPath(t)
	first, err := playDots(t, 5, p, p).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	second, _ := playDots(t, 5, p, p).Marshal()
	if !bytes.Equal(first, second) {
		t.Error("two runs of the same match wrote different replays")
	}
	r, _ := replay.Parse(first)
	if r.Result.Turns != 60 || r.Result.Statuses[0][game.OK]+r.Result.Statuses[0][game.Ignored] != 60 {
		t.Errorf("result %+v", r.Result)
	}
}

// A bot that never stops computing runs dry, is restarted three times, is
// retired, and the 60-turn match still ends within seconds. What is checked
// is deterministic: the statuses and the fuel of every turn of seat 0 (each
// dry turn spent its tank of 5,000,000 but for what was left when a check
// found less than its code and the reserve, pinned below; a retired seat
// never runs).
// The cost is bounded on the process's CPU time rather than the wall clock,
// which a loaded machine stretches by tens of times.
func TestNeverStopsIsRetired(t *testing.T) {
	loop, dots := probePath(t, "loopturn"), dotsBotPath(t)
	for _, p := range []string{loop, dots} { // compile outside the measured match
		wasm, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := testRT.Compile(context.Background(), wasm); err != nil {
			t.Fatal(err)
		}
	}
	cpu0, start := processCPU(t), time.Now()
	r := playDots(t, 3, loop, dots)
	cpu, elapsed := processCPU(t)-cpu0, time.Since(start)
	if len(r.Turns) != 60 || r.Result.Statuses[0][game.Retired] != 56 || r.Result.Statuses[0][game.Fuel] != 4 {
		t.Errorf("%d turns, statuses %v", len(r.Turns), r.Result.Statuses[0])
	}
	var got []string
	for i, turn := range r.Turns {
		for _, s := range turn.Seats {
			if s.Seat != 0 {
				continue
			}
			if i < 6 {
				got = append(got, string(s.Status))
			}
			want := int64(0)
			if s.Status == game.Fuel {
				want = dryTurns[turn.Turn]
			}
			if s.Fuel != want || !s.Failed {
				t.Errorf("turn %d: seat 0 %s, failed %v, spent %d fuel, want %d", turn.Turn, s.Status, s.Failed, s.Fuel, want)
			}
		}
	}
	if strings.Join(got, " ") != "fuel fuel fuel fuel retired retired" {
		t.Errorf("seat 0 statuses %v", got)
	}
	// About 25 million units of guest work and four Go start-ups: a fraction
	// of a second of CPU on any machine this runs on.
	if cpu > 10*time.Second && !raceEnabled {
		t.Errorf("the match took %v of CPU time", cpu)
	}
	t.Logf("match in %v of CPU time, %v of wall-clock time", cpu, elapsed)
}

// dryTurns is what each dry turn of the bot that never stops spends, out of
// its 5,000,000, under cost model 5: where its loop is when the tank no
// longer carries the next check's code and reserve (9,000 for the Go
// bot's memory of about 3 MiB; under cost model 3, with a reserve of 1,000,
// it was 4,999,001, 4,999,002, 4,998,999 and 4,998,999; under cost model 4,
// 4,991,000, 4,991,002, 4,991,003 and 4,991,002).
var dryTurns = map[int]int64{1: 4_990_997, 2: 4_990_996, 3: 4_990_996, 4: 4_991_001}

// goReserve is the reserve of a check (docs/fuel.md) for the Go test bots,
// whose memory is 2 to 32 MiB.
var goReserve = meter.Reserve * (1 + meter.AccessPrice(512, false))

// processCPU is the user+system time this process has used so far.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Hostile bots through the match runner: every match is played to its
// normal end, and seat 0's statuses say what the bot did.
func TestHostileMatches(t *testing.T) {
	dots := dotsBotPath(t)
	cases := []struct {
		name string
		path string
		want string // seat 0's first six statuses
	}{
		{"exit at start", probePath(t, "exitstart"), "crash crash crash crash retired retired"},
		{"spinning in start-up", probePath(t, "spinstart"), "fuel fuel fuel fuel retired retired"},
		{"trap on the second read", wasmtest.Write(t, "trap", wasmtest.Echo{FaultOnRead: 2, Fault: "unreachable"}.Module()),
			"malformed crash malformed crash malformed crash"},
		{"endless recursion", wasmtest.Write(t, "recurse", wasmtest.Echo{FaultOnRead: 1, Fault: "recurse"}.Module()),
			"crash crash crash crash retired retired"},
		{"wrong answers", wasmtest.Write(t, "echo", wasmtest.Echo{}.Module()),
			"malformed ignored malformed ignored malformed ignored"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := playDots(t, 2, c.path, dots)
			var got []string
			for _, turn := range r.Turns[:6] {
				for _, s := range turn.Seats {
					if s.Seat == 0 {
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
		})
	}
}
