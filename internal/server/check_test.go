package server

import (
	"context"
	"log/slog"
	"testing"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
)

// TestCheckOfDeletedModuleIsSkipped: a determinism check whose rerun failed
// because a seat's module was deleted meanwhile (pruneModules) is no
// mismatch: nothing was compared, the match stays unmarked. The same
// failure with the module there is one.
func TestCheckOfDeletedModuleIsSkipped(t *testing.T) {
	ctx := context.Background()
	// A whole server: a mismatch queues a third run, which needs the
	// queue and the leases.
	s, err := New(ctx, Options{DataDir: t.TempDir(), Addr: "127.0.0.1:0", NoMatchmaker: true,
		NATS: NATSOptions{NoWorkers: true}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	st := s.store
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

	there := finished("shaThere")
	if err := s.compareCheck(ctx, there, failed); err != nil {
		t.Fatal(err)
	}
	if m, _ := st.Match(ctx, there.ID); m.Determinism != store.DeterminismMismatch {
		t.Errorf("a failed rerun with every module there: marked %q; want %q", m.Determinism, store.DeterminismMismatch)
	}
}
