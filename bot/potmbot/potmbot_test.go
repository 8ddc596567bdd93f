package potmbot

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/linesandboxes"
)

// testOpts has a short clock, so that an entry that spins costs the test
// little, and a grace long enough that a loaded machine still stops a
// spinning entry on its CPU time first.
var testOpts = Options{Clock: 400 * time.Millisecond, Grace: 1500 * time.Millisecond}

// compile builds a C entry from testdata the way the contest did: plain cc,
// no optimisation, old C allowed.
func compile(t *testing.T, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(name, ".c"))
	cmd := exec.Command("cc", "-std=gnu89", "-w", "-o", out, filepath.Join("testdata", name), "-lm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", name, err, msg)
	}
	return out
}

// script writes a #! entry.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "entry.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func open(t *testing.T, path string, seat int, params game.Params) *Bot {
	t.Helper()
	return openWith(t, path, seat, params, testOpts)
}

func openWith(t *testing.T, path string, seat int, params game.Params, opts Options) *Bot {
	t.Helper()
	b, err := OpenWith(path, bot.Match{Game: linesandboxes.Game{}, Seed: 1, Seat: seat, Params: params}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// play runs a whole 3x3 game, the entry on seat 0 against house greedy, the
// way the runner does: a failed reply is a nil answer whose status is the
// reply's. It returns the entry's status on each of its turns.
func play(t *testing.T, entry *Bot) ([]game.Status, *linesandboxes.State) {
	t.Helper()
	s, err := linesandboxes.NewState(7, game.Params{"rows": "3", "cols": "3"})
	if err != nil {
		t.Fatal(err)
	}
	greedy := (linesandboxes.Game{}).HouseBots()[1].New(1, 1)
	var statuses []game.Status
	for !s.Done() {
		seat := s.ToMove()
		answers := make([][]byte, 2)
		if seat == 1 {
			answers[1] = greedy.Act(s, 1)
			s.Apply(answers)
			continue
		}
		obs := s.AppendObservation(nil, 0)
		r := entry.Act(context.Background(), bot.Request{Turn: s.Turn(), Observation: obs, State: s})
		if r.Status == game.OK {
			answers[0] = r.Line
		}
		v := s.Apply(answers)[0]
		status := v.Status
		if r.Status != game.OK {
			status = r.Status
		}
		if v.Action == nil {
			t.Fatalf("turn %d: no move applied for the entry", s.Turn())
		}
		statuses = append(statuses, status)
	}
	return statuses, s
}

func count(statuses []game.Status, want game.Status) int {
	n := 0
	for _, s := range statuses {
		if s == want {
			n++
		}
	}
	return n
}

func TestCEntryPlaysWholeGame(t *testing.T) {
	entry := open(t, compile(t, "first.c"), 0, nil)
	defer entry.Close()
	statuses, s := play(t, entry)
	if n := count(statuses, game.OK); n != len(statuses) || n == 0 {
		t.Fatalf("statuses %v, want all ok", statuses)
	}
	// Its temp file lives in its working directory for the whole game.
	data, err := os.ReadFile(filepath.Join(entry.root, "run", "first.temp"))
	if err != nil || strings.TrimSpace(string(data)) != strconv.Itoa(len(statuses)) {
		t.Errorf("first.temp = %q, %v; want %d turns counted", data, err, len(statuses))
	}
	if entry.Left() <= 0 || entry.Left() > testOpts.Clock {
		t.Errorf("clock left %v", entry.Left())
	}
	if !s.Done() {
		t.Error("game not over")
	}
	root := entry.root
	entry.Close()
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("Close left %s behind", root)
	}
}

// TestMisbehavingEntries: every way an entry can break the page's rules gets
// a status and the default move, and the game still ends normally.
func TestMisbehavingEntries(t *testing.T) {
	cases := []struct {
		name  string
		entry func(t *testing.T) string
		want  game.Status
		all   bool // every turn, rather than all but possibly the first
	}{
		{"overlapping line", func(t *testing.T) string { return script(t, "echo A1 D1") }, game.Illegal, false},
		{"reversed vertices", func(t *testing.T) string { return script(t, "echo B1 A1") }, game.Illegal, true},
		{"off the board", func(t *testing.T) string { return script(t, "echo A1 Z1") }, game.Illegal, true},
		{"diagonal", func(t *testing.T) string { return script(t, "echo A1 B2") }, game.Illegal, true},
		{"garbage", func(t *testing.T) string { return script(t, "echo 'hello, world'") }, game.Malformed, true},
		{"nothing", func(t *testing.T) string { return script(t, "exit 0") }, game.Malformed, true},
		{"extra lines", func(t *testing.T) string { return script(t, "echo A1 B1; echo debug output") }, game.Malformed, true},
		{"flood", func(t *testing.T) string { return script(t, "yes A1 B1 | head -c 100000") }, game.Malformed, true},
		{"exit code only", func(t *testing.T) string { return script(t, "exit 3") }, game.Crash, true},
		{"crash", func(t *testing.T) string { return compile(t, "crash.c") }, game.Crash, true},
		{"exceeds CPU time", func(t *testing.T) string { return compile(t, "spin.c") }, game.Timeout, true},
		{"sleeps", func(t *testing.T) string { return script(t, "exec sleep 30") }, game.Timeout, true},
		{"not executable", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "noexec")
			os.WriteFile(p, []byte("#!/nonexistent/interpreter\n"), 0o755)
			return p
		}, game.Crash, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entry := open(t, c.entry(t), 0, nil)
			defer entry.Close()
			statuses, s := play(t, entry)
			if !s.Done() || len(statuses) == 0 {
				t.Fatalf("game did not end: %v", statuses)
			}
			n := count(statuses, c.want)
			if c.all && n != len(statuses) || !c.all && n < len(statuses)-1 {
				t.Errorf("statuses %v, want %s", statuses, c.want)
			}
		})
	}
}

