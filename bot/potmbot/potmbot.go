// Package potmbot runs unchanged entries of the 2006 POTM contest "LINES and
// BOXES" as bots (spec kind potm:PATH, command line only, trusted). Each turn
// it writes the contest's input file, runs the entry as `entry INPUTFILE` in
// a working directory that lasts the whole game (entries may keep temp files
// there), reads the one line it prints, and charges the CPU time it used
// against the contest's 60 seconds per game. docs/games/lines-and-boxes.md
// states the contract.
package potmbot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/internal/procgroup"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/linesandboxes"
)

// Options tune the clock; the zero value is the contest's.
type Options struct {
	// Clock is the CPU time (user+sys) an entry has for one game: 60 s.
	Clock time.Duration
	// Grace is how much longer than its CPU time left an entry may take in
	// wall-clock time (sleeping, waiting) before it is killed: 2 s.
	Grace time.Duration
}

// maxOutput is what is kept of an entry's stdout per turn; an entry that
// writes more has not answered with one line.
const maxOutput = 4096

// Bot is one entry playing one seat of one game.
type Bot struct {
	path string // absolute
	spec string
	seat int
	opts Options
	used time.Duration // CPU charged so far
	root string        // temp dir: the input file and the working dir "run"
	log  *bot.Log
}

// Open prepares the entry at path for one seat of a Lines and Boxes game.
func Open(path string, m bot.Match) (bot.Bot, error) {
	return OpenWith(path, m, Options{})
}

// OpenWith is Open with a different clock (tests use short ones).
func OpenWith(path string, m bot.Match, opts Options) (*Bot, error) {
	if id := m.Game.Info().ID; id != "lines-and-boxes" {
		return nil, fmt.Errorf("potm entries play lines-and-boxes only, not %s", id)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", path, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("entry: %w", err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return nil, fmt.Errorf("entry %s: not an executable file", path)
	}
	if opts.Clock <= 0 {
		opts.Clock = 60 * time.Second
	}
	if opts.Grace <= 0 {
		opts.Grace = 2 * time.Second
	}
	root, err := os.MkdirTemp("", "arena-potm-")
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", path, err)
	}
	if err := os.Mkdir(filepath.Join(root, "run"), 0o755); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("entry %s: %w", path, err)
	}
	return &Bot{path: abs, spec: spec.Spec{Kind: spec.Potm, Path: path}.String(), seat: m.Seat, opts: opts, root: root, log: &bot.Log{}}, nil
}

// Identity names the entry and the hash of its file.
func (b *Bot) Identity() bot.Identity {
	id := bot.Identity{Spec: b.spec}
	if data, err := os.ReadFile(b.path); err == nil {
		sum := sha256.Sum256(data)
		id.SHA256 = hex.EncodeToString(sum[:])
	}
	return id
}

// ClockLeft is the share of its 60 s left (bot.Clocked), so the input file
// of an entry playing against this one shows its real time.
func (b *Bot) ClockLeft() float64 { return b.Left().Seconds() / b.opts.Clock.Seconds() }

// Left is the CPU time the entry has left this game.
func (b *Bot) Left() time.Duration { return max(b.opts.Clock-b.used, 0) }

// Close deletes the entry's files and returns what it wrote to stderr.
func (b *Bot) Close() []byte {
	os.RemoveAll(b.root)
	return b.log.Bytes()
}

