// Package examples_test builds every starter kit with its real toolchain and
// plays it through the real arena command against a house bot, natively
// (exec:) and as a wasm bot (wasm:), checking that both builds of a kit play
// the very same game.
package kits_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/clitest"
	"github.com/arenabots/arena/internal/kits"
	"github.com/arenabots/arena/replay"
)

// arenaBin is the arena command, built once for all tests.
var arenaBin string

func TestMain(m *testing.M) { clitest.Main(m, "../../cmd/arena", &arenaBin) }

// A toolchain builds a bot's source natively and for wasm.
type toolchain struct {
	lang string
	// main is the source file of a kit, "" for Go, which builds packages.
	main string
	// missing says what is not installed, or "" when all is there.
	missing func() string
	// native and wasm return the command that builds src (a Go package
	// directory, or a C or Rust file) into out.
	native, wasm func(src, out string) *exec.Cmd
}

// source is what the toolchain builds for the kit in dir.
func (tc toolchain) source(dir string) string {
	if tc.main == "" && !filepath.IsAbs(dir) {
		return "./" + dir
	} else if tc.main == "" {
		return dir
	}
	return filepath.Join(dir, tc.main)
}

var toolchains = []toolchain{
	{
		lang:    "go",
		missing: func() string { return "" },
		native: func(src, out string) *exec.Cmd {
			return exec.Command("go", "build", "-o", out, src)
		},
		wasm: func(src, out string) *exec.Cmd {
			cmd := exec.Command("go", "build", "-o", out, src)
			cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
			return cmd
		},
	},
	{
		lang: "c",
		main: "main.c",
		missing: func() string {
			return missingFiles("/usr/bin/clang", "/usr/bin/wasm-ld", "/usr/include/wasm32-wasi/stdio.h",
				"/usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a")
		},
		native: func(src, out string) *exec.Cmd {
			return exec.Command("clang", "-O2", "-Wall", "-Werror", "-o", out, src)
		},
		wasm: func(src, out string) *exec.Cmd {
			return exec.Command("clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-Wall", "-Werror",
				"-o", out, src)
		},
	},
	{
		lang: "rust",
		main: "main.rs",
		missing: func() string {
			return missingFiles("/usr/bin/rustc", "/usr/lib/rustlib/wasm32-wasi")
		},
		native: func(src, out string) *exec.Cmd {
			return exec.Command("/usr/bin/rustc", "--edition", "2021", "-O", "-o", out, src)
		},
		wasm: func(src, out string) *exec.Cmd {
			return exec.Command("/usr/bin/rustc", "--edition", "2021", "--target", "wasm32-wasi", "-O",
				"-C", "strip=symbols", "-o", out, src)
		},
	},
}

// missingFiles names the files (glob patterns) that match nothing.
func missingFiles(patterns ...string) string {
	var missing []string
	for _, p := range patterns {
		if found, _ := filepath.Glob(p); len(found) == 0 {
			missing = append(missing, p)
		}
	}
	return strings.Join(missing, ", ")
}

// A kitGame is a game whose kits play a house bot, and the check that the
// match ran to its proper end.
type kitGame struct {
	id       string
	opponent string
	// complete checks the replay of a whole match.
	complete func(t *testing.T, r *replay.Replay)
}

// opponent is the house bot a game's starter kits play: its second (the
// first is often random, which tells little).
func opponent(g game.Game) kitGame {
	bots := g.HouseBots()
	return kitGame{g.Info().ID, "builtin:" + bots[min(1, len(bots)-1)].Name, ranToItsEnd}
}

// ranToItsEnd: the match ended by the game's rules (play checks that every
// answer of the kit was taken), and recorded every turn it played.
func ranToItsEnd(t *testing.T, r *replay.Replay) {
	t.Helper()
	if r.Result.Turns == 0 || r.Result.Turns != len(r.Turns) {
		t.Errorf("the match lasted %d turns (%d recorded)", r.Result.Turns, len(r.Turns))
	}
}

