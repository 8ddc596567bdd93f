package dotsandboxes

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
)

// cKitLevel is the level of the C search kit (kits/c/dots-and-boxes-search,
// kit_level in main.c) with a native build's node budget, as the test
// builds it: the Go engine at this level must choose the same moves.
var cKitLevel = searchLevel{nodes: 2_000, sacrifices: true, quiet: 30, playouts: 1, allGifts: NumEdges, tableBits: 13}

// cKitAttempts is a level with every part the kit's level leaves off (the
// late budget, the exact and the near attempts), on small budgets, built
// into the kit with -DKIT_LEVEL: the port of those parts must agree too.
var cKitAttempts = searchLevel{nodes: 2_000, sacrifices: true, quiet: 30, playouts: 1, allGifts: NumEdges, tableBits: 13,
	lateNodes: 4_000, lateFree: 40, exactNodes: 3_000, exactFree: 30, nearNodes: 3_000, nearFree: 42}

const cKitAttemptsFlag = "-DKIT_LEVEL={.nodes=2000,.sacrifices=1,.quiet=30,.playouts=1,.all_gifts=60," +
	".late_nodes=4000,.late_free=40,.exact_nodes=3000,.exact_free=30,.near_nodes=3000,.near_free=42}"

// TestCSearchKitMatchesEngine builds the C search kit natively (not
// metered: it stops on its node budget, as the Go engine does) and asks it
// for a move in every position the mover meets in chains-against-chains
// games, one process for the whole sequence as in a match, so that its
// tables carry over as the engine's do. The C port must choose the engine's
// move every time, and search as many nodes: it is the same engine.
func TestCSearchKitMatchesEngine(t *testing.T) {
	t.Run("kit level", func(t *testing.T) { checkCKit(t, cKitLevel, true) })
	// The kit logs the nodes of all its attempts, the engine those since
	// the last: only the moves are compared.
	t.Run("attempts", func(t *testing.T) { checkCKit(t, cKitAttempts, false, cKitAttemptsFlag) })
}

func checkCKit(t *testing.T, level searchLevel, nodes bool, flags ...string) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Fatal("no cc: scripts/install-toolchains.sh installs it")
	}
	bin := filepath.Join(t.TempDir(), "bot")
	build := exec.Command(cc, append([]string{"-O2", "-Wall", "-Werror", "-DKIT_NODES=2000", "-o", bin, "kits/c/dots-and-boxes-search/main.c"}, flags...)...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	var positions []*State
	for seed := int64(1); seed <= 6; seed++ {
		st := NewState(seed)
		bots := [2]*chainsBot{{}, {}}
		for !st.Over() {
			c := *st
			positions = append(positions, &c)
			st.Play(bots[st.ToMove].choose(st, int(st.ToMove)))
		}
	}
	var in bytes.Buffer
	for _, st := range positions {
		in.Write(st.AppendObservation(nil, int(st.ToMove)))
		in.WriteByte('\n')
	}
	var stderr bytes.Buffer
	bot := exec.Command(bin)
	bot.Stdin, bot.Stderr = &in, &stderr
	out, err := bot.Output()
	if err != nil {
		t.Fatalf("the C kit: %v\n%s", err, stderr.String())
	}
	answers := bufio.NewScanner(bytes.NewReader(out))
	logs := bufio.NewScanner(&stderr)
	s := newSearcher(level)
	searched := 0
	for i, st := range positions {
		if !answers.Scan() {
			t.Fatalf("the C kit answered %d of %d positions", i, len(positions))
		}
		b := Board{Drawn: st.Drawn} // what the kit reads of an observation
		want := s.bestMove(&b)
		r, c := want.RC()
		orient := "V"
		if want.Horizontal() {
			orient = "H"
		}
		if got, w := answers.Text(), fmt.Sprintf(`{"orient":"%s","r":%d,"c":%d}`, orient, r, c); got != w {
			t.Fatalf("position %d (drawn %#x): the C kit plays %s, the engine %s", i, st.Drawn, got, w)
		}
		// The kit logs the nodes of every move it is asked for.
		var n int
		if !logs.Scan() {
			t.Fatalf("position %d: no log line", i)
		}
		if _, err := fmt.Sscanf(logs.Text(), "nodes %d", &n); err != nil {
			t.Fatalf("position %d: log %q: %v", i, logs.Text(), err)
		}
		if m := s.moves(&b); len(m) > 1 {
			if nodes && n != s.nodes {
				t.Errorf("position %d: the C kit searched %d nodes, the engine %d", i, n, s.nodes)
			}
			searched++
		}
	}
	if searched < 50 {
		t.Fatalf("only %d positions needed a search", searched)
	}
	t.Logf("%d positions, %d searched: every move the engine's (and node count: %v)", len(positions), searched, nodes)
}