// Act runs the entry once for this turn.
func (b *Bot) Act(ctx context.Context, req bot.Request) bot.Reply {
	left := b.Left()
	if left <= 0 {
		return bot.Reply{Status: game.Timeout, Detail: "its CPU time for this game is spent"}
	}
	var obs linesandboxes.Observation
	if err := game.Decode(req.Observation, &obs); err != nil {
		return bot.Reply{Status: game.Crash, Detail: fmt.Sprintf("observation: %v", err)}
	}
	// Both players' real time left, as the contest page says: the entry's
	// own clock, and the opponent's share of its clock (its CPU seconds if
	// it is an entry too, its fuel if it is a wasm bot) scaled to this
	// entry's clock; an opponent with no clock shows a full one.
	var times [2]float64
	for seat := range times {
		share := 1.0
		if seat < len(req.Clocks) {
			share = req.Clocks[seat]
		}
		times[seat] = share * b.opts.Clock.Seconds()
	}
	times[b.seat] = left.Seconds()
	file, err := obs.InputFile(times)
	if err != nil {
		return bot.Reply{Status: game.Crash, Detail: err.Error()}
	}
	input := filepath.Join(b.root, "inputfile")
	if err := os.WriteFile(input, file.Format(), 0o644); err != nil {
		return bot.Reply{Status: game.Crash, Detail: fmt.Sprintf("writing the input file: %v", err)}
	}
	out, r := b.run(ctx, input, left)
	if r.Status != "" {
		return r
	}
	return answer(out)
}

// run runs the entry and returns its stdout, or a reply saying why there is
// no answer. It charges the CPU time the entry used.
func (b *Bot) run(ctx context.Context, input string, left time.Duration) ([]byte, bot.Reply) {
	var out capped
	cmd := exec.Command(b.path, input)
	cmd.Dir = filepath.Join(b.root, "run")
	cmd.SysProcAttr = procgroup.Attr()
	// Our own pipes rather than os/exec's copying: Wait then returns when the
	// entry exits, even if a child it left behind still holds them open.
	stdout, drainOut, err := pipeTo(&out)
	if err != nil {
		return nil, bot.Reply{Status: game.Crash, Detail: err.Error()}
	}
	stderr, drainErr, err := pipeTo(b.log)
	if err != nil {
		stdout.Close()
		drainOut()
		return nil, bot.Reply{Status: game.Crash, Detail: err.Error()}
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Start()
	stdout.Close()
	stderr.Close()
	if err != nil {
		drainOut()
		drainErr()
		return nil, bot.Reply{Status: game.Crash, Detail: fmt.Sprintf("start: %v", err)}
	}
	killed := make(chan string, 1)
	stop := make(chan struct{})
	go watch(ctx, cmd.Process, left, left+b.opts.Grace, killed, stop)
	waitErr := cmd.Wait()
	close(stop)
	procgroup.Kill(cmd.Process) // whatever it left behind in its group
	drainOut()
	drainErr()
	var cpu time.Duration
	if ps := cmd.ProcessState; ps != nil {
		cpu = ps.UserTime() + ps.SystemTime()
	}
	b.used += cpu
	select {
	case why := <-killed:
		// Killed for CPU or for hanging, the entry has spent its clock: a
		// sleeping entry must not hold the match up again every turn.
		if why != "cancelled" {
			b.used = max(b.used, b.opts.Clock)
		}
		return nil, bot.Reply{Status: game.Timeout, Detail: fmt.Sprintf("killed: %s limit (%.2f s of CPU left)", why, left.Seconds())}
	default:
	}
	if b.used > b.opts.Clock {
		return nil, bot.Reply{Status: game.Timeout, Detail: fmt.Sprintf("used %.2f s of CPU with %.2f s left", cpu.Seconds(), left.Seconds())}
	}
	var exitErr *exec.ExitError
	if errors.As(waitErr, &exitErr) {
		if st, ok := exitErr.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return nil, bot.Reply{Status: game.Crash, Detail: fmt.Sprintf("killed by signal %v", st.Signal())}
		}
		// A 2006 C entry often ends main without a return value, so its exit
		// code means nothing; only an entry that also printed nothing crashed.
		if len(bytes.TrimSpace(out.buf)) == 0 {
			return nil, bot.Reply{Status: game.Crash, Detail: fmt.Sprintf("exit: %v, no output", waitErr)}
		}
	} else if waitErr != nil {
		return nil, bot.Reply{Status: game.Crash, Detail: fmt.Sprintf("wait: %v", waitErr)}
	}
	if out.over {
		return nil, bot.Reply{Status: game.Malformed, Detail: fmt.Sprintf("more than %d bytes of output", maxOutput)}
	}
	return out.buf, bot.Reply{}
}

