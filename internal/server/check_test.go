package server

import (
	"context"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/store/storetest"
)

// TestCheckOfDeletedModuleIsSkipped: a determinism check whose rerun failed
// because a seat's module was deleted meanwhile (pruneModules) is no
// mismatch: nothing was compared, the match stays unmarked. The same
// failure with the module there is one.
func TestCheckOfDeletedModuleIsSkipped(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, store.SQLite)
	rota, err := openRotation(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{store: st, log: slog.New(slog.DiscardHandler), rota: rota,
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "c"}, []string{"outcome", "where"})}
	a, _ := st.CreateAccount(ctx, "alice", "h")
	finished := func(sha string) store.Match {
		b, v, err := st.AddVersion(ctx, a.ID, "dots-and-boxes", sha, sha, []byte("wasm"), 25, 8)
		if err != nil {
			t.Fatal(err)
		}
		id, err := st.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Seed: 1, Kind: store.KindChallenge,
			Seats: []store.SeatRef{{BotID: b.ID, VersionID: v.ID}, {BotID: b.ID, VersionID: v.ID}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.MarkRunning(ctx, id); err != nil {
			t.Fatal(err)
		}
		res := store.Result{MatchID: id, Turns: 1, Replay: []byte(`{}`), Seats: []store.SeatResult{{Place: 1}, {Place: 2}}}
		if _, err := st.RecordMatch(ctx, res, func(r []store.Rating, _ []int) []store.Rating { return r }); err != nil {
			t.Fatal(err)
		}
		m, err := st.Match(ctx, id)
		if err != nil || m.State != store.Finished {
			t.Fatalf("the match: %+v %v; want finished", m, err)
		}
		return m
	}
	failed := jobs.Result{Error: "module shaGone: not found", Worker: "w2", Original: "w1"}

	gone := finished("shaGone")
	if _, err := st.DropRefusedModule(ctx, "shaGone"); err != nil { // kept: the version is checking
		t.Fatal(err)
	}
	v, _ := st.Version(ctx, gone.Seats[0].VersionID)
	if err := st.FinishCheck(ctx, v.ID, false, "refused", 0, 8); err != nil {
		t.Fatal(err)
	}
	if dropped, err := st.DropRefusedModule(ctx, "shaGone"); err != nil || !dropped {
		t.Fatalf("dropping the module: %v %v", dropped, err)
	}
	if err := s.compareCheck(ctx, gone, failed); err != nil {
		t.Fatal(err)
	}
	if m, _ := st.Match(ctx, gone.ID); m.Determinism != "" {
		t.Errorf("a check whose module was deleted: marked %q; want unmarked", m.Determinism)
	}

	// A failed rerun with every module there is a mismatch, and goes to a
	// third run: that needs the queue and real workers, TestDeterminismMajority
	// (internal/scaleout).
}
