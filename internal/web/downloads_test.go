package web

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
)

// TestKitArchives: every kit the binary embeds downloads as a zip of one
// folder with its files and SDK copy, the same bytes every time; anything
// else is a 404 page.
func TestKitArchives(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All(), Service: true})
	site, err := New(Options{Games: games.All()})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	get := func(path string) (int, []byte) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	for _, k := range site.gameKits("dots-and-boxes") {
		code, body := get("/kits/" + k.Lang + "/" + k.Kit + ".zip")
		if code != http.StatusOK {
			t.Fatalf("%s/%s: %d", k.Lang, k.Kit, code)
		}
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatalf("%s/%s: %v", k.Lang, k.Kit, err)
		}
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		if !slices.Contains(names, k.Kit+"-"+k.Lang+"/README.md") {
			t.Fatalf("%s/%s holds %v: no README", k.Lang, k.Kit, names)
		}
		// A Go kit is a module once unpacked: its build is one command.
		if hasMod := slices.Contains(names, k.Kit+"-"+k.Lang+"/go.mod"); hasMod != (k.Lang == "go") {
			t.Fatalf("%s/%s holds %v: a go.mod %v, want one only in a Go kit", k.Lang, k.Kit, names, hasMod)
		}
		if _, again := get("/kits/" + k.Lang + "/" + k.Kit + ".zip"); !bytes.Equal(again, body) {
			t.Fatalf("%s/%s: two downloads differ", k.Lang, k.Kit)
		}
	}
	if kits := site.gameKits("dots-and-boxes"); len(kits) < 4 || kits[0].Kit != "dots-and-boxes" || !slices.Contains(kits, kitLink{"go", "dots-and-boxes-search", "Go, with search"}) {
		t.Fatalf("dots-and-boxes kits %v: want the three starters, then the search kit", kits)
	}
	// + New bot links every kit of the chosen game and the command.
	_, page := get("/bots/new?game=dots-and-boxes")
	for _, k := range site.gameKits("dots-and-boxes") {
		if !bytes.Contains(page, []byte(`href="/kits/`+k.Lang+"/"+k.Kit+`.zip"`)) {
			t.Errorf("+ New bot does not link the %s %s kit", k.Lang, k.Kit)
		}
	}
	if !bytes.Contains(page, []byte(`href="/download/`+commandName()+`"`)) {
		t.Errorf("+ New bot does not link the arena command")
	}
	for _, path := range []string{"/kits/go/nosuchgame.zip", "/kits/cobol/dots-and-boxes.zip", "/kits/go/dots-and-boxes", "/kits/go/..%2f..%2fgo.mod"} {
		if code, _ := get(path); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, code)
		}
	}
}

// TestArenaCommandDownload: the server hands out its own binary under its
// platform's name, and no other.
func TestArenaCommandDownload(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(self)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/download/" + commandName())
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || n != info.Size() || !strings.Contains(resp.Header.Get("Content-Disposition"), commandName()) {
		t.Fatalf("%d, %d bytes of %d, %q", resp.StatusCode, n, info.Size(), resp.Header.Get("Content-Disposition"))
	}
	resp, err = http.Get(srv.URL + "/download/arena-plan9-mips")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), commandName()) {
		t.Fatalf("another platform: %d %s", resp.StatusCode, body)
	}
}
