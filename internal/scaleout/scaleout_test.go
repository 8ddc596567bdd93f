// Package scaleout tests `arena serve --nats-listen` with `arena worker`
// processes on loopback under the faults issue 13 names: a worker killed
// mid-match, a worker that stalls, a poison job, the server restarted while
// workers run. Everything is a real process of the arena binary; the test
// watches the workers through the server's API and the database.
package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/clitest"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/worker"
)

var arenaBin string

func TestMain(m *testing.M) {
	if os.Getenv(nodeEnv) != "" {
		runNATSNode() // this test binary, re-run as one node of a NATS cluster
		return
	}
	// The workers' fault hooks (worker/testhook.go) exist only in this build.
	clitest.Main(m, "../../cmd/arena", &arenaBin, "-tags", "arenatesthooks")
}

// ackWait is short so that lost jobs come back within the test's time.
const ackWait = "2s"

// cluster is one server and its workers, in dir.
type cluster struct {
	t         *testing.T
	dir       string
	base      string // http://...
	natsAdr   string
	serveArgs []string
	server    *clitest.Proc
	workers   []*clitest.Proc
	n         int
}

// newCluster starts `arena serve --nats-listen natsAddr` with no worker of
// its own, its HTTP on 127.0.0.1:httpPort; extra are more serve flags.
func newCluster(t *testing.T, httpPort int, natsAddr string, extra ...string) *cluster {
	c := &cluster{t: t, dir: t.TempDir(), base: fmt.Sprintf("http://127.0.0.1:%d", httpPort), natsAdr: natsAddr}
	c.serveArgs = append([]string{"serve", "--addr", c.base[len("http://"):], "--data", c.dir,
		"--nats-listen", c.natsAdr, "--no-workers", "--rest", "0", "--ack-wait", ackWait, "--check-every", "3"}, extra...)
	c.startServer()
	c.logsOnFailure()
	return c
}

// logsOnFailure shows the end of the processes' logs when the test fails.
func (c *cluster) logsOnFailure() {
	c.t.Cleanup(func() {
		if c.t.Failed() {
			for _, f := range []string{"serve.log", "workers.log"} {
				c.t.Logf("%s (tail):\n%s", f, clitest.Tail(filepath.Join(c.dir, f), 6000))
			}
		}
	})
}

