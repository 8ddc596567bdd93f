package server

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/worker"
)

// TestResultsArrivingTogetherAreRecordedInOneTransaction: results taken
// off the stream together are recorded in one write to the store (one
// commit, one move of the lists' generation), each acknowledged; a result
// for a match already recorded, in the same batch, changes nothing.
func TestResultsArrivingTogetherAreRecordedInOneTransaction(t *testing.T) {
	ctx := context.Background()
	s, err := New(ctx, Options{DataDir: t.TempDir(), Addr: "127.0.0.1:0", NoMatchmaker: true,
		NATS: NATSOptions{NoWorkers: true}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	house, err := s.store.AccountByHandle(ctx, core.HouseHandle)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.store.BotByName(ctx, house.ID, "dots-and-boxes", "random")
	b, _ := s.store.BotByName(ctx, house.ID, "dots-and-boxes", "greedy")
	nm := store.NewMatch{Game: "dots-and-boxes", Seed: 1, Kind: store.KindChallenge,
		Seats: []store.SeatRef{{BotID: a.ID, VersionID: a.ActiveVersion}, {BotID: b.ID, VersionID: b.ActiveVersion}}}
	ids, err := s.store.CreateMatches(ctx, []store.NewMatch{nm, nm, nm, nm})
	if err != nil {
		t.Fatal(err)
	}
	// The first is recorded already: its result comes a second time.
	if _, err := s.store.RecordMatch(ctx, store.Result{MatchID: ids[0], Turns: 1, Replay: []byte(`{}`),
		Seats: []store.SeatResult{{Place: 1}, {Place: 2}}}, rate); err != nil {
		t.Fatal(err)
	}
	// Each result is what a worker holding the match's lease reports: the
	// match played (all four are one match: same seed, same modules).
	rep := playSeats(t, s, nm)
	data, err := rep.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := games.Lookup(nm.Game)
	for _, id := range ids {
		r := *worker.Summarize(id, g, rep, data, nil, time.Second)
		lease := s.leases.Handle(ctx, jobs.LeaseRequest{Op: jobs.LeaseTake, MatchID: id, Ticket: s.leases.Ticket(id, false, 0, nil), Worker: "w"})
		if lease.Lease == nil && id != ids[0] {
			t.Fatalf("no lease for match %d: %+v", id, lease)
		}
		r.Lease = lease.Lease
		if _, err := s.q.PublishResult(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	batch, err := s.q.Results.Fetch(len(ids), jetstream.FetchMaxWait(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []jetstream.Msg
	for m := range batch.Messages() {
		msgs = append(msgs, m)
	}
	if len(msgs) != len(ids) {
		t.Fatalf("fetched %d results", len(msgs))
	}
	g0 := s.store.Generation()
	s.recordMsgs(ctx, msgs)
	// One transaction for the three new ones; the second delivery of the
	// first is refused before the store (its match has ended) and writes
	// nothing.
	if g := s.store.Generation() - g0; g != 1 {
		t.Errorf("the store was written %d times for a batch of %d results; want 1", g, len(ids))
	}
	for i, id := range ids {
		m, err := s.store.Match(ctx, id)
		if err != nil || m.State != store.Finished {
			t.Fatalf("match %d: %+v %v", id, m, err)
		}
		if i > 0 && m.Turns != int64(rep.Result.Turns) {
			t.Errorf("match %d: %d turns, want the replay's %d", id, m.Turns, rep.Result.Turns)
		}
	}
	if m, _ := s.store.Match(ctx, ids[0]); m.Turns != 1 {
		t.Errorf("the second delivery changed the recorded match: %d turns", m.Turns)
	}
	// Every message was acknowledged: nothing is delivered again.
	if more, err := s.q.Results.Fetch(1, jetstream.FetchMaxWait(2*time.Second)); err == nil {
		for m := range more.Messages() {
			t.Errorf("result delivered again: %s", m.Data())
		}
	}
}

// playSeats plays a match of nm's bots (their versions' modules, as a
// worker would fetch them) and returns its replay, naming each seat by its
// module's hash as a worker's replay does.
func playSeats(t testing.TB, s *Server, nm store.NewMatch) *replay.Replay {
	t.Helper()
	ctx := context.Background()
	specs := make([]string, len(nm.Seats))
	shas := make([]string, len(nm.Seats))
	for i, seat := range nm.Seats {
		v, err := s.store.Version(ctx, seat.VersionID)
		if err != nil {
			t.Fatal(err)
		}
		wasm, err := s.store.Wasm(ctx, v.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), v.SHA256+".wasm")
		if err := os.WriteFile(path, wasm, 0o644); err != nil {
			t.Fatal(err)
		}
		specs[i], shas[i] = "wasm:"+path, v.SHA256
	}
	g, _ := games.Lookup(nm.Game)
	rep, err := match.Runner{}.Play(ctx, g, game.Config{Seed: nm.Seed, Players: len(specs), Params: game.Params(nm.Params)}, local.Seats(spec.MustParseAll(specs...)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range rep.Bots {
		rep.Bots[i].Spec = "wasm:" + shas[i]
	}
	return rep
}

// recorder is a server that plays no match itself, with a Dots and Boxes
// challenge between two house bots and that match's replay as a worker
// holding its lease would report it.
func recorder(tb testing.TB) (*Server, store.NewMatch, *replay.Replay, []byte) {
	ctx := context.Background()
	s, err := New(ctx, Options{DataDir: tb.TempDir(), Addr: "127.0.0.1:0", NoMatchmaker: true,
		NATS: NATSOptions{NoWorkers: true}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.close)
	house, err := s.store.AccountByHandle(ctx, core.HouseHandle)
	if err != nil {
		tb.Fatal(err)
	}
	a, _ := s.store.BotByName(ctx, house.ID, "dots-and-boxes", "random")
	b, _ := s.store.BotByName(ctx, house.ID, "dots-and-boxes", "greedy")
	nm := store.NewMatch{Game: "dots-and-boxes", Seed: 1, Kind: store.KindChallenge,
		Seats: []store.SeatRef{{BotID: a.ID, VersionID: a.ActiveVersion}, {BotID: b.ID, VersionID: b.ActiveVersion}}}
	rep := playSeats(tb, s, nm)
	data, err := rep.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	return s, nm, rep, data
}

// report publishes match id's result with the lease a worker would hold.
func report(tb testing.TB, s *Server, id int64, rep *replay.Replay, data []byte) {
	ctx := context.Background()
	g, _ := games.Lookup(rep.Game)
	r := *worker.Summarize(id, g, rep, data, nil, time.Second)
	lease := s.leases.Handle(ctx, jobs.LeaseRequest{Op: jobs.LeaseTake, MatchID: id, Ticket: s.leases.Ticket(id, false, 0, nil), Worker: "w"})
	if lease.Lease == nil {
		tb.Fatalf("no lease for match %d: %+v", id, lease)
	}
	r.Lease = lease.Lease
	if _, err := s.q.PublishResult(ctx, r); err != nil {
		tb.Fatal(err)
	}
}

// refused is the count of results refused for reason.
func refused(tb testing.TB, s *Server, reason string) float64 {
	families, err := s.metrics.reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "arena_results_refused_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == reason {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestResultOfAnEndedMatchIsNotRecorded: the batch path takes a match this
// process scheduled as still to be played without reading it; a result
// (honest or not) for one that has ended since is still refused as late,
// recorded nowhere, and does not make the match run again.
func TestResultOfAnEndedMatchIsNotRecorded(t *testing.T) {
	ctx := context.Background()
	s, nm, rep, data := recorder(t)
	forged := append([]byte(nil), data...)
	forged = bytes.Replace(forged, []byte(`"status":"ok"`), []byte(`"status":"illegal"`), 1)
	for _, replayData := range [][]byte{data, forged} {
		id, err := s.schedule(ctx, nm)
		if err != nil {
			t.Fatal(err)
		}
		report(t, s, id, rep, replayData)
		if ok, err := s.store.FailMatch(ctx, id, "killed"); err != nil || !ok {
			t.Fatalf("failing match %d: %v %v", id, ok, err)
		}
		lease, bad := refused(t, s, "lease"), refused(t, s, "replay")
		batch, err := s.q.Results.Fetch(1, jetstream.FetchMaxWait(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		var msgs []jetstream.Msg
		for m := range batch.Messages() {
			msgs = append(msgs, m)
		}
		if len(msgs) != 1 {
			t.Fatalf("fetched %d results", len(msgs))
		}
		s.recordMsgs(ctx, msgs)
		if m, err := s.store.Match(ctx, id); err != nil || m.State != store.Failed || m.Turns != 0 {
			t.Fatalf("match %d after its late result: %+v %v", id, m, err)
		}
		if refused(t, s, "lease") != lease+1 || refused(t, s, "replay") != bad {
			t.Errorf("the late result is counted as refused for its lease %v times and for its replay %v times; want 1 and 0",
				refused(t, s, "lease")-lease, refused(t, s, "replay")-bad)
		}
		if g := s.leases.Gen(id, false); g != 0 {
			t.Errorf("match %d was issued again (generation %d)", id, g)
		}
	}
}

// BenchmarkRecord is the server's CPU to record one finished match, as a
// worker's result arrives alone (the recorder's batches are mostly one
// result when workers keep up): admitting it (the lease, the replay's
// check, the outcome taken from the replay), the transaction, the
// acknowledgement. A cheap Dots and Boxes match between house bots; CPU
// time of the whole process, per result (cpu-ms).
//
//	go test -run '^$' -bench Record -benchtime 200x ./internal/server/
func BenchmarkRecord(b *testing.B) {
	ctx := context.Background()
	s, nm, rep, data := recorder(b)
	var ids []int64
	for range b.N {
		id, err := s.schedule(ctx, nm)
		if err != nil {
			b.Fatal(err)
		}
		report(b, s, id, rep, data)
		ids = append(ids, id)
	}
	it, err := s.q.Results.Messages(jetstream.PullMaxMessages(1))
	if err != nil {
		b.Fatal(err)
	}
	defer it.Stop()
	b.ResetTimer()
	var cpu time.Duration
	for range b.N {
		msg, err := it.Next()
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuTime()
		s.recordMsgs(ctx, []jetstream.Msg{msg})
		cpu += cpuTime() - c0
	}
	b.StopTimer()
	for _, id := range ids {
		if m, err := s.store.Match(ctx, id); err != nil || m.State != store.Finished {
			b.Fatalf("match %d: %+v %v", id, m, err)
		}
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms")
	b.ReportMetric(float64(len(data)), "replay-bytes")
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