func wantTurns(t *testing.T, r *replay.Replay, n int) {
	t.Helper()
	if r.Result.Turns != n || len(r.Turns) != n {
		t.Errorf("the match lasted %d turns (%d recorded), want %d", r.Result.Turns, len(r.Turns), n)
	}
}

// TestKits writes every kit with `arena new` into a folder outside the
// repository and runs the commands of its own README: the first shell block
// builds the wasm module, the second the native program, the third checks
// the module with `arena check` (a smoke match in both seats) and plays it.
// Then both builds play a house bot: they must play the very same game.
func TestKits(t *testing.T) {
	// The kits of one game play alike in every language: the first kit's
	// replay of each game is the reference for the others.
	reference := map[string]*replay.Replay{}
	for _, tc := range toolchains {
		for _, gm := range games.All() {
			g := opponent(gm)
			if !slices.Contains(kits.Languages(gm), tc.lang) {
				t.Errorf("%s has no %s kit", g.id, tc.lang)
				continue
			}
			t.Run(tc.lang+"/"+g.id, func(t *testing.T) {
				if m := tc.missing(); m != "" {
					t.Fatalf("the %s toolchain is missing (%s): run scripts/install-toolchains.sh as root", tc.lang, m)
				}
				dir := filepath.Join(t.TempDir(), "mybot")
				if out, err := exec.Command(arenaBin, "new", "--lang", tc.lang, "--game", g.id, dir).CombinedOutput(); err != nil {
					t.Fatalf("arena new: %v\n%s", err, out)
				}
				readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
				if err != nil {
					t.Fatal(err)
				}
				blocks := shellBlocks(string(readme))
				if len(blocks) < 2 {
					t.Fatalf("the README has %d shell blocks, want the wasm build then the native build", len(blocks))
				}
				runBlock(t, dir, blocks[0])
				runBlock(t, dir, blocks[1])
				wasm, native := filepath.Join(dir, "bot.wasm"), filepath.Join(dir, "bot")

				// The README's third block checks the module and plays the
				// kit in both seats, natively against wasm, with `arena`.
				if len(blocks) < 3 {
					t.Fatal("the README has no block of arena commands")
				}
				if out := runBlock(t, dir, blocks[2]); !strings.Contains(out, "PASS") || strings.Count(out, "1. seat ") != 2 {
					t.Fatalf("the README's arena commands printed:\n%s", out)
				}
				r := play(t, g, "exec:"+native, filepath.Join(dir, "native.replay"))
				g.complete(t, r)
				if ref := reference[g.id]; ref != nil {
					sameGame(t, ref, r)
				} else {
					reference[g.id] = r
				}
				rw := play(t, g, "wasm:"+wasm, filepath.Join(dir, "wasm.replay"))
				g.complete(t, rw)
				sameGame(t, r, rw)
			})
		}
	}
}

var shellBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// shellBlocks returns the shell blocks of a README, in order.
func shellBlocks(readme string) []string {
	var blocks []string
	for _, m := range shellBlock.FindAllStringSubmatch(readme, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// runBlock runs a README's shell block in dir, as a user would paste it,
// with the arena command under test first on $PATH, and returns its output.
func runBlock(t *testing.T, dir, block string) string {
	t.Helper()
	cmd := exec.Command("sh", "-e", "-c", block)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(arenaBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("in %s:\n%s\n%v\n%s", dir, block, err, out)
	}
	return string(out)
}

// build runs a build command and returns the file it made.
func build(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out := cmd.Args[len(cmd.Args)-1]
	for i, a := range cmd.Args {
		if a == "-o" {
			out = cmd.Args[i+1]
		}
	}
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, msg)
	}
	return out
}

// summary is the part of `arena match --json` the tests read.
type summary struct {
	Turns    int                   `json:"turns"`
	Statuses []map[game.Status]int `json:"statuses"`
}

