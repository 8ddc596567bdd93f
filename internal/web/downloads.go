package web

import (
	"archive/zip"
	"bytes"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/arenabots/arena/internal/kits"
)

// What a newcomer needs to start without a clone of the repository: the
// starter kits this binary embeds, as archives, and the arena command
// itself, for the platform the server runs on (+ New bot links both).

// kitArchive answers GET /kits/{lang}/{kit}: the kit (a game's id, or
// GAME-KIT for a larger kit, such as a search) as a zip of one
// folder, with the SDK copy it builds with.
func (s *Site) kitArchive(w http.ResponseWriter, r *http.Request) {
	lang, name := r.PathValue("lang"), r.PathValue("kit")
	kit, ok := s.findKit(lang, strings.TrimSuffix(name, ".zip"))
	if !ok || !strings.HasSuffix(name, ".zip") {
		s.fail(w, r, http.StatusNotFound, "There is no such starter kit: the kits are listed on the + New bot page.")
		return
	}
	files, err := kit.Files()
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "There is no such starter kit: the kits are listed on the + New bot page.")
		return
	}
	data, err := zipKit(kit.Name+"-"+lang, files)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, "The kit could not be packed; try again later.")
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="`+kit.Name+"-"+lang+`.zip"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// findKit finds the kit called name (its folder) in lang among the site's
// games' kits.
func (s *Site) findKit(lang, name string) (kits.Kit, bool) {
	for _, f := range s.games.files {
		for _, k := range f.kits {
			if k.Lang == lang && k.Name == name {
				return k, true
			}
		}
	}
	return kits.Kit{}, false
}

// zipKit packs files into a zip of one folder, in name order, with a fixed
// time: the same kit gives the same bytes.
func zipKit(folder string, files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: folder + "/" + n, Method: zip.Deflate, Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(files[n]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// kitLink is one downloadable kit; Label names it for people: its
// language, and what a larger kit adds ("Go, with search").
type kitLink struct{ Lang, Kit, Label string }

// langNames are the kits' languages as people write them.
var langNames = map[string]string{"go": "Go", "c": "C", "rust": "Rust"}

// gameKits lists the kits of the game id in every language: its starter,
// then any larger kit (GAME-KIT).
func (s *Site) gameKits(id string) []kitLink {
	var out []kitLink
	if f := s.games.files[id]; f != nil {
		for _, k := range f.kits {
			label := langNames[k.Lang]
			if label == "" {
				label = k.Lang
			}
			if extra := strings.TrimPrefix(k.Name, id+"-"); extra != k.Name {
				label += ", with " + extra
			}
			out = append(out, kitLink{k.Lang, k.Name, label})
		}
	}
	slices.SortStableFunc(out, func(a, b kitLink) int { return len(a.Kit) - len(b.Kit) })
	return out
}

// commandName is the arena command's download name for the server's
// platform: arena-linux-amd64, arena-windows-amd64.exe.
func commandName() string {
	name := "arena-" + runtime.GOOS + "-" + runtime.GOARCH
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return name
}

// arenaCommand answers GET /download/{name}: the running arena binary
// itself, the command line of this very version, for the server's
// platform (the only one it has).
func (s *Site) arenaCommand(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("name") != commandName() {
		s.fail(w, r, http.StatusNotFound, "This server offers the arena command for its own platform only: "+commandName()+". On another platform, upload your bot with the form on the + New bot page: it checks the module the same way.")
		return
	}
	path, err := os.Executable()
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "The arena command is not available from this server.")
		return
	}
	f, err := os.Open(path)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "The arena command is not available from this server.")
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		s.fail(w, r, http.StatusNotFound, "The arena command is not available from this server.")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+commandName()+`"`)
	http.ServeContent(w, r, "", info.ModTime(), f)
}
