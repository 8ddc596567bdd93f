package worker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox/wasmtest"
	"github.com/arenabots/arena/worker"
)

// testQueue is a job queue with a lease service and a module service, as
// a server runs them (the modules read from the object store here); its
// Publish signs jobs as the server does.
type testQueue struct {
	*jobs.Queue
	leases *jobs.Leases
}

func (q testQueue) Publish(ctx context.Context, j jobs.Job) error {
	q.leases.Sign(&j)
	return q.Queue.Publish(ctx, j)
}

// module reads a module from the object store.
func (q testQueue) module(ctx context.Context, sha string) ([]byte, error) {
	return q.Wasm.GetBytes(ctx, sha)
}

// everyMatchLive is a lease backend for which every match is to be run.
type everyMatchLive struct{}

func (everyMatchLive) Live(context.Context, int64, bool) (bool, error) { return true, nil }
func (everyMatchLive) Poison(context.Context, int64, bool, string)     {}
func (everyMatchLive) Reissue(context.Context, int64, bool, int)       {}

func queue(t *testing.T) testQueue {
	t.Helper()
	nc := worker.InProcessNATS(t)
	q, err := jobs.Setup(context.Background(), nc, jobs.Config{AckWait: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	l := jobs.NewLeases([]byte("test key"), q.AckWait, everyMatchLive{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := l.Serve(ctx, nc); err != nil {
		t.Fatal(err)
	}
	tq := testQueue{q, l}
	if err := l.ServeModules(ctx, nc, tq.module, 0, nil); err != nil {
		t.Fatal(err)
	}
	return tq
}

// results collects n results, keyed by match id.
func results(t *testing.T, q *jobs.Queue, n int, timeout time.Duration) map[int64]jobs.Result {
	t.Helper()
	out := map[int64]jobs.Result{}
	deadline := time.Now().Add(timeout)
	for len(out) < n && time.Now().Before(deadline) {
		msg, err := q.Results.Next(jetstream.FetchMaxWait(time.Second))
		if err != nil {
			continue
		}
		r, err := jobs.DecodeResult(msg.Data())
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := out[r.MatchID]; dup {
			t.Errorf("match %d reported twice", r.MatchID)
		}
		out[r.MatchID] = r
		msg.Ack()
	}
	if len(out) < n {
		t.Fatalf("%d results of %d within %v: %+v", len(out), n, timeout, out)
	}
	return out
}

// putModule puts the module at path in the object store (whence the
// test's module service reads it) and returns its
// sha256 and bytes.
func putModule(t *testing.T, q testQueue, path string) (string, []byte) {
	t.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(wasm)
	sha := hex.EncodeToString(sum[:])
	if err := q.PutWasm(context.Background(), sha, wasm); err != nil {
		t.Fatal(err)
	}
	return sha, wasm
}

func TestWorkerRunsJobs(t *testing.T) {
	q := queue(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sha, _ := putModule(t, q, wasmtest.GoBuild(t, "../games/dotsandboxes/kits/go/dots-and-boxes", ""))
	missing := hex.EncodeToString(make([]byte, 32))
	for _, j := range []jobs.Job{
		{MatchID: 1, Game: "dots-and-boxes", Seed: 3, Seats: []jobs.Seat{{Builtin: "builtin:greedy"}, {Builtin: "builtin:random"}}},
		{MatchID: 2, Game: "dots-and-boxes", Seed: 4, Seats: []jobs.Seat{{Wasm: sha}, {Builtin: "builtin:greedy"}}},
		{MatchID: 3, Game: "no-such-game", Seats: []jobs.Seat{{Builtin: "builtin:x"}}},
		{MatchID: 4, Game: "dots-and-boxes", Seats: []jobs.Seat{{Wasm: missing}, {Builtin: "builtin:greedy"}}},
		{MatchID: 5, Game: "grid-royale", Seed: 5, Seats: []jobs.Seat{{Builtin: "builtin:idle"}, {Builtin: "builtin:harvester"}, {Builtin: "builtin:idle"}, {Builtin: "builtin:house"}}},
	} {
		if err := q.Publish(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	// Publishing the same match again adds nothing.
	if err := q.Publish(ctx, jobs.Job{MatchID: 1, Game: "dots-and-boxes"}); err != nil {
		t.Fatal(err)
	}
	// Live turns of match 2 are published as it runs.
	live := make(chan []byte, 1000)
	sub, err := q.JS.Conn().Subscribe(jobs.LiveSubject(2), func(m *nats.Msg) { live <- m.Data })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	cacheDir := t.TempDir()
	p, err := worker.New(q.Queue, worker.Options{Workers: 2, CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	got := results(t, q.Queue, 5, 60*time.Second)
	cancel()
	<-done

	r1 := got[1]
	if r1.Error != "" || r1.Turns == 0 || len(r1.Seats) != 2 {
		t.Fatalf("match 1: %+v", r1)
	}
	rep, err := replay.Parse(r1.Replay)
	if err != nil || rep.Seed != 3 {
		t.Fatalf("match 1 replay: %v", err)
	}
	places := map[int]bool{r1.Seats[0].Place: true, r1.Seats[1].Place: true}
	if !places[1] {
		t.Fatalf("no winner: %+v", r1.Seats)
	}
	r2 := got[2]
	if r2.Error != "" || r2.Seats[0].Statuses["ok"] == 0 || r2.Seats[0].Fuel == 0 || r2.Seats[0].Answers == 0 {
		t.Fatalf("wasm match: %+v", r2.Seats)
	}
	if _, err := os.Stat(filepath.Join(cacheDir, sha+".wasm")); err != nil {
		t.Fatalf("module not cached: %v", err)
	}
	if got[3].Error == "" || got[4].Error == "" {
		t.Fatalf("poison jobs: %+v %+v", got[3], got[4])
	}
	if len(got[5].Seats) != 4 {
		t.Fatalf("4-player match: %+v", got[5])
	}
	// Every turn of match 2 was published, in order, in batches under the
	// lease its result was reported with.
	var turns []jobs.LiveTurn
	for len(live) > 0 {
		le, batch, err := jobs.DecodeTurns(<-live)
		if err != nil {
			t.Fatal(err)
		}
		if r2.Lease == nil || le.ID != r2.Lease.ID || le.Sig != r2.Lease.Sig || le.MatchID != 2 {
			t.Fatalf("live batch under lease %+v; the result's is %+v", le, r2.Lease)
		}
		turns = append(turns, batch...)
	}
	if int64(len(turns)) != r2.Turns {
		t.Fatalf("%d live turns, the match had %d", len(turns), r2.Turns)
	}
	for i, tu := range turns {
		var rt replay.Turn
		if err := json.Unmarshal(tu.JSON, &rt); err != nil || tu.N != i+1 || rt.Turn != i+1 {
			t.Fatalf("live turn %d: number %d, %v, %.80q", i+1, tu.N, err, tu.JSON)
		}
	}
	if n, _ := q.Pending(context.Background()); n != 0 {
		t.Fatalf("%d jobs left", n)
	}
}

func TestCacheEvicts(t *testing.T) {
	q := queue(t)
	ctx := context.Background()
	dir := t.TempDir()
	c, err := worker.NewCache(dir, 250)
	if err != nil {
		t.Fatal(err)
	}
	var shas []string
	for i := range 4 {
		data := make([]byte, 100)
		data[0] = byte(i)
		sum := sha256.Sum256(data)
		sha := hex.EncodeToString(sum[:])
		shas = append(shas, sha)
		if err := q.PutWasm(ctx, sha, data); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Path(ctx, sha, q.module); err != nil {
			t.Fatal(err)
		}
	}
	if c.Size() > 250 {
		t.Fatalf("cache holds %d bytes, bound 250", c.Size())
	}
	if _, err := os.Stat(filepath.Join(dir, shas[0]+".wasm")); !os.IsNotExist(err) {
		t.Fatal("the oldest module was kept")
	}
	if _, err := os.Stat(filepath.Join(dir, shas[3]+".wasm")); err != nil {
		t.Fatal("the newest module was evicted")
	}
	if _, err := c.Path(ctx, "../../etc/passwd", q.module); err == nil {
		t.Fatal("accepted a path as a module id")
	}
}

// TestCorruptCacheEntryIsFetchedAgain: a cache file named after one bot's
// module but holding another bot's bytes is deleted and fetched again; the
// match plays the module the job names.
func TestCorruptCacheEntryIsFetchedAgain(t *testing.T) {
	q := queue(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var shas []string
	var mods [][]byte
	for _, dir := range []string{"../games/dotsandboxes/kits/go/dots-and-boxes", "../games/dotsandboxes/kits/go/dots-and-boxes-search"} {
		sha, wasm := putModule(t, q, wasmtest.GoBuild(t, dir, ""))
		shas, mods = append(shas, sha), append(mods, wasm)
	}
	cacheDir := t.TempDir()
	entry := filepath.Join(cacheDir, shas[0]+".wasm")
	if err := os.WriteFile(entry, mods[1], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := q.Publish(ctx, jobs.Job{MatchID: 1, Game: "dots-and-boxes", Seed: 3, Seats: []jobs.Seat{{Wasm: shas[0]}, {Builtin: "builtin:greedy"}}}); err != nil {
		t.Fatal(err)
	}
	p, err := worker.New(q.Queue, worker.Options{Workers: 1, CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	r := results(t, q.Queue, 1, 60*time.Second)[1]
	cancel()
	<-done
	rep, err := replay.Parse(r.Replay)
	if err != nil {
		t.Fatalf("result %+v: %v", r, err)
	}
	if rep.Bots[0].SHA256 != shas[0] {
		t.Fatalf("seat 0 played module %s, the job names %s", rep.Bots[0].SHA256, shas[0])
	}
	if data, err := os.ReadFile(entry); err != nil || sha256.Sum256(data) != sha256.Sum256(mods[0]) {
		t.Fatalf("the cache entry still holds other bytes (%v)", err)
	}
}

// TestStopMidCompile: a worker stopped while it compiles slow modules (about
// 10 s each; one compile waits for the other) stops within seconds: the
// compile's child process ends with the worker's context.
func TestStopMidCompile(t *testing.T) {
	q := queue(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for id := range int64(2) {
		// Nested empty ifs are quadratic in wazero's compiler
		// (docs/sandbox.md); the constant keeps every cache from knowing it.
		slow := wasmtest.Echo{Turn: wasmtest.Cat(wasmtest.I64(time.Now().UnixNano()+id), wasmtest.Drop,
			wasmtest.Repeat(wasmtest.Cat(wasmtest.I32(0), wasmtest.If, wasmtest.End), 8000))}.Module()
		sum := sha256.Sum256(slow)
		sha := hex.EncodeToString(sum[:])
		if err := q.PutWasm(ctx, sha, slow); err != nil {
			t.Fatal(err)
		}
		if err := q.Publish(ctx, jobs.Job{MatchID: id + 1, Game: "dots-and-boxes", Seats: []jobs.Seat{{Wasm: sha}, {Builtin: "builtin:greedy"}}}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := worker.New(q.Queue, worker.Options{Workers: 2, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	for deadline := time.Now().Add(30 * time.Second); len(p.Announcement().Current) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the worker did not start both matches within 30 s")
		}
	}
	time.Sleep(time.Second) // well into the first compile
	start := time.Now()
	cancel()
	select {
	case <-done:
		t.Logf("stopped %v after the signal", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatal("the worker did not stop within 5 s of the signal")
	}
}
