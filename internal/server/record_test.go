package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/internal/api"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
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
	house, err := s.store.AccountByHandle(ctx, api.HouseHandle)
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
	for _, id := range ids {
		r := jobs.Result{MatchID: id, Turns: 3, Replay: []byte(`{"turns":[]}`),
			Seats: []jobs.SeatResult{{Score: 2, Place: 1}, {Score: 1, Place: 2}}}
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
	// One transaction for the three new ones; the second delivery is
	// looked at again on its own, and writes nothing.
	if g := s.store.Generation() - g0; g != 2 {
		t.Errorf("the store was written %d times for a batch of %d results; want 1 (and 1 for the second delivery's look)", g, len(ids))
	}
	for i, id := range ids {
		m, err := s.store.Match(ctx, id)
		if err != nil || m.State != store.Finished {
			t.Fatalf("match %d: %+v %v", id, m, err)
		}
		if i > 0 && m.Turns != 3 {
			t.Errorf("match %d: %d turns, want the result's 3", id, m.Turns)
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
