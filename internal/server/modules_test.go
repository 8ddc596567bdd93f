package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/clitest"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
)

// TestModulesOnlyForTheLeaseHolder: with a worker's credentials (real NATS,
// the creds file the server wrote), the modules of a job are served to the
// holder of its current lease and to no one else: not without a lease, not
// with a lease whose module list was edited, not a module of another job,
// not after the lease was handed back. Each refusal is counted. The object
// store is closed to these credentials (TestWorkerPermissions); an honest
// worker, which fetches its modules this way, then plays the match.
func TestModulesOnlyForTheLeaseHolder(t *testing.T) {
	r, q := joined(t)
	st := r.Srv.Store()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id := challenge(t, r, 31)
	msg, j := nextJob(t, q, id)
	mods := j.Modules()
	if len(mods) == 0 {
		t.Fatalf("match %d's job names no module: %+v", id, j.Seats)
	}
	// A module of another game's house bot: in the store, not in this job.
	grid, err := st.ActiveBots(ctx, "grid-royale")
	if err != nil || len(grid) == 0 {
		t.Fatalf("grid-royale house bots: %v, %v", grid, err)
	}
	v, err := st.Version(ctx, grid[0].ActiveVersion)
	if err != nil || v.SHA256 == "" {
		t.Fatalf("a grid-royale house version with a module: %+v, %v", v, err)
	}
	other := v.SHA256
	nc := q.JS.Conn()
	const me = "worker-under-test"
	refused := func(what string, le jobs.Lease, worker, sha string) {
		t.Helper()
		data, err := jobs.FetchModule(ctx, nc, le, worker, sha)
		if !errors.Is(err, jobs.ErrModuleRefused) || data != nil {
			t.Fatalf("%s: %d bytes, %v; want refused", what, len(data), err)
		}
	}
	refused("without a lease", jobs.Lease{}, me, mods[0])
	rep, err := jobs.RequestLease(ctx, nc, jobs.LeaseRequest{Op: jobs.LeaseTake, MatchID: j.MatchID, Ticket: j.Ticket, Gen: j.Rerun, Modules: mods, Worker: me})
	if err != nil || rep.Lease == nil {
		t.Fatalf("lease: %+v, %v", rep, err)
	}
	le := *rep.Lease
	data, err := jobs.FetchModule(ctx, nc, le, me, mods[0])
	if sum := sha256.Sum256(data); err != nil || hex.EncodeToString(sum[:]) != mods[0] {
		t.Fatalf("the lease holder's module: %d bytes, %v", len(data), err)
	}
	refused("another job's module", le, me, other)
	edited := le
	edited.Modules = append([]string{other}, le.Modules...)
	refused("a lease with another module written in", edited, me, other)
	refused("the lease under another worker's name", le, "someone-else", mods[0])
	// Handed back: the lease is no longer current.
	jobs.RequestLease(ctx, nc, jobs.LeaseRequest{Op: jobs.LeaseRelease, MatchID: j.MatchID, Worker: me, Lease: &le, Reason: jobs.ReleaseStop})
	refused("after the hand-back", le, me, mods[0])
	msg.Nak()
	const m = `arena_module_requests_refused_total`
	if n := clitest.Metric(t, r.URL, m+`{reason="lease"}`); n != 4 {
		t.Errorf("%s{reason=\"lease\"} = %v, want 4", m, n)
	}
	if n := clitest.Metric(t, r.URL, m+`{reason="module"}`); n != 1 {
		t.Errorf("%s{reason=\"module\"} = %v, want 1", m, n)
	}
	defer runWorker(t, ctx, q)()
	if got := waitEnded(t, st, id, 60*time.Second); got.State != store.Finished {
		t.Fatalf("match %d ended %s: %s", id, got.State, got.Reason)
	}
}
