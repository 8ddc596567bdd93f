package store_test

import (
	"context"
	"testing"

	"github.com/arenabots/arena/internal/store"
)

// TestRecordMatchesInOneTransaction: a batch records every result and
// applies the ratings in the matches' creation order, whatever order the
// results come in; a result delivered again is reported unrecorded and
// changes nothing; a batch with one bad result records none of it.
func TestRecordMatchesInOneTransaction(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, b1, b2 := setup(t, s)
		seats := []store.SeatRef{{b1.ID, b1.ActiveVersion}, {b2.ID, b2.ActiveVersion}}
		nm := store.NewMatch{Game: "dots-and-boxes", Seed: 7, Kind: store.KindRated, Seats: seats}
		ids, err := s.CreateMatches(ctx, []store.NewMatch{nm, nm, nm, {Game: "dots-and-boxes", Kind: store.KindChallenge, Seats: seats}})
		if err != nil {
			t.Fatal(err)
		}
		// Seat 1 wins the first two, seat 0 the third; given last first.
		recs, err := s.RecordMatches(ctx, []store.Result{result(ids[2], 1, 2), result(ids[1], 2, 1), result(ids[0], 2, 1), result(ids[3], 1, 2)}, plus)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			if !r.Recorded || r.Game != "dots-and-boxes" {
				t.Fatalf("result %d: %+v", i, r)
			}
		}
		if recs[0].Kind != store.KindRated || recs[3].Kind != store.KindChallenge {
			t.Fatalf("kinds: %+v", recs)
		}
		b1, _ = s.Bot(ctx, b1.ID)
		b2, _ = s.Bot(ctx, b2.ID)
		// plus halves sigma per applied match: three rated matches, in order.
		if b1.Matches != 3 || b2.Matches != 3 || b1.Mu != 26 || b2.Mu != 27 || b1.Sigma != 25.0/3/8 {
			t.Fatalf("ratings after the batch: %+v %+v", b1, b2)
		}
		for _, id := range ids {
			if m, err := s.Match(ctx, id); err != nil || m.State != store.Finished || !m.Applied && m.Kind == store.KindRated {
				t.Fatalf("match %d: %+v %v", id, m, err)
			}
		}
		// Delivered again: nothing recorded, nothing rated again.
		recs, err = s.RecordMatches(ctx, []store.Result{result(ids[0], 1, 2)}, plus)
		if err != nil || recs[0].Recorded {
			t.Fatalf("second delivery: %+v %v", recs, err)
		}
		if b, _ := s.Bot(ctx, b1.ID); b.Matches != 3 {
			t.Fatalf("second delivery rated again: %+v", b)
		}
		// One bad result (three seats for two) and the whole batch is refused.
		more, err := s.CreateMatches(ctx, []store.NewMatch{nm, nm})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordMatches(ctx, []store.Result{result(more[0], 1, 2), result(more[1], 1, 2, 3)}, plus); err == nil {
			t.Fatal("a batch with a bad result was recorded")
		}
		if m, _ := s.Match(ctx, more[0]); m.State != store.Queued {
			t.Fatalf("the good result of a refused batch was kept: %s", m.State)
		}
	})
}
