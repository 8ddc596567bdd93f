package jobs

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// poisonLog is a lease backend for which every match is live; it notes the
// matches ended as poison and the jobs issued again.
type poisonLog struct {
	poisoned []string
	reissued []int // generations
}

func (*poisonLog) Live(context.Context, int64, bool) (bool, error) { return true, nil }
func (b *poisonLog) Poison(_ context.Context, id int64, _ bool, reason string) {
	b.poisoned = append(b.poisoned, reason)
}
func (b *poisonLog) Reissue(_ context.Context, id int64, _ bool, gen int) {
	b.reissued = append(b.reissued, gen)
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
	gen := 0
	take := func(worker string) *Lease {
		t.Helper()
		rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 7, Ticket: l.Ticket(7, false, gen, nil), Gen: gen, Worker: worker})
		return rep.Lease
	}
	if rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 7, Ticket: l.Ticket(8, false, 0, nil), Worker: "a"}); rep.Lease != nil {
		t.Fatal("a lease for another match's ticket")
	}
	// Ten hand-backs by stopping workers count nothing.
	for i := range 10 {
		le := take("a")
		if le == nil || le.Counted != 0 {
			t.Fatalf("take %d: %+v", i, le)
		}
		l.Handle(ctx, LeaseRequest{Op: LeaseRelease, Worker: "a", Lease: le, Reason: ReleaseStop})
	}
	// A restarted server adopts a lease it signed before.
	le := take("a")
	l2 := NewLeases([]byte("k"), time.Second, b)
	l2.now = l.now
	if rep := l2.Handle(ctx, LeaseRequest{Op: LeaseRenew, Worker: "a", Lease: le}); rep.Lease == nil || rep.Lease.Counted != 0 {
		t.Fatalf("renewal after a restart: %+v", rep)
	}
	// Another worker is refused while the lease holds.
	if other := take("b"); other != nil {
		t.Fatal("a second lease while the first holds")
	}
	// The lease lapses; renewed before anyone took the match, it is back.
	now = now.Add(4 * time.Second)
	l.Sweep(ctx)
	if rep := l.Handle(ctx, LeaseRequest{Op: LeaseRenew, Worker: "a", Lease: le}); rep.Lease == nil || rep.Lease.Counted != 0 {
		t.Fatalf("renewal of a lapsed lease nobody took: %+v", rep)
	}
	// Three lapses end the match. After each of the first two the job is
	// issued again, and only the new generation's ticket takes it.
	if len(b.reissued) != 1 {
		t.Fatalf("after a lapse, jobs issued again: %v", b.reissued)
	}
	b.reissued, gen = nil, 1
	for i := range 3 {
		now = now.Add(4 * time.Second)
		l.Sweep(ctx)
		if i < 2 {
			if len(b.reissued) != i+1 || b.reissued[i] != gen+1 {
				t.Fatalf("after %d lapses, jobs issued again: %v", i+1, b.reissued)
			}
			if stale := take("b"); stale != nil {
				t.Fatalf("a stale job's ticket took the match after %d lapses", i+1)
			}
			gen++
			if le = take("b"); le == nil || le.Counted != i+1 || le.Gen != gen {
				t.Fatalf("take after %d lapses: %+v", i+1, le)
			}
		}
	}
	if len(b.poisoned) != 1 || !strings.Contains(b.poisoned[0], "3 times") {
		t.Fatalf("poisoned: %q", b.poisoned)
	}
	if take("c") != nil {
		t.Fatal("a lease for a poison match")
	}
	// Only the current lease's result counts.
	gen9 := 0
	le9 := func(worker string) *Lease {
		rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 9, Ticket: l.Ticket(9, false, gen9, nil), Gen: gen9, Worker: worker})
		return rep.Lease
	}
	old := le9("a")
	now = now.Add(4 * time.Second)
	l.Sweep(ctx)
	gen9++
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