func (c *cluster) startServer() {
	c.t.Helper()
	c.server = clitest.Start(c.t, filepath.Join(c.dir, "serve.log"), "serve", exec.Command(arenaBin, c.serveArgs...))
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

// workerArgs are the arguments of `arena worker` with the server's creds
// file, as on another machine: its own cache directory, nothing else of
// the server's.
func (c *cluster) workerArgs(name string, extra ...string) []string {
	return append([]string{"worker", "--creds", filepath.Join(c.dir, jobs.CredsFile),
		"--parallel", "1", "--announce", "200ms", "--name", name, "--cache", c.t.TempDir()}, extra...)
}

// startWorker runs `arena worker`; hooks, when given, are its faults
// (worker.TestHooksEnv).
func (c *cluster) startWorker(hooks string, extra ...string) *clitest.Proc {
	c.t.Helper()
	c.n++
	name := fmt.Sprintf("w%d", c.n)
	cmd := exec.Command(arenaBin, c.workerArgs(name, extra...)...)
	if hooks != "" {
		cmd.Env = append(os.Environ(), worker.TestHooksEnv+"="+hooks)
	}
	return c.addWorker(name, cmd)
}

func (c *cluster) addWorker(name string, cmd *exec.Cmd) *clitest.Proc {
	w := clitest.Start(c.t, filepath.Join(c.dir, "workers.log"), name, cmd)
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

var waitFor = clitest.WaitFor

// busyWorker waits for a worker running a match and returns both.
func (c *cluster) busyWorker(among []*clitest.Proc) (*clitest.Proc, int64) {
	c.t.Helper()
	var w *clitest.Proc
	var id int64
	waitFor(c.t, "a worker running a match", 30*time.Second, func() bool {
		for _, info := range c.roster() {
			for _, p := range among {
				if p.Name == info.Name && !p.Exited() && len(info.Current) > 0 {
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

var exactlyOnce = clitest.ExactlyOnce

// catchMidMatch waits for a worker among those given running a match,
// cuts it off from the server (cut: kill, freeze, partition), and returns
// the worker and the match once the match is still unfinished a moment
// later; when the worker had already reported it, heal gives back the
// worker to watch instead, and it tries again.
func (c *cluster) catchMidMatch(s *store.Store, among []*clitest.Proc, cut func(*clitest.Proc), heal func(*clitest.Proc) *clitest.Proc) (*clitest.Proc, int64) {
	c.t.Helper()
	for try := 0; try < 10; try++ {
		w, id := c.busyWorker(among)
		cut(w)
		// The recorder takes a result within milliseconds: still unfinished
		// a moment later means the worker died (or froze) holding it.
		time.Sleep(300 * time.Millisecond)
		if live(c.match(s, id)) {
			return w, id
		}
		among = slices.Clone(among)
		among[slices.Index(among, w)] = heal(w)
	}
	c.t.Fatal("10 tries and no worker was caught mid-match")
	return nil, 0
}

// killMidMatch SIGKILLs a worker while it runs a match (replacing it by a
// new worker when the kill came too late).
func (c *cluster) killMidMatch(s *store.Store, among []*clitest.Proc) (*clitest.Proc, int64) {
	return c.catchMidMatch(s, among, (*clitest.Proc).Kill, func(*clitest.Proc) *clitest.Proc { return c.startWorker("") })
}

// stopMidMatch freezes a worker with SIGSTOP while it runs a match.
func (c *cluster) stopMidMatch(s *store.Store, among []*clitest.Proc) (*clitest.Proc, int64) {
	return c.catchMidMatch(s, among, func(w *clitest.Proc) { w.Signal(syscall.SIGSTOP) },
		func(w *clitest.Proc) *clitest.Proc { w.Signal(syscall.SIGCONT); return w })
}

// TestTwoWorkersSIGKILL: a server open to workers plays rated matches on
// two `arena worker` processes; one is killed with SIGKILL mid-match; its
// match is handed to the other after the ack wait and recorded once.
func TestTwoWorkersSIGKILL(t *testing.T) {
	c := newCluster(t, 23210, "127.0.0.1:23211")
	info, err := os.Stat(filepath.Join(c.dir, jobs.CredsFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("worker.creds: %v, mode %v; want 0600", err, info.Mode())
	}
	w1, w2 := c.startWorker(""), c.startWorker("")
	s := c.store()
	waitFor(t, "two workers announced", 20*time.Second, func() bool { return len(c.roster()) == 2 })
	publicWorkerFields(t, c.base)
	waitFor(t, "6 matches finished", 40*time.Second, func() bool { return finishedCount(t, s) >= 6 })
	// One match in three is run again on the other worker and compared.
	same := `arena_determinism_checks_total{outcome="same",where="other"}`
	waitFor(t, "a determinism check on another worker", 30*time.Second, func() bool { return metric(t, c.base, same) >= 1 })

	killed, id := c.killMidMatch(s, []*clitest.Proc{w1, w2})
	t.Logf("killed %s running match %d", killed.Name, id)
	waitFor(t, fmt.Sprintf("match %d finished after the kill", id), 30*time.Second, func() bool { return c.match(s, id).State == store.Finished })
	waitFor(t, "the killed worker leaves the list", 30*time.Second, func() bool {
		for _, w := range c.roster() {
			if w.Name == killed.Name {
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

// publicWorkerFields checks that GET /api/v1/workers, public on purpose
// (docs/api.md), shows exactly the documented fields to anyone: a new field
// there is a decision, not an accident.
func publicWorkerFields(t *testing.T, base string) {
	t.Helper()
	var out struct {
		Local   *int             `json:"local_workers"`
		Workers []map[string]any `json:"workers"`
	}
	getJSON(t, base+"/api/v1/workers", &out)
	want := []string{"cores", "cost_model", "current", "failed", "id", "interval", "last_seen", "matches_run", "name", "parallel", "refused", "started", "version"}
	if out.Local == nil || len(out.Workers) == 0 {
		t.Fatalf("GET /api/v1/workers: %+v", out)
	}
	for _, w := range out.Workers {
		var keys []string
		for k := range w {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want) {
			t.Fatalf("GET /api/v1/workers shows %v; docs/api.md documents %v", keys, want)
		}
	}
}

// metric sums the /metrics samples whose name and labels start with prefix.
func metric(t *testing.T, base, prefix string) float64 {
	t.Helper()
	return clitest.Metric(t, base, prefix)
}

// TestStalledWorker: a worker frozen with SIGSTOP stops heartbeating; its
// match runs again elsewhere after the ack wait; thawed, its late result
// changes nothing.
func TestStalledWorker(t *testing.T) {
	c := newCluster(t, 23220, "127.0.0.1:23221")
	w1, w2 := c.startWorker(""), c.startWorker("")
	s := c.store()
	waitFor(t, "3 matches finished", 40*time.Second, func() bool { return finishedCount(t, s) >= 3 })
	stalled, id := c.stopMidMatch(s, []*clitest.Proc{w1, w2})
	t.Logf("stopped %s running match %d", stalled.Name, id)
	waitFor(t, fmt.Sprintf("match %d finished elsewhere", id), 30*time.Second, func() bool { return c.match(s, id).State == store.Finished })
	before := c.match(s, id)
	stalled.Signal(syscall.SIGCONT)
	// The thawed worker finishes its copy and reports it: a duplicate.
	waitFor(t, "the thawed worker announces again", 60*time.Second, func() bool {
		for _, w := range c.roster() {
			if w.Name == stalled.Name && !slices.Contains(w.Current, id) {
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
// workers' test hook crash-on makes them exit when it starts) ends, after a
// bounded number of deliveries, as a failed, unrated match with a reason,
// and the service goes on.
func TestPoisonJob(t *testing.T) {
	c := newCluster(t, 23230, "127.0.0.1:23231")
	const poison = 3
	crashy := func() *clitest.Proc { return c.startWorker(fmt.Sprint("crash-on=", poison)) }
	workers := []*clitest.Proc{crashy(), crashy()}
	s := c.store()
	crashes := 0
	// Each crash costs a lease's lapse (three ack waits) before the job is
	// issued again, and a new worker's start.
	deadline := time.Now().Add(90 * time.Second)
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
			if w.Exited() {
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
	c := newCluster(t, 23240, "127.0.0.1:23241")
	c.startWorker("")
	c.startWorker("")
	s := c.store()
	waitFor(t, "3 matches finished", 40*time.Second, func() bool { return finishedCount(t, s) >= 3 })
	c.server.Kill()
	interrupted, err := s.Matches(context.Background(), store.MatchFilter{Live: true, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	c.startServer()
	n := finishedCount(t, s)
	waitFor(t, "both workers back in the list", 20*time.Second, func() bool { return len(c.roster()) == 2 })
	waitFor(t, "3 more matches after the restart", 40*time.Second, func() bool { return finishedCount(t, s) >= n+3 })
	for _, w := range c.workers {
		if w.Exited() {
			t.Fatalf("worker %s exited across the restart", w.Name)
		}
	}
	// Matches the kill interrupted are run again, not stuck.
	for _, m := range interrupted {
		waitFor(t, fmt.Sprintf("interrupted match %d ends", m.ID), 30*time.Second, func() bool { return c.match(s, m.ID).State == store.Finished })
	}
	exactlyOnce(t, s)
}

// TestDeterminismMismatch: every finished match is run a second time on
// the other worker and the replays compared; one worker (its test hook
// perturb-checks) plays its checks differently. The matches it checks are
// marked "mismatch" in the store and the API, counted in /metrics and
// logged; those the other worker checks are marked "checked".
func TestDeterminismMismatch(t *testing.T) {
	c := newCluster(t, 23250, "127.0.0.1:23251", "--check-every", "1")
	c.startWorker("")
	c.startWorker("perturb-checks")
	s := c.store()
	const checks = `arena_determinism_checks_total`
	mismatch := checks + `{outcome="mismatch",where="other"}`
	same := checks + `{outcome="same",where="other"}`
	waitFor(t, "a mismatch and an agreement counted", 60*time.Second, func() bool {
		return metric(t, c.base, mismatch) >= 1 && metric(t, c.base, same) >= 1
	})
	// A check is marked in the store before it is counted: the marks read
	// after the counts are at least as many.
	counted := map[string]float64{store.DeterminismMismatch: metric(t, c.base, checks+`{outcome="mismatch"`),
		store.DeterminismChecked: metric(t, c.base, checks+`{outcome="same"`)}
	marked := map[string][]int64{}
	ms, err := s.Matches(context.Background(), store.MatchFilter{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		marked[m.Determinism] = append(marked[m.Determinism], m.ID)
	}
	for outcome, n := range counted {
		if float64(len(marked[outcome])) < n {
			t.Errorf("%v checks counted %q, %d matches marked so: %v", n, outcome, len(marked[outcome]), marked[outcome])
		}
	}
	for outcome, ids := range marked {
		if outcome != "" && outcome != store.DeterminismChecked && outcome != store.DeterminismMismatch {
			t.Errorf("matches %v marked %q", ids, outcome)
		}
	}
	for _, outcome := range []string{store.DeterminismMismatch, store.DeterminismChecked} {
		id := marked[outcome][0]
		var m struct {
			State       string
			Determinism *string
		}
		getJSON(t, fmt.Sprintf("%s/api/v1/matches/%d", c.base, id), &m)
		if m.State != store.Finished || m.Determinism == nil || *m.Determinism != outcome {
			t.Errorf("GET match %d: state %q, determinism %v; want finished, %q", id, m.State, m.Determinism, outcome)
		}
	}
	bad := marked[store.DeterminismMismatch][0]
	waitFor(t, fmt.Sprintf("the mismatch of match %d logged", bad), 60*time.Second, func() bool {
		return logHas(filepath.Join(c.dir, "serve.log"), bad, "ERROR", "DETERMINISM")
	})
	// A mismatch says something about a worker, not about the match: its
	// result and ratings stand, counted once.
	exactlyOnce(t, s)
}

// logHas reports whether a log (log/slog text) has a line of the level
// about the match that contains text.
func logHas(path string, match int64, level, text string) bool {
	data, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, " level="+level+" ") && strings.Contains(line+" ", fmt.Sprintf(" match=%d ", match)) && strings.Contains(line, text) {
			return true
		}
	}
	return false
}

// workerInfo is the server's entry for the worker of this name, or nil.
func (c *cluster) workerInfo(name string) *jobs.WorkerInfo {
	for _, w := range c.roster() {
		if w.Name == name {
			return &w
		}
	}
	return nil
}

// getJSON decodes a 200 answer of the API.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestWorkerRefusedByAuthorizationExits: a worker whose password NATS
// refuses ends within 10 s, with status 1 and one line that says so,
// rather than retry a closed connection forever.
func TestWorkerRefusedByAuthorizationExits(t *testing.T) {
	c := newCluster(t, 23280, "127.0.0.1:23281")
	creds, err := jobs.ReadCreds(filepath.Join(c.dir, jobs.CredsFile))
	if err != nil {
		t.Fatal(err)
	}
	creds.Password = "not-the-password"
	bad := filepath.Join(t.TempDir(), "bad.creds")
	if err := jobs.WriteCreds(bad, creds); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, arenaBin, "worker", "--creds", bad, "--cache", t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	var exit *exec.ExitError
	if ctx.Err() != nil || !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("after %v: %v (context: %v); stderr:\n%s", time.Since(start), err, ctx.Err(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "refused the worker's credentials") || strings.Contains(stderr.String(), "connection closed") {
		t.Fatalf("stderr:\n%s", stderr.String())
	}
	t.Logf("exit 1 after %v: %s", time.Since(start), last)
}
