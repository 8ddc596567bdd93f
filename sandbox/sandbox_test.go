package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// testRT is shared by the package's tests, with a cache directory of its own.
var testRT *Runtime

func TestMain(m *testing.M) {
	os.Exit(wasmtest.RunWithCacheDir(m, func(dir string) (func(), error) {
		var err error
		testRT, err = NewRuntime(context.Background(), Options{CacheDir: dir})
		return func() { testRT.Close(context.Background()) }, err
	}))
}

// probe compiles the Go test bot, linked with the given start-up mode.
func probe(tb testing.TB, mode string) *Module {
	tb.Helper()
	flags := ""
	if mode != "" {
		flags = "-X main.mode=" + mode
	}
	return compileFile(tb, wasmtest.GoBuild(tb, filepath.Join("testdata", "probe"), flags))
}

func compileFile(tb testing.TB, path string) *Module {
	tb.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return compileBytes(tb, wasm)
}

func compileBytes(tb testing.TB, wasm []byte) *Module {
	tb.Helper()
	m, err := testRT.Compile(context.Background(), wasm)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// obsWithFuel is an observation line as wasmbot makes it: the game's object
// with the fuel field added.
func obsWithFuel(obs string) func(left int64) []byte {
	return func(left int64) []byte {
		return game.AddField([]byte(obs), "fuel", []byte(fmt.Sprintf(`{"left":%d,"per_turn":0,"cap":0}`, left)))
	}
}

// supervised plays mod under the protocol's restart-and-retire rule, each
// instance with a fresh tank made by newTank.
func supervised(mod *Module, newTank func() *Tank, log *bot.Log) *bot.Supervised {
	return bot.NewSupervised(func(ctx context.Context) (bot.Process, error) {
		in, err := testRT.Start(ctx, mod, Config{Seed: 42, Tank: newTank(), Stderr: log})
		if err != nil {
			return nil, err
		}
		return askObs{in}, nil
	}, log)
}

type askObs struct{ in *Instance }

func (a askObs) Ask(ctx context.Context, req bot.Request) protocol.Reply {
	return a.in.Ask(ctx, obsWithFuel(string(req.Observation)))
}
func (a askObs) Stop() { a.in.Stop() }

func protocolTank() *Tank { return &Tank{PerTurn: 5_000_000, Cap: 20_000_000} }

func bigTank() *Tank { return &Tank{PerTurn: 2_000_000_000, Cap: 2_000_000_000} }

// hugeTank is a tank no bot spends before the backstop: past its first
// 20,000,000 units an answer pays the dear prices (docs/fuel.md), at which
// a Go bot's loop spent bigTank in 0.16 s of CPU under cost model 5.
func hugeTank() *Tank { return &Tank{PerTurn: 1 << 50, Cap: 1 << 50} }

// play sends the observations in turn and returns the replies.
func play(t *testing.T, b bot.Bot, observations ...string) []protocol.Reply {
	t.Helper()
	var out []protocol.Reply
	for i, o := range observations {
		out = append(out, b.Act(context.Background(), bot.Request{Turn: i, Observation: []byte(o)}))
	}
	b.Close()
	return out
}

// probeAnswer is what the probe answers.
type probeAnswer struct {
	Left     int64  `json:"left"`
	FuelLeft int64  `json:"fuel_left"`
	Now      int64  `json:"now"`
	Rand     uint64 `json:"rand"`
}

func decode(t *testing.T, r protocol.Reply) probeAnswer {
	t.Helper()
	var a probeAnswer
	if r.Status != protocol.OK {
		t.Fatalf("reply %+v, want ok", r)
	}
	if err := json.Unmarshal(r.Line, &a); err != nil {
		t.Fatalf("answer %q: %v", r.Line, err)
	}
	return a
}

func statuses(rs []protocol.Reply) string {
	var s []string
	for _, r := range rs {
		s = append(s, string(r.Status))
	}
	return strings.Join(s, " ")
}

func repeat(obs string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = obs
	}
	return out
}

func TestEcho(t *testing.T) {
	log := &bot.Log{}
	b := supervised(probe(t, ""), protocolTank, log)
	rs := play(t, b, repeat(`{"cmd":"echo"}`, 3)...)
	if got := statuses(rs); got != "ok ok ok" {
		t.Fatalf("statuses %s (%+v)", got, rs)
	}
	for i, r := range rs {
		decode(t, r)
		t.Logf("turn %d: fuel %d, answer %s", i, r.Fuel, r.Line)
	}
}

// The same module and seed spend the same fuel and see the same clock and
// random numbers on every run; another seed gives other random numbers.
func TestDeterministic(t *testing.T) {
	mod := probe(t, "")
	run := func(seed uint64) []protocol.Reply {
		b := bot.NewSupervised(func(ctx context.Context) (bot.Process, error) {
			in, err := testRT.Start(ctx, mod, Config{Seed: seed, Tank: protocolTank()})
			return askObs{in}, err
		}, nil)
		return play(t, b, `{"cmd":"echo"}`, `{"cmd":"spend","n":1000000}`, `{"cmd":"sleep","n":5000}`, `{"cmd":"echo"}`)
	}
	first, second, other := run(7), run(7), run(8)
	for i := range first {
		if first[i].Fuel != second[i].Fuel || !bytes.Equal(first[i].Line, second[i].Line) {
			t.Errorf("turn %d: %d fuel %s, then %d fuel %s", i, first[i].Fuel, first[i].Line, second[i].Fuel, second[i].Line)
		}
		if first[i].Fuel <= 0 {
			t.Errorf("turn %d: fuel %d", i, first[i].Fuel)
		}
		if decode(t, first[i]).Rand == decode(t, other[i]).Rand {
			t.Errorf("turn %d: seeds 7 and 8 gave the same random number", i)
		}
	}
}