// TestLeaseIsTheServersRecord: a worker that once held a job (and so its
// ticket) cannot take the match from the worker holding it now, whatever it
// claims; once the holder's lease lapses, the job is issued again and only
// the new job's ticket takes it: the old one is stale, also for the worker
// that held it. A newer generation than the server knows (issued before a
// restart) takes over from an older one.
func TestLeaseIsTheServersRecord(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	b := &poisonLog{}
	l := NewLeases([]byte("k"), time.Second, b)
	l.now = func() time.Time { return now }
	mods := []string{strings.Repeat("a", 64)}
	take := func(worker string, gen int) LeaseReply {
		return l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 5, Ticket: l.Ticket(5, false, gen, mods), Gen: gen, Modules: mods, Worker: worker})
	}
	first := take("hostile", 0)
	if first.Lease == nil {
		t.Fatalf("first take: %+v", first)
	}
	l.Handle(ctx, LeaseRequest{Op: LeaseRelease, Worker: "hostile", Lease: first.Lease, Reason: ReleaseStop})
	honest := take("honest", 0)
	if honest.Lease == nil {
		t.Fatalf("the honest worker's take after a hand-back: %+v", honest)
	}
	// The hostile worker tries again and again, with the ticket it kept,
	// and with the lease it was given (renewing it).
	for range 5 {
		if rep := take("hostile", 0); rep.Lease != nil {
			t.Fatal("a second copy of the job took the match from its holder")
		}
		if rep := l.Handle(ctx, LeaseRequest{Op: LeaseRenew, Worker: "hostile", Lease: first.Lease}); rep.Lease != nil {
			t.Fatal("a released lease was renewed over the holder's")
		}
	}
	// Nor by claiming a newer generation with the ticket it has.
	if rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 5, Ticket: l.Ticket(5, false, 0, mods), Gen: 1, Modules: mods, Worker: "hostile"}); rep.Lease != nil {
		t.Fatal("a ticket of one generation took the match as another")
	}
	// Its tries changed nothing: the honest worker's result counts.
	if err := l.Accept(honest.Lease, 5, false); err != nil {
		t.Fatal(err)
	}
	if err := l.Accept(first.Lease, 5, false); err == nil {
		t.Fatal("the hostile worker's old lease was accepted")
	}
	// The holder dies: its lease lapses, the job is issued again.
	now = now.Add(4 * time.Second)
	l.Sweep(ctx)
	if len(b.reissued) != 1 || b.reissued[0] != 1 {
		t.Fatalf("jobs issued again: %v", b.reissued)
	}
	for _, w := range []string{"hostile", "honest"} {
		if rep := take(w, 0); rep.Lease != nil || !rep.Drop {
			t.Fatalf("%s's take with the stale ticket: %+v; want refused, dropped", w, rep)
		}
	}
	next := take("third", 1)
	if next.Lease == nil || next.Lease.Counted != 1 || !slices.Equal(next.Lease.Modules, mods) {
		t.Fatalf("take with the new ticket: %+v", next)
	}
	// A restarted server knows no generation: an older job's take comes
	// first, then the newer lease's renewal, which wins.
	l2 := NewLeases([]byte("k"), time.Second, b)
	l2.now = l.now
	if rep := l2.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 5, Ticket: l.Ticket(5, false, 0, mods), Gen: 0, Modules: mods, Worker: "hostile"}); rep.Lease == nil {
		t.Fatalf("take after a restart: %+v", rep)
	}
	if rep := l2.Handle(ctx, LeaseRequest{Op: LeaseRenew, Worker: "third", Lease: next.Lease}); rep.Lease == nil || rep.Lease.ID != next.Lease.ID {
		t.Fatalf("the newer generation's renewal after a restart: %+v", rep)
	}
	if rep := l2.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 5, Ticket: l.Ticket(5, false, 0, mods), Gen: 0, Modules: mods, Worker: "hostile"}); rep.Lease != nil || !rep.Drop {
		t.Fatalf("the older generation's take after that: %+v", rep)
	}
	// A ticket's modules are its job's: a take naming others is refused.
	other := []string{strings.Repeat("b", 64)}
	if rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 5, Ticket: l.Ticket(5, false, 1, mods), Gen: 1, Modules: other, Worker: "third"}); rep.Lease != nil {
		t.Fatal("a take naming modules its ticket does not")
	}
}

// TestLiveTurnsOnlyUnderTheCurrentLease: a batch of live turns is taken
// under its match's current lease, also once that lease reported the match
// (the last batch may arrive after the result), and under a lease a
// restarted server signed before; not without one, with a forged or edited
// one, one of another match or of a determinism check, one handed back,
// or one a newer take superseded.
func TestLiveTurnsOnlyUnderTheCurrentLease(t *testing.T) {
	ctx := context.Background()
	l := NewLeases([]byte("k"), time.Second, &poisonLog{})
	take := func(match int64, check bool, worker string) *Lease {
		t.Helper()
		rep := l.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: match, Check: check, Ticket: l.Ticket(match, check, 0, nil), Worker: worker})
		if rep.Lease == nil {
			t.Fatalf("take: %+v", rep)
		}
		return rep.Lease
	}
	ok := func(what string, le *Lease, match int64) {
		t.Helper()
		if err := l.AcceptLive(le, match); err != nil {
			t.Errorf("%s: refused: %v", what, err)
		}
	}
	refused := func(what string, le *Lease, match int64) {
		t.Helper()
		if err := l.AcceptLive(le, match); err == nil || !strings.Contains(err.Error(), "lease") {
			t.Errorf("%s: taken (%v)", what, err)
		}
	}
	le := take(7, false, "a")
	ok("the current lease", le, 7)
	refused("no lease", nil, 7)
	refused("an empty lease", &Lease{}, 7)
	refused("the lease on another match's subject", le, 8)
	edited := *le
	edited.MatchID = 8
	refused("the lease edited to another match", &edited, 8)
	forged := *le
	forged.Sig = strings.Repeat("0", len(le.Sig))
	refused("a forged signature", &forged, 7)
	other := NewLeases([]byte("another key"), time.Second, &poisonLog{})
	foreign := other.Handle(ctx, LeaseRequest{Op: LeaseTake, MatchID: 7, Ticket: other.Ticket(7, false, 0, nil), Worker: "a"}).Lease
	refused("another server's lease", foreign, 7)
	check := take(9, true, "b")
	refused("a determinism check's lease", check, 9)

	l.End(le)
	ok("the lease that reported the match", le, 7)

	held := take(10, false, "a")
	l.Handle(ctx, LeaseRequest{Op: LeaseRelease, Worker: "a", Lease: held, Reason: ReleaseStop})
	refused("a lease handed back", held, 10)
	again := take(10, false, "b")
	ok("the new holder's", again, 10)
	newer := take(10, false, "b")
	refused("a lease its holder's new take superseded", again, 10)
	ok("the newer take", newer, 10)

	restarted := NewLeases([]byte("k"), time.Second, &poisonLog{})
	if err := restarted.AcceptLive(newer, 10); err != nil {
		t.Errorf("a lease signed before a restart: %v", err)
	}
}
