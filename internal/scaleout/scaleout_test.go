// Package scaleout tests `arena serve --nats-listen` with `arena worker`
// processes on loopback under the faults issue 13 names: a worker killed
// mid-match, a worker that stalls, a poison job, the server restarted while
// workers run. Everything is a real process of the arena binary; the test
// watches the workers through the server's API and the database.
package scaleout

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/clitest"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
)

var arenaBin string

func TestMain(m *testing.M) {
	if os.Getenv(nodeEnv) != "" {
		runNATSNode() // this test binary, re-run as one node of a NATS cluster
		return
	}
	clitest.Main(m, "../../cmd/arena", &arenaBin)
}

// ackWait is short so that lost jobs come back within the test's time.
const ackWait = "2s"

// proc is an arena process.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

func spawn(t *testing.T, logPath, name string, args ...string) *proc {
	t.Helper()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(arenaBin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() { p.kill() })
	return p
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case err := <-p.done:
		p.done <- err
		return true
	default:
		return false
	}
}

// kill ends the process with SIGKILL (also a stopped one) and reaps it.
func (p *proc) kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// cluster is one server and its workers, in dir.
type cluster struct {
	t       *testing.T
	dir     string
	base    string // http://...
	natsAdr string
	server  *proc
	workers []*proc
	n       int
}

func newCluster(t *testing.T, httpPort, natsPort int) *cluster {
	c := &cluster{t: t, dir: t.TempDir(), base: fmt.Sprintf("http://127.0.0.1:%d", httpPort), natsAdr: fmt.Sprintf("127.0.0.1:%d", natsPort)}
	c.startServer()
	t.Cleanup(func() {
		if t.Failed() {
			for _, f := range []string{"serve.log", "workers.log"} {
				data, _ := os.ReadFile(filepath.Join(c.dir, f))
				if len(data) > 6000 {
					data = data[len(data)-6000:]
				}
				t.Logf("%s (tail):\n%s", f, data)
			}
		}
	})
	return c
}

func (c *cluster) startServer() {
	c.t.Helper()
	c.server = spawn(c.t, filepath.Join(c.dir, "serve.log"), "serve", "serve", "--addr", c.base[len("http://"):], "--data", c.dir,
		"--nats-listen", c.natsAdr, "--no-workers", "--rest", "0", "--ack-wait", ackWait, "--check-every", "3")
	waitFor(c.t, "server healthy", 30*time.Second, func() bool { return healthy(c.base) })
}

func healthy(base string) bool {
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// startWorker runs `arena worker` with the server's creds file, as on
// another machine: its own cache directory, nothing else of the server's.
func (c *cluster) startWorker(extra ...string) *proc {
	c.t.Helper()
	c.n++
	name := fmt.Sprintf("w%d", c.n)
	args := append([]string{"worker", "--creds", filepath.Join(c.dir, jobs.CredsFile),
		"--parallel", "1", "--announce", "200ms", "--name", name, "--cache", c.t.TempDir()}, extra...)
	w := spawn(c.t, filepath.Join(c.dir, "workers.log"), name, args...)
	c.workers = append(c.workers, w)
	return w
}

// roster is the server's list of workers.
func (c *cluster) roster() []jobs.WorkerInfo {
	c.t.Helper()
	resp, err := http.Get(c.base + "/api/v1/workers")
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Workers []jobs.WorkerInfo }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		c.t.Fatal(err)
	}
	return out.Workers
}

func (c *cluster) store() *store.Store {
	s, err := store.Open(context.Background(), "", c.dir, store.Options{})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { s.Close() })
	return s
}

// waitFor polls cond every 50 ms until it holds or the time is up.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// busyWorker waits for a worker running a match and returns both.
func (c *cluster) busyWorker(among []*proc) (*proc, int64) {
	c.t.Helper()
	var w *proc
	var id int64
	waitFor(c.t, "a worker running a match", 30*time.Second, func() bool {
		for _, info := range c.roster() {
			for _, p := range among {
				if p.name == info.Name && p.cmd.ProcessState == nil && len(info.Current) > 0 {
					w, id = p, info.Current[0]
					return true
				}
			}
		}
		return false
	})
	return w, id
}

