package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/clitest"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
)

// TestLiveTurnsOnlyFromTheLeaseHolder: with a worker's credentials (real
// NATS, the creds file the server wrote), which may publish on every live
// subject, a batch of live turns shows in the match's live stream only
// under the match's current lease: not one without a lease (as workers
// before leases on live turns sent them), nor under a forged, edited or
// another match's lease, nor after the lease was handed back. None of those
// marks the match running; each is counted. The holder's turn then shows,
// and marks it running.
func TestLiveTurnsOnlyFromTheLeaseHolder(t *testing.T) {
	r, q := joined(t)
	st := r.Srv.Store()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id := challenge(t, r, 41)
	other := challenge(t, r, 42)
	msg, j := nextJob(t, q, id)
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/matches/%d/live", r.URL, id))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	stream := bufio.NewReader(resp.Body)
	for line := ""; !strings.HasPrefix(line, "event: turns"); {
		if line, err = stream.ReadString('\n'); err != nil {
			t.Fatalf("stream ended before its turns so far: %v", err)
		}
	}

	nc := q.JS.Conn()
	const me = "worker-under-test"
	turn := func(who string) []byte { return fmt.Appendf(nil, `{"turn":1,"seats":[],"hash":%q}`, who) }
	batch := func(le jobs.Lease, who string) []byte {
		h, err := jobs.LiveHeader(le)
		if err != nil {
			t.Fatal(err)
		}
		return jobs.AppendTurn(h, 1, turn(who))
	}
	publish := func(match int64, data []byte) {
		t.Helper()
		if err := nc.Publish(jobs.LiveSubject(match), data); err != nil {
			t.Fatal(err)
		}
	}
	publish(id, turn("no lease"))
	publish(id, jobs.AppendTurn([]byte{'T'}, 1, turn("no lease, a batch")))
	publish(id, batch(jobs.Lease{MatchID: id, Worker: me}, "unsigned"))
	rep, err := jobs.RequestLease(ctx, nc, jobs.LeaseRequest{Op: jobs.LeaseTake, MatchID: j.MatchID, Ticket: j.Ticket, Gen: j.Rerun, Modules: j.Modules(), Worker: me})
	if err != nil || rep.Lease == nil {
		t.Fatalf("lease: %+v, %v", rep, err)
	}
	le := *rep.Lease
	publish(other, batch(le, "another match's lease"))
	edited := le
	edited.MatchID = other
	publish(other, batch(edited, "edited to another match"))
	forged := le
	forged.Sig = strings.Repeat("0", len(le.Sig))
	publish(id, batch(forged, "forged"))
	jobs.RequestLease(ctx, nc, jobs.LeaseRequest{Op: jobs.LeaseRelease, MatchID: j.MatchID, Worker: me, Lease: &le, Reason: jobs.ReleaseStop})
	publish(id, batch(le, "handed back"))
	const refused = 7
	waitMetric(t, r.URL, "arena_live_batches_refused_total", refused)
	time.Sleep(300 * time.Millisecond) // longer than the server waits to mark matches running
	for _, m := range []int64{id, other} {
		if got, err := st.Match(ctx, m); err != nil || got.State != store.Queued {
			t.Fatalf("match %d after refused live turns: %s, %v; want queued", m, got.State, err)
		}
	}

	rep, err = jobs.RequestLease(ctx, nc, jobs.LeaseRequest{Op: jobs.LeaseTake, MatchID: j.MatchID, Ticket: j.Ticket, Gen: j.Rerun, Modules: j.Modules(), Worker: me})
	if err != nil || rep.Lease == nil {
		t.Fatalf("lease again: %+v, %v", rep, err)
	}
	publish(id, batch(*rep.Lease, "holder"))
	var events []string
	for len(events) < 1 {
		line, err := stream.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before a turn: %v", err)
		}
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, `"turn":1`) {
			events = append(events, line)
		}
	}
	if !strings.Contains(events[0], `"hash":"holder"`) {
		t.Fatalf("the stream's first turn is %q, want the lease holder's", events[0])
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := st.Match(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.State == store.Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("match %d is %s after the holder's turn, want running", id, got.State)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := clitest.Metric(t, r.URL, "arena_live_batches_refused_total"); n != refused {
		t.Errorf("arena_live_batches_refused_total = %v, want %d", n, refused)
	}
	msg.Nak()
}
