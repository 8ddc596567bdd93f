package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/arenabots/arena/internal/store"
)

// TestMarkDeterminism: a finished match takes the outcome of its second
// run; a mismatch stays whatever a later check says; a match not finished
// and an unknown outcome are not marked.
func TestMarkDeterminism(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, done, live := finishedAndLive(t, s)
		want := func(id int64, outcome string) {
			t.Helper()
			m, err := s.Match(ctx, id)
			if err != nil || m.Determinism != outcome {
				t.Fatalf("match %d: determinism %q, %v; want %q", id, m.Determinism, err, outcome)
			}
		}
		want(done, "")
		if err := s.MarkDeterminism(ctx, done, "maybe"); err == nil {
			t.Fatal("unknown outcome accepted")
		}
		must := func(id int64, outcome string) {
			t.Helper()
			if err := s.MarkDeterminism(ctx, id, outcome); err != nil {
				t.Fatal(err)
			}
		}
		must(done, store.DeterminismChecked)
		want(done, store.DeterminismChecked)
		must(done, store.DeterminismMismatch)
		must(done, store.DeterminismChecked)
		want(done, store.DeterminismMismatch)
		must(live, store.DeterminismMismatch)
		want(live, "")
	})
}

// TestReplaceResult: the majority's run replaces a finished match's
// replay, turns and seats (the logs stay), and says whether places
// changed; the ratings applied stay; a match not finished is not touched.
func TestReplaceResult(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		b1, done, live := finishedAndLive(t, s)
		before, err := s.Bot(ctx, b1.ID)
		if err != nil {
			t.Fatal(err)
		}
		same := result(done, 1, 2)
		same.Seats[0].Fuel = 999
		if changed, err := s.ReplaceResult(ctx, same); err != nil || changed {
			t.Fatalf("same places: changed %v, %v", changed, err)
		}
		swapped := result(done, 2, 1)
		swapped.Turns, swapped.Replay = 12, []byte(`{"majority":true}`)
		for i := range swapped.Seats {
			swapped.Seats[i].Stderr = []byte("not kept")
		}
		if changed, err := s.ReplaceResult(ctx, swapped); err != nil || !changed {
			t.Fatalf("swapped places: changed %v, %v", changed, err)
		}
		m, err := s.Match(ctx, done)
		if err != nil {
			t.Fatal(err)
		}
		if m.Turns != 12 || m.Seats[0].Place != 2 || m.Seats[1].Place != 1 || m.Seats[0].Fuel != 100 || m.Seats[0].Score != 8 {
			t.Fatalf("after the replacement: %+v", m)
		}
		if data, err := s.Replay(ctx, done); err != nil || string(data) != `{"majority":true}` {
			t.Fatalf("replay %q, %v", data, err)
		}
		if seat, err := s.SeatLog(ctx, done, 0); err != nil || string(seat.Stderr) != "log 0" {
			t.Fatalf("seat 0's log %q, %v; want the recorded one", seat.Stderr, err)
		}
		if after, err := s.Bot(ctx, b1.ID); err != nil || after.Mu != before.Mu || after.Sigma != before.Sigma {
			t.Fatalf("rating %v/%v -> %v/%v, %v; want it as applied", before.Mu, before.Sigma, after.Mu, after.Sigma, err)
		}
		if _, err := s.ReplaceResult(ctx, result(live, 1, 2)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a queued match: %v; want ErrNotFound", err)
		}
		if m, err := s.Match(ctx, live); err != nil || m.State != store.Queued || m.Turns != 0 {
			t.Fatalf("the queued match changed: %+v, %v", m, err)
		}
	})
}

// finishedAndLive makes two rated matches of the same two bots and
// records the first: a finished match and one still to be played, and the
// first seat's bot.
func finishedAndLive(t *testing.T, s *store.Store) (b1 store.Bot, done, live int64) {
	t.Helper()
	ctx := context.Background()
	_, b1, b2 := setup(t, s)
	var ids []int64
	for range 2 {
		id, err := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Seed: 7, Kind: store.KindRated,
			Seats: []store.SeatRef{{b1.ID, b1.ActiveVersion}, {b2.ID, b2.ActiveVersion}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, err := s.RecordMatch(ctx, result(ids[0], 1, 2), plus); err != nil {
		t.Fatal(err)
	}
	return b1, ids[0], ids[1]
}
