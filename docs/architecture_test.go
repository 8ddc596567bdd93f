// Package docs holds the checks that keep the documentation true to the
// code.
package docs

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPackageTable fails when architecture.md's package table names a
// package the module does not have, or leaves out one it has: the page is
// the newcomer's map of the tree, so it must be the tree as it is.
func TestPackageTable(t *testing.T) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	list := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Module.Path}}", "./...")
	list.Dir = ".." // the module's root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, module, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		if rel == "" {
			continue
		}
		pkgs = append(pkgs, rel)
	}
	// The package column is the table's first: `a`, `b/...`.
	named := map[string]bool{}
	cell := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			named[m[1]] = true
		}
	}
	// games/<g>/... stands for every game's package and those under it, so
	// that a new game needs no row of its own.
	games := regexp.MustCompile(`^games/[a-z0-9]+(/|$)`)
	covered := func(pkg string) bool {
		if named[pkg] || (named["games/<g>/..."] && games.MatchString(pkg)) {
			return true
		}
		for n := range named {
			if base, ok := strings.CutSuffix(n, "/..."); ok && (pkg == base || strings.HasPrefix(pkg, base+"/")) {
				return true
			}
		}
		return false
	}
	for _, p := range pkgs {
		if !covered(p) {
			t.Errorf("architecture.md's table leaves out package %s", p)
		}
	}
	for n := range named {
		if n == "games/<g>/..." {
			continue
		}
		base := strings.TrimSuffix(n, "/...")
		if !slices.ContainsFunc(pkgs, func(p string) bool { return p == base || strings.HasPrefix(p, base+"/") }) {
			t.Errorf("architecture.md's table names %s, which the module does not have", n)
		}
	}
}