// Refused modules fail Compile with a message that names the problem, and
// never panic the host.
func TestRefused(t *testing.T) {
	cases := []struct {
		name string
		wasm []byte
		want string
	}{
		{"not wasm", []byte("#!/bin/sh\necho hi\n"), ""},
		{"empty", nil, ""},
		{"forbidden import module", wasmtest.Echo{Import: "env.abort"}.Module(), "env"},
		{"unknown arena function", wasmtest.Echo{Import: "arena.fuel_right"}.Module(), "fuel_right"},
		{"unknown WASI function", wasmtest.Echo{Import: "wasi_snapshot_preview1.sock_dance"}.Module(), "sock_dance"},
		{"WASI function of the wrong type", wasmtest.Echo{Import: "wasi_snapshot_preview1.sched_yield"}.Module(), "() -> (i32)"},
		{"no _start", wasmtest.Echo{NoStart: true}.Module(), "_start"},
		{"memory over the cap", wasmtest.Echo{MinPages: 5000}.Module(), "5000"},
		{"a function that does not type-check", invalidBody(), "validate"},
		{"too large", append(wasmtest.Echo{}.Module(), make([]byte, 33<<20)...), "MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := testRT.Compile(context.Background(), c.wasm)
			if err == nil {
				t.Fatal("compiled")
			}
			if !IsRefused(err) {
				t.Errorf("error %q is not a refusal", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
			t.Logf("%v", err)
		})
	}
}

// A second Runtime on the same cache directory finds the metered module on
// disk instead of metering it again.
func TestDiskCache(t *testing.T) {
	dir := t.TempDir()
	wasm := wasmtest.Echo{}.Module()
	for i := 0; i < 2; i++ {
		rt, err := NewRuntime(context.Background(), Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		m, err := rt.Compile(context.Background(), wasm)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := rt.Compile(context.Background(), wasm)
		if again != m {
			t.Error("a second Compile in one runtime compiled again")
		}
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%s.cost%d.wasm", m.SHA256, meter.CostModel))); err != nil {
			t.Errorf("metered module not cached: %v", err)
		}
		rt.Close(context.Background())
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "wazero")); len(entries) == 0 {
		t.Error("no compiled code cached")
	}
}

// C bots (clang and wasi-libc; skipped when not installed): the trivial bot
// answers every turn for small fuel, the same once its stdio is warm, and the full negamax, which
// needs about 85M, runs dry in a 20M tank.
func TestCBots(t *testing.T) {
	trivial := compileFile(t, wasmtest.CBuild(t, filepath.Join("testdata", "c", "trivial.c")))
	rs := play(t, supervised(trivial, protocolTank, nil), repeat(`{"turn":1}`, 5)...)
	for i, r := range rs {
		if r.Status != protocol.OK || string(r.Line) != "{}" || (i >= 2 && r.Fuel != rs[2].Fuel) || r.Fuel <= 0 || r.Fuel > 20_000 {
			t.Errorf("turn %d: %+v", i, r)
		}
	}
	search := compileFile(t, wasmtest.CBuild(t, filepath.Join("testdata", "c", "search.c")))
	rs = play(t, supervised(search, protocolTank, nil), repeat(`{}`, 6)...)
	if got := statuses(rs); got != "fuel fuel fuel fuel retired retired" {
		t.Errorf("statuses %s", got)
	}
	rs = play(t, supervised(search, bigTank, nil), `{}`)
	if rs[0].Status != protocol.OK || string(rs[0].Line) != `{"value":0,"nodes":549946}` {
		t.Errorf("with a big tank: %+v", rs[0])
	}
}

// Whatever the bytes, compiling and running them gives a status or an
// error, never a panic or a hang of the host.
func FuzzModule(f *testing.F) {
	f.Add(wasmtest.Echo{}.Module())
	f.Add(wasmtest.Echo{FaultOnRead: 1, Fault: "unreachable"}.Module())
	f.Add(wasmtest.Echo{ExtraFuncs: 3, DataBytes: 100}.Module())
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		m, err := testRT.Compile(context.Background(), wasm)
		if err != nil {
			return
		}
		in, err := testRT.Start(context.Background(), m, Config{Tank: protocolTank(), Limits: Limits{CPU: 500 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		r := in.Ask(context.Background(), obsWithFuel(`{}`))
		if !slices.Contains(game.Statuses, r.Status) {
			t.Errorf("status %q", r.Status)
		}
		in.Stop()
	})
}

// invalidBody is the echo module with _start's loop declared to yield an
// i64, which a function of type () -> () cannot leave on the stack.
func invalidBody() []byte {
	wasm := wasmtest.Echo{}.Module()
	loop := bytes.Index(wasm, []byte{0x00, 0x03, 0x40}) // no locals; loop (empty type)
	out := append([]byte(nil), wasm...)
	out[loop+2] = 0x7e // loop (result i64)
	return out
}
