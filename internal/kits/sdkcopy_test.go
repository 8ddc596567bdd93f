package kits_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/kits"
)

var update = flag.Bool("update", false, "rewrite the SDK and engine copies in the kits from their sources")

// sdkCopies maps each SDK copy's name in a kit folder to its source (from
// the repository's root), per language: every kit holds them.
var sdkCopies = map[string]map[string]string{
	"go": {
		"sdk.go":              "sdk/sdk.go",
		"sdk_json.go":         "sdk/json.go",
		"sdk_fuel_wasip1.go":  "sdk/fuel_wasip1.go",
		"sdk_fuel_other.go":   "sdk/fuel_other.go",
		"sdk_stdio_wasip1.go": "sdk/stdio_wasip1.go",
		"sdk_stdio_other.go":  "sdk/stdio_other.go",
	},
	"c":    {"arena.h": "sdk/c/arena.h"},
	"rust": {"arena.rs": "sdk/rust/arena.rs"},
}

// copyHeader is the first line of a copy, which names its source: a kit
// may also copy a game's own files (the Dots and Boxes search kit is the
// engine of builtin:search, not a rewrite), found by this line.
var copyHeader = regexp.MustCompile(`^(?://|/\*) (?:Code generated from|Copied from) the Arena repository's (\S+) by `)

// packageClause is the first package clause of a Go file.
var packageClause = regexp.MustCompile(`(?m)^package \w+$`)

// copyOf is what a kit's copy of src holds: a line that says where it comes
// from, then the source (Go's in package main, so a kit is one package that
// needs nothing outside its folder).
func copyOf(lang, src string, data []byte) []byte {
	var out bytes.Buffer
	switch lang {
	case "go":
		out.WriteString("// Code generated from the Arena repository's " + src + " by `go generate ./internal/kits`. DO NOT EDIT.\n\n")
		if loc := packageClause.FindIndex(data); loc != nil {
			data = append(append(append([]byte(nil), data[:loc[0]]...), "package main"...), data[loc[1]:]...)
		}
	case "c":
		out.WriteString("/* Copied from the Arena repository's " + src + " by `go generate ./internal/kits`: edit that file. */\n")
	case "rust":
		out.WriteString("// Copied from the Arena repository's " + src + " by `go generate ./internal/kits`: edit that file.\n")
	}
	out.Write(data)
	return out.Bytes()
}

// kitDir is the folder of kit k in the repository.
func kitDir(t *testing.T, k kits.Kit) string {
	t.Helper()
	return filepath.Join(packageDir(t, k.Game), "kits", k.Lang, k.Name)
}

// packageDir is the folder of g's package.
func packageDir(t *testing.T, g game.Game) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", reflect.TypeOf(g).PkgPath()).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", reflect.TypeOf(g).PkgPath(), err)
	}
	return strings.TrimSpace(string(out))
}

// repoRoot is the repository's root.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestSDKCopies fails when a kit's copy of the SDK differs from sdk/, or a
// kit's copy of a game's file from that file, so the copies cannot drift.
// With -update it rewrites them.
func TestSDKCopies(t *testing.T) {
	root := repoRoot(t)
	n := 0
	for _, g := range games.All() {
		for _, k := range kits.Of(g) {
			n++
			dir := kitDir(t, k)
			for name, src := range sdkCopies[k.Lang] {
				checkCopy(t, root, k.Lang, src, filepath.Join(dir, name))
			}
			files, err := k.Files()
			if err != nil {
				t.Fatal(err)
			}
			for name, data := range files {
				m := copyHeader.FindSubmatch(data)
				if m == nil || sdkCopies[k.Lang][name] != "" {
					continue
				}
				checkCopy(t, root, k.Lang, string(m[1]), filepath.Join(dir, name))
			}
		}
	}
	if n == 0 {
		t.Fatal("no kits")
	}
}

// checkCopy compares (or, with -update, rewrites) one copy of src at path.
func checkCopy(t *testing.T, root, lang, src, path string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, src))
	if err != nil {
		t.Fatal(err)
	}
	want := copyOf(lang, src, data)
	if lang == "go" && !bytes.Contains(want, []byte("\npackage main\n")) {
		t.Fatalf("%s has no package clause to rewrite", src)
	}
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is not a copy of %s (%v): run go generate ./internal/kits", path, src, err)
	}
}
