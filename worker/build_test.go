package worker_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/worker"
)

// dotsAndBoxesQueue is a job queue, a context that ends with the test, and
// this build's stamp for Dots and Boxes jobs.
func dotsAndBoxesQueue(t *testing.T) (testQueue, context.Context, jobs.Build) {
	q := queue(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	mine, err := worker.BuildFor("dots-and-boxes")
	if err != nil {
		t.Fatal(err)
	}
	return q, ctx, mine
}

// TestBuildMismatch: a job stamped with another cost model, other rules or
// another processor is refused, then ends as a failed match once every
// attempt was refused; a job of this build runs, and so does one that names
// no processor (queued by a server from before Build had one).
func TestBuildMismatch(t *testing.T) {
	q, ctx, mine := dotsAndBoxesQueue(t)
	if again, _ := worker.BuildFor("dots-and-boxes"); again != mine || mine.Rules == "" || mine.CostModel == 0 || mine.Arch != runtime.GOARCH {
		t.Fatalf("build not stable or empty: %+v then %+v", mine, again)
	}
	if other, _ := worker.BuildFor("grid-royale"); other.Rules == mine.Rules {
		t.Fatal("two games share a rules fingerprint")
	}
	seats := []jobs.Seat{{Builtin: "builtin:random"}, {Builtin: "builtin:greedy"}}
	foreign := mine
	foreign.CostModel++
	rules := mine
	rules.Rules = "0000000000000000"
	arch := mine
	arch.Arch = "s390x"
	if mine.Arch == arch.Arch {
		arch.Arch = "amd64"
	}
	unnamed := mine
	unnamed.Arch = ""
	for id, b := range map[int64]jobs.Build{1: mine, 2: foreign, 3: rules, 4: arch, 5: unnamed} {
		if err := q.Publish(ctx, jobs.Job{MatchID: id, Game: "dots-and-boxes", Seed: 5, Seats: seats, Build: &b}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := worker.New(q.Queue, worker.Options{Workers: 1, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run(ctx)
	got := results(t, q.Queue, 5, 30*time.Second)
	for _, id := range []int64{1, 5} {
		if got[id].Error != "" || got[id].Turns == 0 {
			t.Fatalf("job %d of this build: %+v", id, got[id])
		}
	}
	for _, id := range []int64{2, 3, 4} {
		if !strings.Contains(got[id].Error, "no worker could run it identically") || !strings.Contains(got[id].Error, "build mismatch") {
			t.Fatalf("job %d of another build: error %q", id, got[id].Error)
		}
	}
	// A worker counts a job after publishing its result, so the last
	// result can arrive a moment before its count.
	a := p.Announcement()
	for deadline := time.Now().Add(5 * time.Second); a.MatchesRun+a.Failed < 5 && time.Now().Before(deadline); a = p.Announcement() {
		time.Sleep(10 * time.Millisecond)
	}
	if a.Refused != 3*jobs.MaxAttempts || a.MatchesRun != 2 || a.Failed != 3 {
		t.Fatalf("announcement counts: run %d failed %d refused %d", a.MatchesRun, a.Failed, a.Refused)
	}
}

// TestCheckThatCannotRunIsDropped: a determinism check (the second run of a
// recorded match) that no worker can run ends without a result, where a
// failure would read as the match's: only the ordinary job behind it is
// reported.
func TestCheckThatCannotRunIsDropped(t *testing.T) {
	q, ctx, mine := dotsAndBoxesQueue(t)
	foreign := mine
	foreign.CostModel++
	seats := []jobs.Seat{{Builtin: "builtin:random"}, {Builtin: "builtin:greedy"}}
	if err := q.Publish(ctx, jobs.Job{MatchID: 4, Game: "dots-and-boxes", Seed: 5, Seats: seats, Build: &foreign, Check: true}); err != nil {
		t.Fatal(err)
	}
	p, err := worker.New(q.Queue, worker.Options{Workers: 1, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run(ctx)
	for deadline := time.Now().Add(60 * time.Second); p.Announcement().Refused < jobs.MaxAttempts; {
		if time.Now().After(deadline) {
			t.Fatalf("the check was refused %d times in 60 s, want %d", p.Announcement().Refused, jobs.MaxAttempts)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := q.Publish(ctx, jobs.Job{MatchID: 5, Game: "dots-and-boxes", Seed: 5, Seats: seats, Build: &mine}); err != nil {
		t.Fatal(err)
	}
	got := results(t, q.Queue, 1, 30*time.Second)
	if _, ok := got[4]; ok {
		t.Fatalf("the dropped check was reported: %+v", got[4])
	}
	if got[5].Error != "" || got[5].Turns == 0 {
		t.Fatalf("the ordinary job: %+v", got[5])
	}
	if a := p.Announcement(); a.Failed != 0 {
		t.Fatalf("%d failed matches counted, want 0", a.Failed)
	}
}
