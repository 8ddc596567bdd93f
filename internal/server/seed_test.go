package server_test

import (
	"context"
	"testing"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/replay"
)

// TestSeedFillsADataDirectory: arena seed's matches are in the store as a
// server would have recorded them, each under its own id, with a replay
// that verifies against its seed and seats; a server then starts on the
// directory and lists them.
func TestSeedFillsADataDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const n = 1100 // more than one batch
	var progress []int
	got, err := server.Seed(ctx, server.SeedOptions{DataDir: dir, Game: "dots-and-boxes", Matches: n, Distinct: 4,
		Progress: func(done int) { progress = append(progress, done) }})
	if err != nil || got != n {
		t.Fatalf("seeded %d: %v", got, err)
	}
	if len(progress) != 3 || progress[2] != n {
		t.Fatalf("progress %v", progress)
	}
	r := start(t, store.SQLite, func(o *server.Options) { o.DataDir, o.NoMatchmaker = dir, true })
	st := r.Srv.Store()
	g, _ := games.Lookup("dots-and-boxes")
	ids := map[int64]bool{}
	seeds := map[uint64]bool{}
	f := store.MatchFilter{Game: "dots-and-boxes", Limit: 200}
	for {
		ms, err := st.Matches(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.State != store.Finished || len(m.Seats) != 2 || m.Seats[0].Handle != "house" {
				t.Fatalf("match %d: %+v", m.ID, m)
			}
			ids[m.ID] = true
			seeds[m.Seed] = true
		}
		if len(ms) < f.Limit {
			break
		}
		f.Before = ms[len(ms)-1].ID
	}
	if len(ids) != n || len(seeds) != 4 {
		t.Fatalf("%d matches listed, %d seeds", len(ids), len(seeds))
	}
	for id := range ids {
		data, err := st.Replay(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := replay.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := st.Match(ctx, id)
		if rep.Seed != m.Seed {
			t.Fatalf("match %d: seed %d, replay's %d", id, m.Seed, rep.Seed)
		}
		if err := replay.Verify(rep, g); err != nil {
			t.Fatalf("match %d: %v", id, err)
		}
	}
}
