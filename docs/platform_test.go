package docs

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
)

// platformParts are the parts of the tree that must name no particular
// game (games/README.md): a game is its package and its line in games.All.
// Enforced false lists what still names games, reported but not failed,
// until the work that moves those names into the games is done.
var platformParts = []struct {
	dir      string
	enforced bool
}{
	{"internal/web", true},
	{"cmd", false},
	{"internal/housebots", false},
}

// gameNames are what naming a game means: its id as a word, and an import
// of its package (or one under it).
func gameNames(t *testing.T) (ids []*regexp.Regexp, imports []string) {
	t.Helper()
	for _, g := range games.All() {
		id := g.Info().ID
		// A kit named ID-KIT names the game too.
		ids = append(ids, regexp.MustCompile(`(^|[^a-z0-9_-])`+regexp.QuoteMeta(id)+`($|[^a-z0-9_])`))
		pkg := reflect.TypeOf(g).PkgPath()
		if pkg == "" {
			t.Fatalf("game %s: no package path (a game is a named type of its package)", id)
		}
		imports = append(imports, pkg)
	}
	return ids, imports
}

// TestPlatformNamesNoGame fails when a non-test .go, .js, .html or .css
// file of a platform part holds a game's id or imports a game's package.
func TestPlatformNamesNoGame(t *testing.T) {
	ids, imports := gameNames(t)
	for _, part := range platformParts {
		var found []string
		err := filepath.WalkDir(filepath.Join("..", part.dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(p) {
			case ".go", ".js", ".html", ".css":
			default:
				return nil
			}
			if strings.HasSuffix(p, "_test.go") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel("..", p)
			for i, line := range strings.Split(string(data), "\n") {
				for k, re := range ids {
					if re.MatchString(line) {
						found = append(found, rel+":"+strconv.Itoa(i+1)+": the id "+games.All()[k].Info().ID)
					}
				}
				for _, pkg := range imports {
					if strings.Contains(line, `"`+pkg+`"`) || strings.Contains(line, `"`+pkg+`/`) {
						found = append(found, rel+":"+strconv.Itoa(i+1)+": imports "+pkg)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("reading %s: %v", part.dir, err)
		}
		for _, f := range found {
			if part.enforced {
				t.Errorf("%s names a game: %s", part.dir, f)
			}
		}
		if !part.enforced && len(found) > 0 {
			t.Logf("%s still names games in %d places (not enforced yet), e.g. %s", part.dir, len(found), found[0])
		}
	}
}

// TestSiteImportsNoGame fails when the site links in a game's package or
// the registry: it takes its games from its caller, so that `go list -deps
// ./internal/web` names no package under games/.
func TestSiteImportsNoGame(t *testing.T) {
	_, imports := gameNames(t)
	registry := path.Dir(imports[0]) // the games' parent: the registry, games/
	for _, pkg := range imports {
		if path.Dir(pkg) != registry {
			t.Fatalf("game package %s is not beside the others under %s", pkg, registry)
		}
	}
	list := exec.Command("go", "list", "-deps", "./internal/web")
	list.Dir = ".." // the module's root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps ./internal/web named %d packages: %q", len(deps), out)
	}
	for _, d := range deps {
		if d == registry || strings.HasPrefix(d, registry+"/") {
			t.Errorf("internal/web depends on %s", d)
		}
	}
}