// play runs `arena match` with the kit in seat 0 and returns the replay. It
// checks that every answer of the kit got "ok" (or "ignored" in the turns the
// game does not apply it).
func play(t *testing.T, g kitGame, kit, replayFile string) *replay.Replay {
	t.Helper()
	cmd := exec.Command(arenaBin, "match", "--game", g.id, "--seed", "7", "--bot", kit, "--bot", g.opponent,
		"--json", "--replay", replayFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("arena match %s: %v\n%s", kit, err, stderr.String())
	}
	var s summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("arena match --json printed %q: %v", stdout.String(), err)
	}
	if len(s.Statuses) != 2 {
		t.Fatalf("statuses of %d seats, want 2", len(s.Statuses))
	}
	r, err := replay.Load(replayFile)
	if err != nil {
		t.Fatal(err)
	}
	asked, fuel, most := 0, int64(0), int64(0)
	for _, turn := range r.Turns {
		for _, seat := range turn.Seats {
			if seat.Seat != 0 {
				continue
			}
			asked++
			fuel += seat.Fuel
			most = max(most, seat.Fuel)
			if seat.Status != game.OK && seat.Status != game.Ignored {
				t.Errorf("%s: turn %d: status %s (%s), answer %q", kit, turn.Turn, seat.Status, seat.Reason, seat.Answer)
			}
		}
	}
	if got := s.Statuses[0][game.OK] + s.Statuses[0][game.Ignored]; got != asked || asked == 0 {
		t.Errorf("%s: %d answers ok or ignored of %d asked: %v", kit, got, asked, s.Statuses[0])
	}
	if fuel > 0 { // the figures of docs/bots.md
		t.Logf("as wasm: %d answers, fuel per answer: mean %d, most %d", asked, fuel/int64(asked), most)
	}
	if s.Turns != r.Result.Turns {
		t.Errorf("--json says %d turns, the replay %d", s.Turns, r.Result.Turns)
	}
	return r
}

// sameGame checks that two replays hold the same answers, statuses, applied
// actions and state hashes turn by turn. Only the fuel may differ: native
// bots are not metered, and kits in different languages spend differently.
func sameGame(t *testing.T, want, got *replay.Replay) {
	t.Helper()
	if len(want.Turns) != len(got.Turns) {
		t.Fatalf("%s played %d turns, %s %d", want.Bots[0].Spec, len(want.Turns), got.Bots[0].Spec, len(got.Turns))
	}
	for i := range want.Turns {
		a, b := withoutFuel(want.Turns[i]), withoutFuel(got.Turns[i])
		if !bytes.Equal(a, b) {
			t.Fatalf("turn %d differs:\n%s: %s\n%s: %s", i+1, want.Bots[0].Spec, a, got.Bots[0].Spec, b)
		}
	}
}

func withoutFuel(turn replay.Turn) []byte {
	seats := make([]replay.Seat, len(turn.Seats))
	for i, s := range turn.Seats {
		s.Fuel = 0
		seats[i] = s
	}
	turn.Seats = seats
	b, _ := json.Marshal(turn)
	return b
}

// TestFuelLeft plays a small bot per SDK that logs, each turn, the tank its
// observation announces and what the SDK's fuel_left reads live: as a wasm
// bot the live reading is a little below the announced tank (the bot has
// spent some since), natively it is -1 and no tank is announced.
func TestFuelLeft(t *testing.T) {
	fuelbots := map[string]string{
		"go":   "../../sdk/testdata/fuelbot",
		"c":    "../../sdk/c/testdata/fuelbot.c",
		"rust": "../../sdk/rust/testdata/fuelbot.rs",
	}
	for _, tc := range toolchains {
		t.Run(tc.lang, func(t *testing.T) {
			if m := tc.missing(); m != "" {
				t.Fatalf("the %s toolchain is missing (%s): run scripts/install-toolchains.sh as root", tc.lang, m)
			}
			src := fuelbots[tc.lang]
			if tc.main == "" {
				src = "./" + src
			}
			dir := t.TempDir()
			for _, kind := range []string{"exec", "wasm"} {
				bin := filepath.Join(dir, "bot."+kind)
				if kind == "exec" {
					build(t, tc.native(src, bin))
				} else {
					build(t, tc.wasm(src, bin))
				}
				logs := filepath.Join(dir, kind+"-logs")
				cmd := exec.Command(arenaBin, "match", "--game", "dots-and-boxes", "--bot", kind+":"+bin,
					"--bot", "builtin:greedy", "--logs", logs)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("arena match: %v\n%s", err, out)
				}
				log, err := os.ReadFile(filepath.Join(logs, "seat-0.log"))
				if err != nil {
					t.Fatal(err)
				}
				checkFuelLog(t, kind, string(log))
			}
		})
	}
}