// TestCPUClockIsPerGame: an entry that spins is killed once its clock is
// spent, and later turns are refused without running it.
func TestCPUClockIsPerGame(t *testing.T) {
	// The entry notes each run in a file, so the test counts runs rather than
	// timing the game, which a loaded machine would stretch.
	runs := filepath.Join(t.TempDir(), "runs")
	entry := open(t, script(t, "echo run >> "+runs+"; exec "+compile(t, "spin.c")), 0, nil)
	defer entry.Close()
	statuses, _ := play(t, entry)
	if entry.Left() != 0 {
		t.Errorf("clock left %v after spinning", entry.Left())
	}
	if n := count(statuses, game.Timeout); n != len(statuses) || n < 2 {
		t.Errorf("statuses %v, want timeout on every turn", statuses)
	}
	// One kill costs the whole clock; the later turns do not run the entry.
	data, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "run\n"); n != 1 {
		t.Errorf("the entry ran %d times in a game of %d turns, want once", n, len(statuses))
	}
}

// TestLeftoverChild: an entry may write files in its directory and
// may leave a background child holding stdout; neither hangs a turn (the
// child sleeps 30 s; the bound is wide so that a loaded machine passes).
func TestLeftoverChild(t *testing.T) {
	entry := open(t, script(t, "(sleep 30 &) ; echo A1 B1"), 0, nil)
	defer entry.Close()
	start := time.Now()
	obs := mustState(t).AppendObservation(nil, 0)
	r := entry.Act(context.Background(), bot.Request{Observation: obs})
	if r.Status != game.OK || string(r.Line) != `{"from":"A1","to":"B1"}` {
		t.Errorf("reply %+v", r)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("turn took %v", d)
	}
}

