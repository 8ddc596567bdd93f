package server_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// TestCrashedUploadIsToldItCrashed: a module that traps on every turn is
// retired after its restarts, and its refusal says it crashed, not that it
// ran out of fuel.
func TestCrashedUploadIsToldItCrashed(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "alice")
	crasher := wasmtest.Echo{FaultOnRead: 1, Fault: "unreachable"}.Module()
	var up struct {
		Error   string
		Version struct{ State string }
	}
	st := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/crasher", tok, bytes.NewReader(crasher), "application/wasm", &up)
	if st != 422 || up.Version.State != "refused" || !strings.Contains(up.Error, "retired") {
		t.Fatalf("a crashing bot: %d %+v; want refused, with crashes and then retired turns", st, up)
	}
	if !strings.Contains(up.Error, "It crashed (trap") || strings.Contains(up.Error, "ran out of fuel") {
		t.Fatalf("a crashing bot's refusal: %q; want the crash hint and no fuel hint", up.Error)
	}
}