// watch kills the entry's process group when its CPU time passes cpuLimit,
// its wall-clock time passes wallLimit, or ctx ends. It reports which.
func watch(ctx context.Context, p *os.Process, cpuLimit, wallLimit time.Duration, killed chan<- string, stop <-chan struct{}) {
	tick := time.NewTicker(50 * time.Millisecond) // a look costs about 1 ms
	defer tick.Stop()
	wall := time.NewTimer(wallLimit)
	defer wall.Stop()
	kill := func(why string) {
		killed <- why
		procgroup.Kill(p)
	}
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			kill("cancelled")
			return
		case <-wall.C:
			kill("wall-clock")
			return
		case <-tick.C:
			if cpu, ok := groupCPU(p.Pid); ok && cpu > cpuLimit {
				kill("cpu")
				return
			}
		}
	}
}

// groupCPU sums the user+sys time of every live process in process group
// pgid, from /proc (Linux; clock ticks are 1/100 s there). A process's own
// entry includes the children it has already waited for, so a shell-script
// entry's workers count while they run and after they end.
func groupCPU(pgid int) (time.Duration, bool) {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	var ticks int64
	found := false
	for _, d := range dir {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// The command name may hold spaces; the fields after it are fixed.
		end := bytes.LastIndexByte(data, ')')
		if end < 0 {
			continue
		}
		fields := strings.Fields(string(data[end+1:]))
		if len(fields) < 15 || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		found = true
		for _, f := range fields[11:15] { // utime stime cutime cstime
			n, _ := strconv.ParseInt(f, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond, found
}

// answer turns the entry's output into the game's JSON answer. The page asks
// for exactly one line of two vertices, the second right of or below the
// first; anything else is malformed, and the reversed order is illegal.
func answer(out []byte) bot.Reply {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	switch len(lines) {
	case 0:
		return bot.Reply{Status: game.Malformed, Detail: "no output"}
	case 1:
	default:
		return bot.Reply{Status: game.Malformed, Detail: fmt.Sprintf("%d lines of output, want one", len(lines))}
	}
	fields := strings.Fields(lines[0])
	if len(fields) != 2 {
		return bot.Reply{Status: game.Malformed, Detail: fmt.Sprintf("output %q: want two vertices like \"A4 C4\"", lines[0])}
	}
	a, err := linesandboxes.ParseVertex(fields[0])
	if err != nil {
		return bot.Reply{Status: game.Malformed, Detail: fmt.Sprintf("output %q: %v", lines[0], err)}
	}
	c, err := linesandboxes.ParseVertex(fields[1])
	if err != nil {
		return bot.Reply{Status: game.Malformed, Detail: fmt.Sprintf("output %q: %v", lines[0], err)}
	}
	seg := linesandboxes.NewSegment(a, c)
	if seg.From != a {
		return bot.Reply{Status: game.Illegal, Detail: fmt.Sprintf("output %q: the second vertex must be right of or below the first", lines[0])}
	}
	return bot.Reply{Status: game.OK, Line: linesandboxes.ActionJSON(seg)}
}

// pipeTo makes a pipe whose read end is copied to w. The caller gives the
// write end to the child and closes its own copy; drain waits for the copy to
// end, and cuts it short if a stray process keeps the pipe open.
func pipeTo(w io.Writer) (*os.File, func(), error) {
	r, wr, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("pipe: %w", err)
	}
	done := make(chan struct{})
	go func() {
		io.Copy(w, r)
		close(done)
	}()
	drain := func() {
		select {
		case <-done:
		case <-time.After(100 * time.Millisecond):
			r.Close()
			<-done
		}
		r.Close()
	}
	return wr, drain, nil
}

// capped keeps the first maxOutput bytes written and notes any more.
type capped struct {
	buf  []byte
	over bool
}

// Write always reports everything written, so the entry is never blocked
// or failed by a full buffer.
func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := maxOutput - len(c.buf); n > room {
		c.over = true
		p = p[:room]
	}
	c.buf = append(c.buf, p...)
	return n, nil
}
