package store_test

import (
	"context"
	"testing"

	"github.com/arenabots/arena/internal/store"
)

// TestMarkDeterminism: a finished match takes the outcome of its second
// run; a mismatch stays whatever a later check says; a match not finished
// and an unknown outcome are not marked.
func TestMarkDeterminism(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
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
		done, live := ids[0], ids[1]
		if _, err := s.RecordMatch(ctx, result(done, 1, 2), plus); err != nil {
			t.Fatal(err)
		}
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
