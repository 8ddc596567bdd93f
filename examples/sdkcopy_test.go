package examples_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the SDK and engine copies in the kits from their sources")

// sdkCopies maps each copy's name in a kit folder to its source, per language.
var sdkCopies = map[string]map[string]string{
	"go": {
		"sdk.go":              "../sdk/sdk.go",
		"sdk_json.go":         "../sdk/json.go",
		"sdk_fuel_wasip1.go":  "../sdk/fuel_wasip1.go",
		"sdk_fuel_other.go":   "../sdk/fuel_other.go",
		"sdk_stdio_wasip1.go": "../sdk/stdio_wasip1.go",
		"sdk_stdio_other.go":  "../sdk/stdio_other.go",
	},
	"c":    {"arena.h": "../sdk/c/arena.h"},
	"rust": {"arena.rs": "../sdk/rust/arena.rs"},
}

// engineCopies are the Go files a kit shares with a house bot, per kit
// folder: the search kit is the engine of builtin:search, not a rewrite.
var engineCopies = map[string]map[string]string{
	"go/dots-and-boxes-search": {
		"board.go":  "../games/dotsandboxes/board.go",
		"coins.go":  "../games/dotsandboxes/coins.go",
		"search.go": "../games/dotsandboxes/search.go",
	},
}

// packageClause is the first package clause of a Go file.
var packageClause = regexp.MustCompile(`(?m)^package \w+$`)

// copyOf is what a kit's copy of src holds: a line that says where it comes
// from, then the source (Go's in package main, so a kit is one package that
// needs nothing outside its folder).
func copyOf(lang, src string, data []byte) []byte {
	var out bytes.Buffer
	switch lang {
	case "go":
		out.WriteString("// Code generated from the Arena repository's " + strings.TrimPrefix(src, "../") + " by `go generate ./examples`. DO NOT EDIT.\n\n")
		if loc := packageClause.FindIndex(data); loc != nil {
			data = append(append(append([]byte(nil), data[:loc[0]]...), "package main"...), data[loc[1]:]...)
		}
	case "c":
		out.WriteString("/* Copied from the Arena repository's " + strings.TrimPrefix(src, "../") + " by `go generate ./examples`: edit that file. */\n")
	case "rust":
		out.WriteString("// Copied from the Arena repository's " + strings.TrimPrefix(src, "../") + " by `go generate ./examples`: edit that file.\n")
	}
	out.Write(data)
	return out.Bytes()
}

// TestSDKCopies fails when a kit's copy of the SDK differs from sdk/, or a
// kit's copy of an engine file from the game's, so the copies cannot drift.
// With -update it rewrites them.
func TestSDKCopies(t *testing.T) {
	for kit, copies := range engineCopies {
		for name, src := range copies {
			checkCopy(t, "go", src, filepath.Join(kit, name))
		}
	}
	for lang, copies := range sdkCopies {
		kits, err := filepath.Glob(filepath.Join(lang, "*"))
		if err != nil || len(kits) == 0 {
			t.Fatalf("no %s kits: %v", lang, err)
		}
		for _, kit := range kits {
			for name, src := range copies {
				checkCopy(t, lang, src, filepath.Join(kit, name))
			}
		}
	}
}

// checkCopy compares (or, with -update, rewrites) one copy of src at path.
func checkCopy(t *testing.T, lang, src, path string) {
	t.Helper()
	data, err := os.ReadFile(src)
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
		t.Errorf("%s is not a copy of %s (%v): run go generate ./examples", path, src, err)
	}
}