// checkFuelLog checks the "left=L live=F" lines of a fuelbot's log.
func checkFuelLog(t *testing.T, kind, log string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != 60 { // Dots and Boxes asks both seats on each of its 60 turns
		t.Fatalf("%s: %d log lines, want 60:\n%s", kind, len(lines), log)
	}
	for i, line := range lines {
		var left, live int64
		if _, err := fmt.Sscanf(line, "left=%d live=%d", &left, &live); err != nil {
			t.Fatalf("%s: log line %q: %v", kind, line, err)
		}
		ok := left == 0 && live == -1 // native: unmetered
		if kind == "wasm" {
			// The bot has parsed the observation before it reads the tank.
			ok = left > 0 && live > 0 && live < left && left-live < 1_000_000
		}
		if !ok {
			t.Errorf("%s: turn %d: observation says %d left, fuel_left says %d", kind, i+1, left, live)
		}
	}
}

// TestWasmMatchesRerun is the determinism promise end to end: a match between
// two wasm bots (Go and C kits) written twice gives byte-identical replays,
// and `arena replay rerun` re-executes the bots, found by their hash next to
// the replay after the originals are gone, with every answer, status and
// fuel figure the same.
func TestWasmMatchesRerun(t *testing.T) {
	dnb, err := games.Lookup("dots-and-boxes")
	if err != nil {
		t.Fatal(err)
	}
	var bots []string
	dir := t.TempDir()
	for _, tc := range toolchains[:2] {
		if m := tc.missing(); m != "" {
			t.Fatalf("the %s toolchain is missing (%s): run scripts/install-toolchains.sh as root", tc.lang, m)
		}
		out := filepath.Join(dir, tc.lang+".wasm")
		k, err := kits.Find(dnb, tc.lang, "dots-and-boxes")
		if err != nil {
			t.Fatal(err)
		}
		bots = append(bots, "wasm:"+build(t, tc.wasm(tc.source(kitDir(t, k)), out)))
	}
	var replays [2][]byte
	for i := range replays {
		file := filepath.Join(dir, fmt.Sprintf("run%d.replay", i))
		cmd := exec.Command(arenaBin, "match", "--game", "dots-and-boxes", "--seed", "11",
			"--bot", bots[0], "--bot", bots[1], "--replay", file)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("arena match: %v\n%s", err, out)
		}
		replays[i], _ = os.ReadFile(file)
	}
	if !bytes.Equal(replays[0], replays[1]) {
		t.Fatal("two runs of the same wasm match wrote different replays")
	}
	r, err := replay.Parse(replays[0])
	if err != nil {
		t.Fatal(err)
	}
	if r.Bots[0].SHA256 == "" || r.Turns[0].Seats[0].Fuel == 0 {
		t.Fatalf("the replay lacks the bots' hashes or fuel: %+v %+v", r.Bots, r.Turns[0].Seats[0])
	}
	// Move everything to a fresh folder: the bots must be found by hash.
	moved := t.TempDir()
	for i, b := range bots {
		data, _ := os.ReadFile(strings.TrimPrefix(b, "wasm:"))
		os.WriteFile(filepath.Join(moved, fmt.Sprintf("seat%d.wasm", i)), data, 0o644)
	}
	file := filepath.Join(moved, "match.replay")
	os.WriteFile(file, replays[0], 0o644)
	os.RemoveAll(dir)
	out, err := exec.Command(arenaBin, "replay", "rerun", file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("arena replay rerun: %v\n%s", err, out)
	}
}