// TestInputFileAsSeen: the entry sees exactly the contest's format.
func TestInputFileAsSeen(t *testing.T) {
	entry := open(t, script(t, `cp "$1" seen; echo A1 B1`), 1, nil)
	defer entry.Close()
	s, err := linesandboxes.NewState(1, game.Params{"rows": "8", "cols": "3", "board": "A2-D2,B1-B9"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{`{"from":"A1","to":"C1"}`, `{"from":"A5","to":"A1"}`, `{"from":"C1","to":"C9"}`} {
		answers := make([][]byte, 2)
		answers[s.ToMove()] = []byte(m)
		if v := s.Apply(answers)[s.Turn()%2^1]; v.Status != game.OK {
			t.Fatalf("%s: %s %s", m, v.Status, v.Reason)
		}
	}
	r := entry.Act(context.Background(), bot.Request{Observation: s.AppendObservation(nil, 1), Clocks: []float64{0.25, 1}})
	if r.Status != game.Illegal && r.Status != game.OK {
		t.Fatalf("reply %+v", r)
	}
	seen, err := os.ReadFile(filepath.Join(entry.root, "run", "seen"))
	if err != nil {
		t.Fatal(err)
	}
	// The page's third sample, with the scores the moves really give and
	// both clocks: the opponent has a quarter of its clock left.
	want := "2 8 3\n1 1 0.10\n2 1 0.40\n0 A2 D2\n0 B1 B9\n1 A1 C1\n2 A1 A5\n1 C1 C9\n"
	if got := string(seen); !strings.HasPrefix(got, "2 8 3\n1 1 0.10\n2 1 ") || !strings.HasSuffix(got, "0 A2 D2\n0 B1 B9\n1 A1 C1\n2 A1 A5\n1 C1 C9\n") {
		t.Errorf("input file:\n%s\nwant like:\n%s", got, want)
	}
}

func mustState(t *testing.T) *linesandboxes.State {
	s, err := linesandboxes.NewState(1, game.Params{"rows": "3", "cols": "3"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpenRefuses(t *testing.T) {
	m := bot.Match{Game: linesandboxes.Game{}}
	if _, err := Open(filepath.Join(t.TempDir(), "missing"), m); err == nil {
		t.Error("opened a missing entry")
	}
	p := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(p, []byte("x"), 0o644)
	if _, err := Open(p, m); err == nil {
		t.Error("opened a file that is not executable")
	}
}

func TestAnswer(t *testing.T) {
	for _, c := range []struct {
		out  string
		want game.Status
		line string
	}{
		{"A4 C4\n", game.OK, `{"from":"A4","to":"C4"}`},
		{"  b1\tb3  \n\n", game.OK, `{"from":"B1","to":"B3"}`},
		{"C4 A4\n", game.Illegal, ""},
		{"A1 A1\n", game.OK, `{"from":"A1","to":"A1"}`}, // the game refuses it
		{"", game.Malformed, ""},
		{"A4\n", game.Malformed, ""},
		{"A4 C4 D4\n", game.Malformed, ""},
		{"A4-C4\n", game.Malformed, ""},
		{"A4 C4\nA1 B1\n", game.Malformed, ""},
		{"{\"from\":\"A1\",\"to\":\"B1\"}\n", game.Malformed, ""},
	} {
		r := answer([]byte(c.out))
		if r.Status != c.want || string(r.Line) != c.line {
			t.Errorf("%q: %s %q (%s), want %s %q", c.out, r.Status, r.Line, r.Detail, c.want, c.line)
		}
	}
}

func FuzzAnswer(f *testing.F) {
	for _, s := range []string{"A4 C4\n", "C4 A4", "", "a1 a2\r\n", "A1 B1\nA2 B2\n", "Z99 A1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		r := answer(out)
		switch r.Status {
		case game.OK:
			// An accepted answer is the game's canonical JSON.
			seg, err := linesandboxes.ParseAction(r.Line)
			if err != nil || string(linesandboxes.ActionJSON(seg)) != string(r.Line) {
				t.Fatalf("%q gave %q", out, r.Line)
			}
		case game.Malformed, game.Illegal:
			if r.Line != nil || r.Detail == "" {
				t.Fatalf("%q: %+v", out, r)
			}
		default:
			t.Fatalf("%q: status %s", out, r.Status)
		}
	})
}

// TestCPUOfChildren: a script entry whose child spins is stopped on CPU time,
// not only by the wall-clock backstop. The backstop is put a minute away: on
// a loaded machine 0.4 s of CPU can take many seconds of wall-clock time, and
// the test must tell the two kills apart whatever the load (the Detail names
// the limit that fired).
func TestCPUOfChildren(t *testing.T) {
	spin := compile(t, "spin.c")
	opts := testOpts
	opts.Grace = time.Minute
	entry := openWith(t, script(t, spin+"; echo A1 B1"), 0, nil, opts)
	defer entry.Close()
	obs := mustState(t).AppendObservation(nil, 0)
	r := entry.Act(context.Background(), bot.Request{Observation: obs})
	if r.Status != game.Timeout || !strings.Contains(r.Detail, "killed: cpu limit") || entry.Left() != 0 {
		t.Errorf("reply %+v, clock left %v; want a CPU timeout", r, entry.Left())
	}
}

// BenchmarkGroupCPU is the cost of one look at a running entry's CPU time,
// taken every 50 ms while it runs.
func BenchmarkGroupCPU(b *testing.B) {
	pid := os.Getpid()
	for i := 0; i < b.N; i++ {
		groupCPU(pid)
	}
}

// TestStderrIsTheLog: the page asks for nothing on stderr; what an entry
// writes there anyway costs it nothing and is kept as its log.
func TestStderrIsTheLog(t *testing.T) {
	entry := open(t, script(t, "echo thinking hard >&2; echo A1 B1"), 0, nil)
	obs := mustState(t).AppendObservation(nil, 0)
	r := entry.Act(context.Background(), bot.Request{Observation: obs})
	if r.Status != game.OK {
		t.Errorf("reply %+v", r)
	}
	if log := string(entry.Close()); log != "thinking hard\n" {
		t.Errorf("log %q", log)
	}
}
