package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/kits"
)

// A siteGame is a game with its part of the site: the files of its web/
// folder, which its package embeds (docs/site.md, "A game's board"). The
// site knows games only through this and game.Info.
type siteGame interface {
	game.Game
	// Site holds board.js and rules.html, and optionally board.css and
	// thumb.html, at its root.
	Site() fs.FS
}

// gameFiles is what the site serves and shows of one game.
type gameFiles struct {
	board, css asset         // board.js, board.css (css.data nil when absent)
	rules      template.HTML // rules.html, executed once with the game
	thumb      template.HTML // thumb.html, or empty
	kits       []kits.Kit    // its starter kits, listed once (the + New bot page, /kits/)
}

// An asset is a file served under /static/ with its ETag.
type asset struct {
	data        []byte
	etag, ctype string
}

func newAsset(data []byte, ctype string) asset {
	sum := sha256.Sum256(data)
	return asset{data: data, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, ctype: ctype}
}

// serve answers with the asset: the browser asks again each time (no-cache)
// and is answered 304 while the ETag holds.
func (a asset) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", a.ctype)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.data))
}

// catalog is the site's games, in the order its caller listed them.
type catalog struct {
	list  []siteGame
	byID  map[string]siteGame
	files map[string]*gameFiles
}

// newCatalog checks every game's part of the site and reads it, so that a
// game with a missing or broken file stops the site at its start rather
// than one page at a time.
func newCatalog(gs []game.Game, funcs template.FuncMap) (*catalog, error) {
	if len(gs) == 0 {
		return nil, errors.New("the site is given no games")
	}
	c := &catalog{byID: map[string]siteGame{}, files: map[string]*gameFiles{}}
	for _, g := range gs {
		id := g.Info().ID
		sg, ok := g.(siteGame)
		if !ok {
			return nil, fmt.Errorf("game %s has no part of the site (a Site method giving its web/ files)", id)
		}
		if c.byID[id] != nil {
			return nil, fmt.Errorf("game %s is given twice", id)
		}
		f, err := readGameFiles(sg, funcs)
		if err != nil {
			return nil, fmt.Errorf("game %s: %w", id, err)
		}
		f.kits = kits.Of(g)
		c.list = append(c.list, sg)
		c.byID[id] = sg
		c.files[id] = f
	}
	return c, nil
}

func readGameFiles(g siteGame, funcs template.FuncMap) (*gameFiles, error) {
	site := g.Site()
	js, err := fs.ReadFile(site, "board.js")
	if err != nil {
		return nil, fmt.Errorf("its board: %w", err)
	}
	f := &gameFiles{board: newAsset(js, "text/javascript; charset=utf-8")}
	if css, err := fs.ReadFile(site, "board.css"); err == nil {
		f.css = newAsset(css, "text/css; charset=utf-8")
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("its style sheet: %w", err)
	}
	view := viewOf(g)
	rules, err := fs.ReadFile(site, "rules.html")
	if err != nil {
		return nil, fmt.Errorf("its rules page: %w", err)
	}
	if f.rules, err = execFragment("rules.html", rules, funcs, view); err != nil {
		return nil, err
	}
	if thumb, err := fs.ReadFile(site, "thumb.html"); err == nil {
		if f.thumb, err = execFragment("thumb.html", thumb, funcs, nil); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("its thumbnail: %w", err)
	}
	return f, nil
}

// execFragment runs a game's template fragment once: what it shows depends
// on the game alone, so the result is kept as the page's HTML (escaped by
// html/template as it ran).
func execFragment(name string, text []byte, funcs template.FuncMap, data any) (template.HTML, error) {
	t, err := template.New(name).Funcs(funcs).Parse(string(text))
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return template.HTML(b.String()), nil
}

func (c *catalog) lookup(id string) siteGame { return c.byID[id] }

// gameAsset answers GET /static/games/{game}/{file}: a game's board script
// or style sheet.
func (s *Site) gameAsset(w http.ResponseWriter, r *http.Request) {
	f := s.games.files[r.PathValue("game")]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	switch r.PathValue("file") {
	case "board.js":
		f.board.serve(w, r)
	case "board.css":
		if f.css.data == nil {
			http.NotFound(w, r)
			return
		}
		f.css.serve(w, r)
	default:
		http.NotFound(w, r)
	}
}
