package jobs

import (
	"context"
	"strings"
	"testing"
	"time"
)

// poisonLog is a lease backend for which every match is live; it notes the
// matches ended as poison.
type poisonLog struct{ poisoned []string }

func (*poisonLog) Live(context.Context, int64, bool) (bool, error) { return true, nil }
func (b *poisonLog) Poison(_ context.Context, id int64, _ bool, reason string) {
	b.poisoned = append(b.poisoned, reason)
}

// TestLeasesCountLostRunsOnly: hand-backs of stopping workers and a
// restarted server's adoption of leases never count toward the poison
// limit; leases that lapse do, and the third ends the match; a lapsed lease
// renewed before anyone took the match is its worker's again; only the
// current lease's result is accepted.
func TestLeasesCountLostRunsOnly(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	b := &poisonLog{}
	l := NewLeases([]byte("k"), time.Second, b)
	l.now = func() time.Time { return now }
	take := func(worker string, delivered uint64) *Lease {
		t.Helper()
		rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 7, Ticket: l.Ticket(7, false), Delivered: delivered, Worker: worker})
		return rep.Lease
	}
	if rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 7, Ticket: l.Ticket(8, false), Worker: "a"}); rep.Lease != nil {
		t.Fatal("a lease for another match's ticket")
	}
	// Ten hand-backs by stopping workers count nothing.
	for i := range 10 {
		le := take("a", uint64(i+1))
		if le == nil || le.Counted != 0 {
			t.Fatalf("take %d: %+v", i, le)
		}
		l.Handle(ctx, LeaseRequest{Op: LeaseRelease, Worker: "a", Lease: le, Reason: ReleaseStop})
	}
	// A restarted server adopts a lease it signed before.
	le := take("a", 11)
	l2 := NewLeases([]byte("k"), time.Second, b)
	l2.now = l.now
	if rep := l2.Handle(ctx, LeaseRequest{Op: LeaseRenew, Worker: "a", Lease: le}); rep.Lease == nil || rep.Lease.Counted != 0 {
		t.Fatalf("renewal after a restart: %+v", rep)
	}
	// Another worker is refused while the lease holds.
	if other := take("b", 11); other != nil {
		t.Fatal("a second lease while the first holds")
	}
	// The lease lapses; renewed before anyone took the match, it is back.
	now = now.Add(4 * time.Second)
	l.Sweep(ctx)
	if rep := l.Handle(ctx, LeaseRequest{Op: LeaseRenew, Worker: "a", Lease: le}); rep.Lease == nil || rep.Lease.Counted != 0 {
		t.Fatalf("renewal of a lapsed lease nobody took: %+v", rep)
	}
	// Three lapses end the match.
	for i := range 3 {
		now = now.Add(4 * time.Second)
		l.Sweep(ctx)
		if i < 2 {
			if le = take("b", uint64(12+i)); le == nil || le.Counted != i+1 {
				t.Fatalf("take after %d lapses: %+v", i+1, le)
			}
		}
	}
	if len(b.poisoned) != 1 || !strings.Contains(b.poisoned[0], "3 times") {
		t.Fatalf("poisoned: %q", b.poisoned)
	}
	if take("c", 20) != nil {
		t.Fatal("a lease for a poison match")
	}
	// Only the current lease's result counts.
	le9 := func(worker string) *Lease {
		rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 9, Ticket: l.Ticket(9, false), Delivered: 1, Worker: worker})
		return rep.Lease
	}
	old := le9("a")
	now = now.Add(4 * time.Second)
	cur := le9("b")
	if err := l.Accept(old, 9, false); err == nil {
		t.Fatal("accepted a superseded lease")
	}
	forged := *cur
	forged.Worker = "c"
	if err := l.Accept(&forged, 9, false); err == nil {
		t.Fatal("accepted a lease whose worker was changed")
	}
	if err := l.Accept(cur, 9, false); err != nil {
		t.Fatal(err)
	}
	// Once recorded, the match is over for every other lease, and the
	// result sent again (a retry) is still the current lease's.
	l.End(cur)
	if err := l.Accept(old, 9, false); err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("a lease's result after the match was recorded: %v", err)
	}
	if err := l.Accept(cur, 9, false); err != nil {
		t.Fatal(err)
	}
	if le9("c") != nil {
		t.Fatal("a lease for a match that is over")
	}
}
