package worker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/sandbox"
	"github.com/arenabots/arena/sandbox/wasmtest"
	"github.com/arenabots/arena/worker"
)

// signalHandler is a slog handler that sends every message containing want.
type signalHandler struct {
	want string
	ch   chan string
}

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.want) {
		select {
		case h.ch <- r.Message:
		default:
		}
	}
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

// A match whose module cannot be compiled now, because the machine is too
// busy (the compile's wall-clock backstop ran out before its CPU limit), is
// not failed: the worker keeps the job and plays it once it can compile.
// Such a "busy" failed two rated house matches with 0 turns.
func TestBusyCompileDoesNotFailTheMatch(t *testing.T) {
	q := queue(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wasm := wasmtest.Echo{Globals: int(time.Now().UnixNano() % 9000)}.Module() // new to this process
	sum := sha256.Sum256(wasm)
	sha := hex.EncodeToString(sum[:])
	if err := q.PutWasm(ctx, sha, wasm); err != nil {
		t.Fatal(err)
	}
	saved := sandbox.CompileWallLimit
	sandbox.CompileWallLimit = time.Nanosecond
	defer func() { sandbox.CompileWallLimit = saved }()
	if err := q.Publish(ctx, jobs.Job{MatchID: 1, Game: "dots-and-boxes", Seed: 4, Seats: []jobs.Seat{{Wasm: sha}, {Builtin: "builtin:greedy"}}}); err != nil {
		t.Fatal(err)
	}
	busy := make(chan string, 1)
	p, err := worker.New(q.Queue, worker.Options{Workers: 1, CacheDir: t.TempDir(), Log: slog.New(signalHandler{"too busy", busy})})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	select {
	case <-busy: // the worker found the machine too busy to compile
	case <-time.After(5 * time.Second): // or failed the match, as it did
	}
	sandbox.CompileWallLimit = saved
	r := results(t, q.Queue, 1, 60*time.Second)[1]
	cancel()
	<-done
	if r.Error != "" || r.Turns == 0 {
		t.Fatalf("a match whose module could not be compiled at first: error %q, %d turns; want it played", r.Error, r.Turns)
	}
}
