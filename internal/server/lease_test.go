package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/clitest"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/worker"
)

// freeAddr is a local address no one listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// joined is a server that runs no match itself, open to workers on a NATS
// port, and a connection to it with the worker credentials it wrote.
func joined(t *testing.T) (*running, *jobs.Queue) {
	t.Helper()
	r := start(t, store.SQLite, func(o *server.Options) {
		o.NoMatchmaker = true
		o.NATS = server.NATSOptions{Listen: freeAddr(t), NoWorkers: true}
	})
	c, err := jobs.ReadCreds(filepath.Join(r.dir, jobs.CredsFile))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := jobs.Dial(c.URL, c, "test-worker")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := jobs.Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	return r, q
}

// challenge schedules an unrated match between the first two house bots of
// Dots and Boxes.
func challenge(t *testing.T, r *running, seed uint64) int64 {
	t.Helper()
	ctx := context.Background()
	bots, err := r.Srv.Store().ActiveBots(ctx, "dots-and-boxes")
	if err != nil || len(bots) < 2 {
		t.Fatalf("house bots: %v, %v", bots, err)
	}
	id, err := r.Srv.Challenge(ctx, "dots-and-boxes", []int64{bots[0].ID, bots[1].ID}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// nextJob takes the next job off the workers' queue, as a worker would,
// and checks that it is match id's.
func nextJob(t *testing.T, q *jobs.Queue, id int64) (jetstream.Msg, jobs.Job) {
	t.Helper()
	msg, err := q.Jobs.Next(jetstream.FetchMaxWait(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var j jobs.Job
	if err := json.Unmarshal(msg.Data(), &j); err != nil || j.MatchID != id {
		t.Fatalf("job %+v, %v; want match %d's", j, err, id)
	}
	return msg, j
}

// waitEnded waits until the match is neither queued nor running.
func waitEnded(t *testing.T, s *store.Store, id int64, within time.Duration) store.Match {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		m, err := s.Match(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if m.State != store.Queued && m.State != store.Running {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("match %d still %s after %v", id, m.State, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runWorker runs an honest worker on q until ctx ends; the function it
// returns waits for that.
func runWorker(t *testing.T, ctx context.Context, q *jobs.Queue) (wait func()) {
	t.Helper()
	p, err := worker.New(q, worker.Options{Workers: 1, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func waitMetric(t *testing.T, base, prefix string, atLeast float64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for clitest.Metric(t, base, prefix) < atLeast {
		if time.Now().After(deadline) {
			t.Fatalf("%s is %v after 30 s, want at least %v", prefix, clitest.Metric(t, base, prefix), atLeast)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestForgedResultsAreRefused: with a worker's credentials, results and
// failures for a match never handed to them (queued, or not yet made), or
// with a lease they forged, are refused, counted and change nothing; the
// real worker's run of the same matches is then recorded, and no match is
// left running.
func TestForgedResultsAreRefused(t *testing.T) {
	r, q := joined(t)
	st := r.Srv.Store()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	queued := challenge(t, r, 11)
	future := queued + 1
	fake := &jobs.Lease{MatchID: queued, Attempt: 1, Worker: "me", ID: "00", Sig: strings.Repeat("ab", 32)}
	for _, res := range []jobs.Result{
		{MatchID: queued, Turns: 3, Seats: []jobs.SeatResult{{Score: 9, Place: 1}, {Score: 0, Place: 2}}},
		{MatchID: queued, Turns: 3, Seats: []jobs.SeatResult{{Score: 9, Place: 1}, {Score: 0, Place: 2}}, Lease: fake},
		{MatchID: future, Error: "forged failure"},
	} {
		if _, err := q.PublishResult(ctx, res); err != nil {
			t.Fatal(err)
		}
	}
	waitMetric(t, r.URL, `arena_results_refused_total{reason="lease"}`, 3)
	if m, err := st.Match(ctx, queued); err != nil || m.State != store.Queued {
		t.Fatalf("after the forged results, match %d: %+v, %v", queued, m, err)
	}
	if _, err := st.Match(ctx, future); err == nil {
		t.Fatalf("match %d exists before it was made", future)
	}
	if got := challenge(t, r, 12); got != future {
		t.Fatalf("the next match is %d, want %d", got, future)
	}
	defer runWorker(t, ctx, q)()
	for _, id := range []int64{queued, future} {
		if m := waitEnded(t, st, id, 60*time.Second); m.State != store.Finished || m.Turns == 3 {
			t.Fatalf("match %d ended %s (%s) after %d turns", id, m.State, m.Reason, m.Turns)
		}
	}
}

// TestResultOfAnotherMatchIsRefused: a worker that holds a match's lease
// but reports a replay of another seed, or with another bot in a seat, is
// refused; its run counts as lost and the match runs again, on an honest
// worker, with the right seed and bots.
func TestResultOfAnotherMatchIsRefused(t *testing.T) {
	r, q := joined(t)
	st := r.Srv.Store()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cache, err := worker.NewCache(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := games.Lookup("dots-and-boxes")
	if err != nil {
		t.Fatal(err)
	}
	// The hostile worker plays each job it takes wrongly, in one of two
	// ways, and reports the result with its genuine lease.
	cheat := func(j jobs.Job, le *jobs.Lease, otherSeed bool) jobs.Result {
		fetch := func(ctx context.Context, sha string) ([]byte, error) {
			return jobs.FetchModule(ctx, q.JS.Conn(), *le, le.Worker, sha)
		}
		specs := make([]string, len(j.Seats))
		for i, s := range j.Seats {
			specs[i] = s.Builtin
			if s.Wasm != "" {
				path, err := cache.Path(ctx, s.Wasm, fetch)
				if err != nil {
					t.Fatal(err)
				}
				specs[i] = "wasm:" + path
			}
		}
		seed := j.Seed
		if otherSeed {
			seed++
		} else {
			specs[0] = "builtin:random"
		}
		var rn match.Runner
		rep, err := rn.Play(ctx, g, game.Config{Seed: seed, Players: len(specs), Params: game.Params(j.Params)}, local.Seats(spec.MustParseAll(specs...)))
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range j.Seats {
			if s.Wasm != "" && (i != 0 || otherSeed) {
				rep.Bots[i].Spec = "wasm:" + s.Wasm
			}
		}
		data, err := rep.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return *worker.Summarize(j.MatchID, g, rep, data, nil, time.Second)
	}
	ids := []int64{challenge(t, r, 21), challenge(t, r, 22)}
	for n := range ids {
		msg, err := q.Jobs.Next(jetstream.FetchMaxWait(10 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		var j jobs.Job
		if err := json.Unmarshal(msg.Data(), &j); err != nil {
			t.Fatal(err)
		}
		rep, err := jobs.RequestLease(ctx, q.JS.Conn(), jobs.LeaseRequest{Op: jobs.LeaseTake, MatchID: j.MatchID, Ticket: j.Ticket, Gen: j.Rerun,
			Modules: j.Modules(), Worker: "cheat"})
		if err != nil || rep.Lease == nil {
			t.Fatalf("lease of match %d: %+v, %v", j.MatchID, rep, err)
		}
		res := cheat(j, rep.Lease, n == 0)
		res.Lease = rep.Lease
		if _, err := q.PublishResult(ctx, res); err != nil {
			t.Fatal(err)
		}
		msg.Ack()
	}
	waitMetric(t, r.URL, `arena_results_refused_total{reason="replay"}`, 2)
	for _, id := range ids {
		if m, err := st.Match(ctx, id); err != nil || (m.State != store.Queued && m.State != store.Running) {
			t.Fatalf("after the cheat, match %d: %+v, %v", id, m, err)
		}
	}
	defer runWorker(t, ctx, q)()
	for _, id := range ids {
		m := waitEnded(t, st, id, 60*time.Second)
		if m.State != store.Finished {
			t.Fatalf("match %d ended %s: %s", id, m.State, m.Reason)
		}
		data, err := st.Replay(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), fmt.Sprintf(`"seed":%d`, m.Seed)) {
			t.Fatalf("match %d recorded a replay of another seed", id)
		}
	}
}
