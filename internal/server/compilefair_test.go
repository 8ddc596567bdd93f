package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// One account's compile bombs do not hold another account's upload: while
// two salted copies of a module that takes wazero's compiler about 10 s of
// CPU are uploaded by one account (one compiling, one waiting, an account
// compiling one module at a time), another account's plain upload is
// compiled and tried in its smoke match before either of them is answered.
// A plain upload once took 97 s behind two such copies.
func TestUploadsOfOneAccountDoNotHoldAnother(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	bomber, bystander := signup(t, r.URL, "bomber"), signup(t, r.URL, "bystander")
	salt := time.Now().UnixNano()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var answered atomic.Int32
	var wg sync.WaitGroup
	for k := range int64(2) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Empty ifs are quadratic in wazero's compiler (docs/sandbox.md).
			bomb := Echo{Turn: Cat(I64(salt+k), Drop, Repeat(Cat(I32(0), If, End), 20000))}.Module()
			req, err := http.NewRequestWithContext(ctx, "POST", fmt.Sprintf("%s/api/v1/games/dots-and-boxes/bots/bomb%d", r.URL, k), bytes.NewReader(bomb))
			if err != nil {
				return
			}
			req.Header.Set("Authorization", "Bearer "+bomber)
			req.Header.Set("Content-Type", "application/wasm")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				answered.Add(1)
			}
		}()
	}
	time.Sleep(time.Second) // the first copy compiles, the second waits
	begin := time.Now()
	var up struct{ Error string }
	call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/plain", bystander, bytes.NewReader(Echo{Globals: int(salt % 1000)}.Module()), "application/wasm", &up)
	took := time.Since(begin)
	if n := answered.Load(); n > 0 {
		t.Errorf("the bystander's upload was answered after %v, after %d of the bomber's slow uploads: it waited behind them", took, n)
	}
	// An echo bot fails its smoke match, but it gets there.
	if !strings.Contains(up.Error, "smoke match") {
		t.Errorf("the bystander's upload: %q, want it compiled and tried in its smoke match", up.Error)
	}
	t.Logf("the bystander's upload was answered after %v", took)
	cancel()
	wg.Wait()
}
