package match_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/execbot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// The test binary doubles as the exec: bots of these tests: run with the
// arguments "testbot MODE" it plays Dots and Boxes in that mode.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "testbot" {
		testBot(os.Args[2])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// leakMarker is an argument of every child the bots start, so a test can
// find any that outlived its match.
const leakMarker = "297.4242"

func testBot(mode string) {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for turn := 0; ; turn++ {
		if mode == "no-read" {
			time.Sleep(time.Hour)
		}
		line, err := in.ReadBytes('\n')
		if err != nil {
			return // stdin closed: the match is over
		}
		switch mode {
		case "garbage":
			fmt.Fprintln(out, "I resign! {not json")
		case "hang":
			time.Sleep(time.Hour)
		case "crash":
			os.Exit(3)
		case "crash-late":
			if turn == 7 {
				panic("bot bug")
			}
			fmt.Fprintln(out, firstUndrawn(line))
		case "flood":
			out.Write([]byte(strings.Repeat("x", 3<<20)))
			out.Flush()
			time.Sleep(time.Hour)
		case "stderr-flood":
			os.Stderr.Write([]byte(strings.Repeat("log line\n", 20000)))
			fmt.Fprintln(out, firstUndrawn(line))
		case "child-hang":
			exec.Command("sleep", leakMarker).Start()
			time.Sleep(time.Hour)
		case "close-stdout":
			os.Stdout.Close()
			time.Sleep(time.Hour)
		default: // "first"
			fmt.Fprintln(out, firstUndrawn(line))
		}
		out.Flush()
	}
}

// firstUndrawn reads an observation and names its first undrawn edge.
func firstUndrawn(obs []byte) string {
	var o struct{ H, V [][]bool }
	if err := json.Unmarshal(obs, &o); err != nil {
		return "bad observation"
	}
	for r, row := range o.H {
		for c, drawn := range row {
			if !drawn {
				return fmt.Sprintf(`{"orient":"H","r":%d,"c":%d}`, r, c)
			}
		}
	}
	for r, row := range o.V {
		for c, drawn := range row {
			if !drawn {
				return fmt.Sprintf(`{"orient":"V","r":%d,"c":%d}`, r, c)
			}
		}
	}
	return "{}"
}