func (c *cluster) match(s *store.Store, id int64) store.Match {
	c.t.Helper()
	m, err := s.Match(context.Background(), id)
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

func live(m store.Match) bool { return m.State == store.Queued || m.State == store.Running }

func finishedCount(t *testing.T, s *store.Store) int {
	t.Helper()
	ms, err := s.Matches(context.Background(), store.MatchFilter{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range ms {
		if m.State == store.Finished {
			n++
		}
	}
	return n
}

// exactlyOnce checks that every rated match was counted once: each bot's
// match count equals its applied rated matches and its rating history (one
// entry per match), and that no failed match moved a rating. A finished
// match waits to be applied only for an earlier match still live.
func exactlyOnce(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	rated := map[int64]int{}
	failed := map[int64]bool{}
	firstLive := int64(1 << 62)
	lives, err := s.Matches(ctx, store.MatchFilter{Live: true, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range lives {
		firstLive = min(firstLive, m.ID)
	}
	f := store.MatchFilter{Limit: 200}
	for {
		ms, err := s.Matches(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			switch {
			case m.Kind == store.KindRated && m.State == store.Finished && !m.Applied:
				if m.ID < firstLive {
					t.Errorf("match %d finished but not rated, with no earlier match live", m.ID)
				}
			case m.Kind == store.KindRated && m.State == store.Finished:
				for _, seat := range m.Seats {
					rated[seat.BotID]++
				}
			case m.State == store.Failed:
				failed[m.ID] = true
			}
		}
		if len(ms) < f.Limit {
			break
		}
		f.Before = ms[len(ms)-1].ID
	}
	total := 0
	for _, g := range []string{"dots-and-boxes", "lines-and-boxes", "grid-royale"} {
		bots, err := s.ActiveBots(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bots {
			h, err := s.RatingHistory(ctx, b.ID, 0, 100000)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int64]bool{}
			for _, p := range h {
				if seen[p.MatchID] || failed[p.MatchID] {
					t.Errorf("bot %d: rating moved twice or by a failed match (match %d)", b.ID, p.MatchID)
				}
				seen[p.MatchID] = true
			}
			if int(b.Matches) != rated[b.ID] || len(h) != rated[b.ID] {
				t.Errorf("bot %d: %d matches counted, %d rating changes, %d rated matches recorded", b.ID, b.Matches, len(h), rated[b.ID])
			}
			total += rated[b.ID]
		}
	}
	if total == 0 {
		t.Error("no rated match was recorded: the check proves nothing")
	}
}

// killMidMatch SIGKILLs a worker while it runs a match and returns the
// match, retrying until the kill really caught a match unfinished.
func (c *cluster) killMidMatch(s *store.Store, among []*proc, stop bool) (*proc, int64) {
	c.t.Helper()
	for try := 0; try < 10; try++ {
		w, id := c.busyWorker(among)
		if stop {
			w.cmd.Process.Signal(syscall.SIGSTOP)
		} else {
			w.kill()
		}
		// The recorder takes a result within milliseconds: still unfinished
		// a moment later means the worker died (or froze) holding it.
		time.Sleep(300 * time.Millisecond)
		if live(c.match(s, id)) {
			return w, id
		}
		if stop {
			w.cmd.Process.Signal(syscall.SIGCONT)
		} else {
			among = slices.DeleteFunc(slices.Clone(among), func(p *proc) bool { return p == w })
			among = append(among, c.startWorker())
		}
	}
	c.t.Fatal("10 tries and no worker was caught mid-match")
	return nil, 0
}

// TestTwoWorkersSIGKILL: a server open to workers plays rated matches on
// two `arena worker` processes; one is killed with SIGKILL mid-match; its
// match is handed to the other after the ack wait and recorded once.
func TestTwoWorkersSIGKILL(t *testing.T) {
	c := newCluster(t, 18210, 18211)
	info, err := os.Stat(filepath.Join(c.dir, jobs.CredsFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("worker.creds: %v, mode %v; want 0600", err, info.Mode())
	}
	w1, w2 := c.startWorker(), c.startWorker()
	s := c.store()
	waitFor(t, "two workers announced", 20*time.Second, func() bool { return len(c.roster()) == 2 })
	waitFor(t, "6 matches finished", 40*time.Second, func() bool { return finishedCount(t, s) >= 6 })
	// One match in three is run again on the other worker and compared.
	same := `arena_determinism_checks_total{outcome="same",where="other"}`
	waitFor(t, "a determinism check on another worker", 30*time.Second, func() bool { return metric(t, c.base, same) >= 1 })

	killed, id := c.killMidMatch(s, []*proc{w1, w2}, false)
	t.Logf("killed %s running match %d", killed.name, id)
	waitFor(t, fmt.Sprintf("match %d finished after the kill", id), 30*time.Second, func() bool { return c.match(s, id).State == store.Finished })
	waitFor(t, "the killed worker leaves the list", 5*time.Second, func() bool {
		for _, w := range c.roster() {
			if w.Name == killed.name {
				return false
			}
		}
		return true
	})
	if m := c.match(s, id); len(m.Seats) == 0 || m.Turns == 0 {
		t.Fatalf("match %d finished without its result: %+v", id, m)
	}
	exactlyOnce(t, s)
	if n := metric(t, c.base, `arena_determinism_checks_total{outcome="mismatch"`); n != 0 {
		t.Fatalf("%v determinism mismatches", n)
	}
	if n := metric(t, c.base, `arena_workers`); n != 1 {
		t.Fatalf("arena_workers = %v after one of two was killed", n)
	}
}

// metric sums the /metrics samples whose name and labels start with prefix.
func metric(t *testing.T, base, prefix string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		if line[len(prefix):] != "" && !strings.ContainsAny(line[len(prefix):len(prefix)+1], " ,{}") {
			continue // a longer metric name
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		sum += v
	}
	return sum
}

// TestStalledWorker: a worker frozen with SIGSTOP stops heartbeating; its
// match runs again elsewhere after the ack wait; thawed, its late result
// changes nothing.
func TestStalledWorker(t *testing.T) {
	c := newCluster(t, 18220, 18221)
	w1, w2 := c.startWorker(), c.startWorker()
	s := c.store()
	waitFor(t, "3 matches finished", 40*time.Second, func() bool { return finishedCount(t, s) >= 3 })
	stalled, id := c.killMidMatch(s, []*proc{w1, w2}, true)
	t.Logf("stopped %s running match %d", stalled.name, id)
	waitFor(t, fmt.Sprintf("match %d finished elsewhere", id), 30*time.Second, func() bool { return c.match(s, id).State == store.Finished })
	before := c.match(s, id)
	stalled.cmd.Process.Signal(syscall.SIGCONT)
	// The thawed worker finishes its copy and reports it: a duplicate.
	waitFor(t, "the thawed worker announces again", 10*time.Second, func() bool {
		for _, w := range c.roster() {
			if w.Name == stalled.name && !slices.Contains(w.Current, id) {
				return true
			}
		}
		return false
	})
	time.Sleep(time.Second)
	after := c.match(s, id)
	if after.State != before.State || after.Turns != before.Turns || !after.FinishedAt.Equal(before.FinishedAt) {
		t.Fatalf("match %d changed after the stalled worker came back: %+v -> %+v", id, before, after)
	}
	exactlyOnce(t, s)
}

// TestPoisonJob: a match that crashes every worker that takes it (the
// workers' hidden --crash-on makes them exit when it starts) ends, after a
// bounded number of deliveries, as a failed, unrated match with a reason,
// and the service goes on.
func TestPoisonJob(t *testing.T) {
	c := newCluster(t, 18230, 18231)
	const poison = 3
	crashy := func() *proc { return c.startWorker("--crash-on", fmt.Sprint(poison)) }
	workers := []*proc{crashy(), crashy()}
	s := c.store()
	crashes := 0
	deadline := time.Now().Add(40 * time.Second)
	for {
		m, err := s.Match(context.Background(), poison)
		if err == nil && !live(m) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("poison match %d not ended after %d crashes", poison, crashes)
		}
		// A crashed worker is restarted, as systemd would.
		for i, w := range workers {
			if w.exited() {
				crashes++
				workers[i] = crashy()
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	m := c.match(s, poison)
	if m.State != store.Failed || m.Reason == "" {
		t.Fatalf("poison match %d ended %s (%q); want failed with a reason", poison, m.State, m.Reason)
	}
	if crashes < 2 || crashes > jobs.MaxAttempts {
		t.Fatalf("poison match crashed %d workers; want 2 to %d", crashes, jobs.MaxAttempts)
	}
	t.Logf("match %d failed after %d crashes: %s", poison, crashes, m.Reason)
	n := finishedCount(t, s)
	waitFor(t, "matches after the poison one", 30*time.Second, func() bool { return finishedCount(t, s) > n })
	exactlyOnce(t, s)
}

// TestServerRestartWithWorkers: the server is killed with SIGKILL and
// started again while its workers run; they reconnect with the same creds
// and play on, and nothing is counted twice.
func TestServerRestartWithWorkers(t *testing.T) {
	c := newCluster(t, 18240, 18241)
	c.startWorker()
	c.startWorker()
	s := c.store()
	waitFor(t, "3 matches finished", 40*time.Second, func() bool { return finishedCount(t, s) >= 3 })
	c.server.kill()
	interrupted, err := s.Matches(context.Background(), store.MatchFilter{Live: true, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	c.startServer()
	n := finishedCount(t, s)
	waitFor(t, "both workers back in the list", 20*time.Second, func() bool { return len(c.roster()) == 2 })
	waitFor(t, "3 more matches after the restart", 40*time.Second, func() bool { return finishedCount(t, s) >= n+3 })
	for _, w := range c.workers {
		if w.cmd.ProcessState != nil {
			t.Fatalf("worker %s exited across the restart", w.name)
		}
	}
	// Matches the kill interrupted are run again, not stuck.
	for _, m := range interrupted {
		waitFor(t, fmt.Sprintf("interrupted match %d ends", m.ID), 30*time.Second, func() bool { return c.match(s, m.ID).State == store.Finished })
	}
	exactlyOnce(t, s)
}
