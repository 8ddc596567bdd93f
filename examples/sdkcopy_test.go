package examples_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the SDK copies in the kits from sdk/")

// sdkCopies maps each copy's name in a kit folder to its source, per language.
var sdkCopies = map[string]map[string]string{
	"go": {
		"sdk.go":             "../sdk/sdk.go",
		"sdk_json.go":        "../sdk/json.go",
		"sdk_fuel_wasip1.go": "../sdk/fuel_wasip1.go",
		"sdk_fuel_other.go":  "../sdk/fuel_other.go",
	},
	"c":    {"arena.h": "../sdk/c/arena.h"},
	"rust": {"arena.rs": "../sdk/rust/arena.rs"},
}

// copyOf is what a kit's copy of src holds: a line that says where it comes
// from, then the source (Go's in package main, so a kit is one package that
// needs nothing outside its folder).
func copyOf(lang, src string, data []byte) []byte {
	var out bytes.Buffer
	switch lang {
	case "go":
		out.WriteString("// Code generated from the Arena repository's " + strings.TrimPrefix(src, "../") + " by `go generate ./examples`. DO NOT EDIT.\n\n")
		data = bytes.Replace(append([]byte("\n"), data...), []byte("\npackage sdk\n"), []byte("\npackage main\n"), 1)[1:]
	case "c":
		out.WriteString("/* Copied from the Arena repository's " + strings.TrimPrefix(src, "../") + " by `go generate ./examples`: edit that file. */\n")
	case "rust":
		out.WriteString("// Copied from the Arena repository's " + strings.TrimPrefix(src, "../") + " by `go generate ./examples`: edit that file.\n")
	}
	out.Write(data)
	return out.Bytes()
}

// TestSDKCopies fails when a kit's copy of the SDK differs from sdk/, so the
// copies cannot drift. With -update it rewrites them.
func TestSDKCopies(t *testing.T) {
	for lang, copies := range sdkCopies {
		kits, err := filepath.Glob(filepath.Join(lang, "*"))
		if err != nil || len(kits) == 0 {
			t.Fatalf("no %s kits: %v", lang, err)
		}
		for _, kit := range kits {
			for name, src := range copies {
				data, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				want := copyOf(lang, src, data)
				if lang == "go" && !bytes.Contains(want, []byte("package main\n")) {
					t.Fatalf("%s has no package clause to rewrite", src)
				}
				path := filepath.Join(kit, name)
				if *update {
					if err := os.WriteFile(path, want, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s is not a copy of %s (%v): run go generate ./examples", path, src, err)
				}
			}
		}
	}
}
