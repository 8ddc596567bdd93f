package dotsandboxes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

var update = flag.Bool("update", false, "rewrite the golden replays in testdata (then pin the new hashes)")

// The golden replays pin the whole engine: the nonce derivation, the house
// bots' play, the state hash and the replay format. A change to any of them
// changes these hashes; that must be a deliberate change.
var golden = []struct {
	file   string
	seed   uint64
	bots   [2]string
	sha256 string
}{
	{"greedy-random-1.replay.json", 1, [2]string{"greedy", "random"}, "6f88434e6dc99ab8684ddf4da20c827075d02f6e22e50ba83d5acd961ff8204e"},
	{"chains-greedy-2.replay.json", 2, [2]string{"chains", "greedy"}, "77ddfaa76c95b72ab3500f391710dbddd5653c38a8a14c6cd6cc9a31a86396c6"},
	{"chains-chains-3.replay.json", 3, [2]string{"chains", "chains"}, "cdaf643a7cf1414190c5f842cd7cc6dd500c15ea51769ddfa7c40a95941b30bf"},
}

func playGolden(t *testing.T, seed uint64, names [2]string) *replay.Replay {
	t.Helper()
	bots := make([]bot.Bot, 2)
	ids := make([]bot.Identity, 2)
	for seat, name := range names {
		var err error
		if bots[seat], err = bot.OpenBuiltin(name, bot.Match{Game: Game{}, Seed: seed, Seat: seat}); err != nil {
			t.Fatal(err)
		}
		ids[seat] = bot.Identity{Spec: "builtin:" + name}
	}
	r, err := match.Run(context.Background(), Game{}, game.Config{Seed: seed, Players: 2}, bots, ids)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestGoldenReplays(t *testing.T) {
	for _, g := range golden {
		t.Run(g.file, func(t *testing.T) {
			data, err := playGolden(t, g.seed, g.bots).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", g.file)
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sum := sha256.Sum256(data)
			if got := hex.EncodeToString(sum[:]); got != g.sha256 {
				t.Errorf("replay sha256 %s, pinned %s", got, g.sha256)
			}
			stored, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stored, data) {
				t.Errorf("%s differs from a fresh run of the same match", path)
			}
			r, err := replay.Parse(stored)
			if err != nil {
				t.Fatal(err)
			}
			if err := replay.Verify(r, Game{}); err != nil {
				t.Fatalf("verify: %v", err)
			}
			if r.Result.Turns != NumEdges || r.Result.Scores[0]+r.Result.Scores[1] != NumBoxes {
				t.Fatalf("result %+v", r.Result)
			}
		})
	}
}

// TestVerifyCatchesAChangedAction edits one recorded action and expects
// verify to fail at that turn.
func TestVerifyCatchesAChangedAction(t *testing.T) {
	r := playGolden(t, 3, [2]string{"greedy", "random"})
	for i := range r.Turns[10].Seats {
		s := &r.Turns[10].Seats[i]
		if s.Action != nil {
			// Draw the last edge instead, which is never the one played at turn 11
			// unless that was forced; then pick the first.
			alt := V(4, 5).AppendJSON(nil)
			if bytes.Equal(alt, s.Action) {
				alt = H(0, 0).AppendJSON(nil)
			}
			s.Action = alt
		}
	}
	err := replay.Verify(r, Game{})
	if err == nil || !strings.Contains(err.Error(), "turn 11") {
		t.Fatalf("verify of an edited replay: %v", err)
	}
}
