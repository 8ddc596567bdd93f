package dotsandboxes

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox"
)

// searchKitBuilds are the search kits in each language, built for the
// platform as their READMEs say, and the name their engine's node function
// has in the module's name section.
var searchKitBuilds = []struct {
	lang, node string
	build      func(t *testing.T, out string) *exec.Cmd
}{
	{"go", "main.__searcher_.node", func(t *testing.T, out string) *exec.Cmd {
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./kits/go/dots-and-boxes-search")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		return cmd
	}},
	{"c", "node", func(t *testing.T, out string) *exec.Cmd {
		return exec.Command("clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-o", out, "kits/c/dots-and-boxes-search/main.c")
	}},
}

// TestSearchKitNodesPerFuel plays each search kit's wasm build in the
// sandbox, with the protocol's tank, on the same positions (every position
// the mover meets in chains-against-chains games, in order, as one match),
// and counts the positions its search visits (calls of the engine's node
// function, read by the fuel profiler, which changes no fuel figure) per
// million fuel of its answers: the figure docs/bots-strength.md compares
// across languages. Every answer must be ok, and the C kit must see at
// least four times the Go kit's nodes for the same fuel.
func TestSearchKitNodesPerFuel(t *testing.T) {
	ctx := context.Background()
	rt, err := sandbox.NewRuntime(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	var obs [][]byte
	for seed := int64(1); seed <= 6; seed++ {
		st := NewState(seed)
		bots := [2]*chainsBot{{}, {}}
		for !st.Over() {
			obs = append(obs, st.AppendObservation(nil, int(st.ToMove)))
			st.Play(bots[st.ToMove].choose(st, int(st.ToMove)))
		}
	}
	perFuel := map[string]float64{}
	for _, k := range searchKitBuilds {
		wasm := filepath.Join(t.TempDir(), "bot.wasm")
		if out, err := k.build(t, wasm).CombinedOutput(); err != nil {
			t.Fatalf("%s kit: build: %v\n%s", k.lang, err, out)
		}
		data, err := os.ReadFile(wasm)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := rt.Compile(ctx, data)
		if err != nil {
			t.Fatalf("%s kit: %v", k.lang, err)
		}
		prof := sandbox.NewProfile()
		in, err := rt.Start(ctx, mod, sandbox.Config{Tank: &sandbox.Tank{PerTurn: 5_000_000, Cap: 20_000_000}, Profile: prof})
		if err != nil {
			t.Fatal(err)
		}
		var fuel, most int64
		for i, o := range obs {
			r := in.Ask(ctx, func(int64) []byte { return o })
			if r.Status != protocol.OK {
				t.Fatalf("%s kit, position %d: %s %s", k.lang, i, r.Status, r.Detail)
			}
			fuel += r.Fuel
			most = max(most, r.Fuel)
		}
		in.Stop()
		var nodes int64
		for _, e := range prof.Summary().Answers {
			if e.Name == k.node {
				nodes = e.Calls
			}
		}
		if nodes == 0 {
			t.Fatalf("%s kit: no calls of %s in the profile", k.lang, k.node)
		}
		perFuel[k.lang] = float64(nodes) / float64(fuel) * 1e6
		t.Logf("NODES %s: %d positions, %d nodes, %.1f M fuel, %.0f nodes per million fuel (%.0f fuel a node), most fuel on one answer %.2f M",
			k.lang, len(obs), nodes, float64(fuel)/1e6, perFuel[k.lang], float64(fuel)/float64(nodes), float64(most)/1e6)
	}
	r := perFuel["c"] / perFuel["go"]
	if r < 4 {
		t.Errorf("the C kit sees %.1f times the Go kit's nodes per fuel, want at least 4", r)
	}
	t.Logf("NODES C/Go: %.1f times", r)
}
