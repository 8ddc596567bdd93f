package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// The hostile corpus: each case is a real module doing one bad thing, played
// under the restart-and-retire rule; the statuses of the turns are pinned.
func TestHostile(t *testing.T) {
	echo := `{"cmd":"echo"}`
	cases := []struct {
		name   string
		module func(t *testing.T) *Module
		tank   func() *Tank
		obs    []string
		want   string
		detail string // in the first failure's Detail
	}{
		{"endless loop", goProbe(""), protocolTank,
			repeat(`{"cmd":"loop"}`, 6), "fuel fuel fuel fuel retired retired", "ran out of fuel"},
		{"endless loop calling the host", goProbe(""), protocolTank,
			[]string{`{"cmd":"loophost"}`, echo}, "fuel ok", "ran out of fuel"},
		{"unbounded memory growth", goProbe(""), bigTank,
			[]string{`{"cmd":"grow"}`, echo}, "crash ok", "exited with code 2"},
		{"endless recursion in Go", goProbe(""), protocolTank,
			[]string{`{"cmd":"recurse"}`, echo}, "fuel ok", "ran out of fuel"},
		{"endless recursion", echoModule(wasmtest.Echo{FaultOnRead: 1, Fault: "recurse"}), bigTank,
			[]string{echo, echo}, "crash crash", "unreachable"}, // the meter's stack bound (meter.MaxStackBytes)
		{"output without newline", goProbe(""), protocolTank,
			[]string{echo, `{"cmd":"nonewline"}`, echo}, "ok malformed ok", "not ended by a newline"},
		{"a 100 MB line", goProbe(""), bigTank,
			[]string{`{"cmd":"huge"}`, echo}, "malformed ok", "longer than 1048576 bytes"},
		{"exit at start", goProbe("exitstart"), protocolTank,
			repeat(echo, 5), "crash crash crash crash retired", "exited with code 3"},
		{"exit mid-match", goProbe(""), protocolTank,
			[]string{echo, `{"cmd":"exit"}`, echo}, "ok crash ok", "exited with code 4"},
		{"Go panic", goProbe(""), protocolTank,
			[]string{`{"cmd":"panic"}`, echo}, "crash ok", "exited with code 2"},
		{"trap", echoModule(wasmtest.Echo{FaultOnRead: 2, Fault: "unreachable"}), protocolTank,
			repeat(echo, 5), "ok crash ok crash ok", "trap: wasm error: unreachable"},
		{"closing stdout", goProbe(""), protocolTank,
			[]string{echo, `{"cmd":"closeout"}`, echo}, "ok crash ok", "closed stdout"},
		{"spinning in start-up", goProbe("spinstart"), protocolTank,
			repeat(echo, 5), "fuel fuel fuel fuel retired", "start-up allowance"},
		{"huge data segment", echoModule(wasmtest.Echo{DataBytes: 30 << 20}), protocolTank,
			repeat(echo, 3), "ok ok ok", ""},
		{"many functions", echoModule(wasmtest.Echo{ExtraFuncs: 90_000}), protocolTank,
			repeat(echo, 3), "ok ok ok", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mod := c.module(t)
			start := time.Now()
			rs := play(t, supervised(mod, c.tank, &bot.Log{}), c.obs...)
			if got := statuses(rs); got != c.want {
				t.Fatalf("statuses %q, want %q\n%+v", got, c.want, rs)
			}
			for _, r := range rs {
				if r.Status != protocol.OK && r.Status != protocol.Retired {
					if !strings.Contains(r.Detail, c.detail) {
						t.Errorf("detail %q, want it to contain %q", r.Detail, c.detail)
					}
					break
				}
			}
			t.Logf("%d turns in %v", len(rs), time.Since(start))
		})
	}
}

func goProbe(mode string) func(t *testing.T) *Module {
	return func(t *testing.T) *Module { return probe(t, mode) }
}