// seat is one side of a test match: "builtin:NAME" or a test bot mode.
func openSeat(t *testing.T, seat int, name string) (bot.Bot, bot.Identity) {
	t.Helper()
	if strings.HasPrefix(name, "builtin:") {
		b, err := bot.OpenBuiltin(strings.TrimPrefix(name, "builtin:"), bot.Match{Game: dotsandboxes.Game{}, Seed: 5, Seat: seat})
		if err != nil {
			t.Fatal(err)
		}
		return b, bot.Identity{Spec: name}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Bots that hang get a short limit to keep the tests quick; every other
	// bot gets the real one, so a loaded machine cannot turn its answers
	// into timeouts.
	timeout := execbot.DefaultTimeout
	switch name {
	case "hang", "no-read", "child-hang":
		timeout = 300 * time.Millisecond
	}
	b, err := execbot.OpenWithTimeout(exe+" testbot "+name, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return b, b.Identity()
}

type played struct {
	r    *replay.Replay
	logs [][]byte
}

func play(t *testing.T, seats ...string) played {
	t.Helper()
	bots := make([]bot.Bot, len(seats))
	ids := make([]bot.Identity, len(seats))
	for i, s := range seats {
		bots[i], ids[i] = openSeat(t, i, s)
	}
	start := time.Now()
	r, err := match.Run(context.Background(), dotsandboxes.Game{}, game.Config{Seed: 5, Players: 2}, bots, ids)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the match took %v", d)
	}
	var logs [][]byte
	for _, b := range bots {
		logs = append(logs, b.Close())
	}
	if r.Result.Turns != dotsandboxes.NumEdges {
		t.Fatalf("%d turns", r.Result.Turns)
	}
	if err := replay.Verify(r, dotsandboxes.Game{}); err != nil {
		t.Fatalf("the replay does not verify: %v", err)
	}
	return played{r, logs}
}

func hashes(r *replay.Replay) []string {
	var h []string
	for _, t := range r.Turns {
		h = append(h, t.Hash)
	}
	return h
}

func TestGarbagePlaysTheDefaultGame(t *testing.T) {
	garbage := play(t, "garbage", "builtin:greedy")
	first := play(t, "first", "builtin:greedy")
	if strings.Join(hashes(garbage.r), ",") != strings.Join(hashes(first.r), ",") {
		t.Fatal("a garbage bot played a different game from a bot naming the first undrawn edge")
	}
	st := garbage.r.Result.Statuses[0]
	if st[game.OK] != 0 || st[game.Malformed] == 0 || st[game.Malformed]+st[game.Ignored] != 60 {
		t.Fatalf("garbage statuses %v", st)
	}
	if first.r.Result.Statuses[0][game.OK] == 0 || first.r.Result.Statuses[0][game.Malformed] != 0 {
		t.Fatalf("first-edge bot statuses %v", first.r.Result.Statuses[0])
	}
}

func TestFailingBotsAreRestartedThenRetired(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		status game.Status
	}{
		{"hang", game.Timeout},
		{"crash", game.Crash},
		{"flood", game.Malformed},
		{"no-read", game.Timeout},
		{"close-stdout", game.Crash},
		{"child-hang", game.Timeout},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			p := play(t, tc.mode, "builtin:greedy")
			// Both seats are asked every turn: the first four answers fail
			// (one start and three restarts), the rest are retired.
			for i, turn := range p.r.Turns {
				want := tc.status
				if i >= bot.MaxRestarts+1 {
					want = game.Retired
				}
				if got := turn.Seats[0].Status; got != want {
					t.Fatalf("turn %d: status %s, want %s (%s)", turn.Turn, got, want, turn.Seats[0].Reason)
				}
			}
			if p.r.Result.Statuses[1][game.Retired] != 0 {
				t.Fatal("the other seat was affected")
			}
		})
	}
	assertNoLeakedProcesses(t)
}

func TestBotRecoversAfterACrash(t *testing.T) {
	p := play(t, "crash-late", "first")
	st := p.r.Result.Statuses[0]
	// It crashes at its 8th answer each life: about one crash per 8 turns, so
	// it is retired after its fourth crash, around turn 32.
	if st[game.Crash] != bot.MaxRestarts+1 || st[game.OK] == 0 || st[game.Retired] == 0 {
		t.Fatalf("statuses %v", st)
	}
	if !strings.Contains(string(p.logs[0]), "bot bug") {
		t.Fatalf("the panic is not in the kept log: %q", p.logs[0])
	}
}

func TestStderrIsCapped(t *testing.T) {
	p := play(t, "stderr-flood", "first")
	if len(p.logs[0]) != bot.MaxLog {
		t.Fatalf("kept %d bytes of log, want the first %d", len(p.logs[0]), bot.MaxLog)
	}
	if p.r.Result.Statuses[0][game.Timeout] != 0 {
		t.Fatal("a bot flooding stderr was slowed down to a timeout")
	}
}

func TestSameMatchSameReplay(t *testing.T) {
	a, err := play(t, "first", "builtin:chains").r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := play(t, "first", "builtin:chains").r.Marshal()
	if string(a) != string(b) {
		t.Fatal("two runs of the same match wrote different replays")
	}
}

func TestNoGoroutinesLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 3; i++ {
		play(t, "hang", "crash")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
	assertNoLeakedProcesses(t)
}

// assertNoLeakedProcesses looks through /proc for any test bot or child of one.
func assertNoLeakedProcesses(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := leftovers()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left running: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func leftovers() []string {
	entries, _ := os.ReadDir("/proc")
	var left []string
	for _, e := range entries {
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		s := strings.ReplaceAll(string(cmd), "\x00", " ")
		if strings.Contains(s, " testbot ") || strings.Contains(s, leakMarker) {
			if stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); strings.Contains(string(stat), ") Z ") {
				continue // a zombie already reaped by nobody but dead
			}
			left = append(left, e.Name()+": "+s)
		}
	}
	return left
}
