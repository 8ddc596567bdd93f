package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
)

// TestPlatformNamesNoGame: the command line and the house ladder take every
// game from games.All (and a game's parts through the interfaces of
// game/kits.go), so no code of theirs names a game, and a new game needs no
// change there. A file names a game when it imports the game's package (or
// one inside it) or holds a string, a struct tag included, with the game's
// id in it. Tests may name games: they pin particular behaviour.
func TestPlatformNamesNoGame(t *testing.T) {
	var pkgs, ids []string
	for _, g := range games.All() {
		pkgs = append(pkgs, reflect.TypeOf(g).PkgPath())
		ids = append(ids, regexp.QuoteMeta(g.Info().ID))
	}
	// An id within a word ("my-dots-and-boxes-bot") is still the id; an id
	// inside a longer one ("grid-royale-2") is not.
	id := regexp.MustCompile(`(^|[^a-z0-9-])(` + strings.Join(ids, "|") + `)($|[^a-z0-9-])`)
	for _, dir := range []string{"../cmd", "../internal/housebots"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				for _, g := range pkgs {
					if p == g || strings.HasPrefix(p, g+"/") {
						t.Errorf("%s imports %s", path, p)
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					s = lit.Value
				}
				if m := id.FindStringSubmatch(s); m != nil {
					t.Errorf("%s names the game %s: %s", path, m[2], lit.Value)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