func echoModule(e wasmtest.Echo) func(t *testing.T) *Module {
	return func(t *testing.T) *Module { return compileBytes(t, e.Module()) }
}

// A bot that tries the filesystem gets errors, no environment and the
// documented arguments.
func TestNoFilesystem(t *testing.T) {
	rs := play(t, supervised(probe(t, ""), protocolTank, &bot.Log{}), `{"cmd":"fs"}`)
	if rs[0].Status != protocol.OK {
		t.Fatalf("reply %+v", rs[0])
	}
	var a struct {
		Open, Write, ReadDir string
		Env                  int
		Args                 []string
	}
	line := strings.NewReplacer(`"fs_open"`, `"open"`, `"fs_write"`, `"write"`, `"fs_readdir"`, `"readdir"`).Replace(string(rs[0].Line))
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatal(err)
	}
	if a.Open == "" || a.Write == "" || a.ReadDir == "" {
		t.Errorf("a filesystem call succeeded: %s", rs[0].Line)
	}
	if a.Env != 0 || len(a.Args) != 1 || a.Args[0] != "bot" {
		t.Errorf("env %d, args %q; want no environment and [bot]", a.Env, a.Args)
	}
}

// The backstop stops a bot with plenty of fuel once it has had its CPU
// time, however long the wall clock took to give it that: the guest's
// thread has had at least the limit when the timeout comes.
func TestCPUBackstop(t *testing.T) {
	mod := probe(t, "")
	const limit = 200 * time.Millisecond
	in, err := testRT.Start(context.Background(), mod, Config{Tank: hugeTank(), Limits: Limits{CPU: limit, Wall: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	r := in.Ask(context.Background(), obsWithFuel(`{"cmd":"loop"}`))
	if r.Status != protocol.Timeout || !strings.Contains(r.Detail, "CPU") {
		t.Errorf("reply %+v, want timeout", r)
	}
	if _, ok := threadClock(); ok {
		if cpu, ok := in.guestCPU(); !ok || cpu < limit {
			t.Errorf("timed out after %v of the guest's CPU time (known: %v), want at least %v", cpu, ok, limit)
		}
	}
	in.Stop()
}

// The wall-clock limit is the last resort, and stops a bot too.
func TestWallClockLastResort(t *testing.T) {
	mod := probe(t, "")
	in, err := testRT.Start(context.Background(), mod, Config{Tank: hugeTank(), Limits: Limits{CPU: time.Hour, Wall: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := in.Ask(context.Background(), obsWithFuel(`{"cmd":"loop"}`))
	if r.Status != protocol.Timeout {
		t.Errorf("reply %+v, want timeout", r)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("timed out after %v, before the wall-clock limit", d)
	}
	in.Stop()
}

// Sleeping moves the virtual clock, not the real one.
func TestVirtualSleep(t *testing.T) {
	start := time.Now()
	rs := play(t, supervised(probe(t, ""), protocolTank, &bot.Log{}),
		`{"cmd":"echo"}`, `{"cmd":"sleep","n":3600000000000}`)
	a, b := decode(t, rs[0]), decode(t, rs[1])
	if b.Now-a.Now < 3600e9 {
		t.Errorf("clock moved %d ns over a one-hour sleep", b.Now-a.Now)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a virtual sleep took %v", d)
	}
}

// stderr goes to the log, and only MaxLog of it is kept.
func TestStderrLog(t *testing.T) {
	log := &bot.Log{}
	rs := play(t, supervised(probe(t, ""), bigTank, log), `{"cmd":"log","n":10000}`)
	if rs[0].Status != protocol.OK {
		t.Fatalf("reply %+v", rs[0])
	}
	got := log.Bytes()
	if len(got) != protocol.MaxLog || !strings.HasPrefix(string(got), "log line 0\n") || log.Dropped() == 0 {
		t.Errorf("kept %d bytes (dropped %d), starting %q", len(got), log.Dropped(), got[:min(len(got), 20)])
	}
}
