package kits_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/kits"
)

// dearPackages are the packages a Go kit must not link: each costs every
// wasm bot fuel at start-up (package initialisation, a larger module whose
// every call and branch pays more) or per answer (reflection).
var dearPackages = []string{"encoding/json", "fmt", "os", "reflect", "unicode", "bufio", "syscall"}

// TestGoKitsLinkNoDearPackages: the SDK copy and every Go kit build for the
// platform without the packages of dearPackages.
func TestGoKitsLinkNoDearPackages(t *testing.T) {
	var dirs []string
	for _, g := range games.All() {
		for _, k := range kits.Of(g) {
			if k.Lang == "go" {
				dirs = append(dirs, kitDir(t, k))
			}
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no Go kits")
	}
	for _, kit := range dirs {
		cmd := exec.Command("go", "list", "-deps", ".")
		cmd.Dir = kit
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: go list: %v", kit, err)
		}
		deps := strings.Fields(string(out))
		for _, p := range dearPackages {
			if slices.Contains(deps, p) {
				t.Errorf("%s links %s", kit, p)
			}
		}
	}
}

// TestGoKitFuel holds the Go Dots and Boxes kit to the fuel docs/fuel.md
// reports: an answer within 300,000 (it was 1,200,000 with encoding/json),
// start-up within 3,800,000, nearly all of it the Go runtime's own start
// (it was 5,300,000). Fuel is deterministic: the same module, built by the
// same Go toolchain, spends the same on every machine.
func TestGoKitFuel(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "bot.wasm")
	build := exec.Command("go", "build", "-o", wasm, ".")
	dnb, err := games.Lookup("dots-and-boxes")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kits.Find(dnb, "go", "dots-and-boxes")
	if err != nil {
		t.Fatal(err)
	}
	build.Dir = writeKit(t, k) // with its go.mod, as the README builds it
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	check := exec.Command(arenaBin, "check", "--game", "dots-and-boxes", "--json", wasm)
	check.Env = append(os.Environ(), "ARENA_WASM_CACHE="+filepath.Join(dir, "cache"))
	out, err := check.Output()
	if err != nil {
		t.Fatalf("arena check: %v\n%s", err, out)
	}
	var rep struct {
		Passed      bool  `json:"passed"`
		StartupFuel int64 `json:"startup_fuel"`
		Matches     []struct {
			Fuel struct {
				Median int64 `json:"median"`
			} `json:"fuel"`
		} `json:"matches"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || !rep.Passed || len(rep.Matches) == 0 {
		t.Fatalf("arena check: %v\n%s", err, out)
	}
	if rep.StartupFuel > 3_800_000 {
		t.Errorf("start-up spent %d fuel, want at most 3,800,000", rep.StartupFuel)
	}
	for _, m := range rep.Matches {
		if m.Fuel.Median > 300_000 {
			t.Errorf("answers spent a median of %d fuel, want at most 300,000", m.Fuel.Median)
		}
	}
}

// TestGoKitVersion: every Go kit, written out as `arena new` writes it, is a
// module of GoVersion that passes go vet (whose stdversion check finds a use
// of the standard library newer than the go.mod's release) for the platform
// and natively, and whose build embeds no default GODEBUG: the go line is
// the toolchain's release, so the runtime has no compatibility settings to
// parse at start (they cost about 120,000 fuel).
func TestGoKitVersion(t *testing.T) {
	n := 0
	for _, g := range games.All() {
		for _, k := range kits.Of(g) {
			if k.Lang != "go" {
				continue
			}
			n++
			dir := writeKit(t, k)
			mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
			if err != nil || !strings.Contains(string(mod), "\ngo "+kits.GoVersion+"\n") {
				t.Fatalf("%s: go.mod %q (%v), want one for go %s", k.Name, mod, err, kits.GoVersion)
			}
			for _, env := range [][]string{{"GOOS=wasip1", "GOARCH=wasm"}, nil} {
				cmd := exec.Command("go", "vet", ".")
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), env...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s: go vet %v: %v\n%s", k.Name, env, err, out)
				}
			}
			cmd := exec.Command("go", "list", "-f", "{{.DefaultGODEBUG}}", ".")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: go list: %v", k.Name, err)
			}
			if godebug := strings.TrimSpace(string(out)); godebug != "" {
				t.Errorf("%s: the build embeds GODEBUG %s: GoVersion %s is older than the toolchain (%s)", k.Name, godebug, kits.GoVersion, runtime.Version())
			}
		}
	}
	if n == 0 {
		t.Fatal("no Go kits")
	}
}

// writeKit writes k as `arena new` does, into a new folder, and returns it.
func writeKit(t *testing.T, k kits.Kit) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), k.Name)
	if err := k.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
