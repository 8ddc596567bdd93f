package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

type verifyCmd struct {
	File string `arg:"" type:"existingfile" help:"Replay file."`
}

func (c *verifyCmd) Run() error {
	r, g, err := loadReplay(c.File)
	if err != nil {
		return err
	}
	if err := replay.Verify(r, g); err != nil {
		fmt.Fprintf(os.Stderr, "%s: FAILED: %v\n", c.File, err)
		return exitError{1}
	}
	fmt.Printf("%s: ok, %d turns, every state hash and the result match\n", c.File, len(r.Turns))
	return nil
}

// loadReplay reads a replay and finds its game.
func loadReplay(path string) (*replay.Replay, game.Game, error) {
	r, err := replay.Load(path)
	if err != nil {
		return nil, nil, err
	}
	g, err := games.Lookup(r.Game)
	if err != nil {
		return nil, nil, err
	}
	return r, g, nil
}

type rerunCmd struct {
	File string `arg:"" type:"existingfile" help:"Replay file."`
}

func (c *rerunCmd) Run() error {
	r, g, err := loadReplay(c.File)
	if err != nil {
		return err
	}
	specs := make([]string, len(r.Bots))
	for i, id := range r.Bots {
		if specs[i], err = locate(id, filepath.Dir(c.File)); err != nil {
			return fmt.Errorf("seat %d: %w", i, err)
		}
	}
	if err := (match.Runner{}).Rerun(context.Background(), r, g, spec.Opener(specs)); err != nil {
		fmt.Fprintf(os.Stderr, "%s: FAILED: %v\n", c.File, err)
		return exitError{1}
	}
	fmt.Printf("%s: ok, %d turns re-run, every answer, status, fuel figure and hash match\n", c.File, len(r.Turns))
	return nil
}

// locate finds a recorded bot: by its path when the file there still has the
// recorded hash, else by a file with that hash next to the replay.
func locate(id bot.Identity, dir string) (string, error) {
	if id.SHA256 == "" {
		return id.Spec, nil
	}
	kind, path, err := spec.Split(id.Spec)
	if err != nil {
		return "", err
	}
	if kind == "exec" {
		return id.Spec, nil // a command line, not a path; its program is checked when it runs
	}
	if sum, err := hashFile(path); err == nil && sum == id.SHA256 {
		return id.Spec, nil
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.Type().IsRegular() {
			if sum, err := hashFile(p); err == nil && sum == id.SHA256 {
				return kind + ":" + p, nil
			}
		}
	}
	return "", fmt.Errorf("bot %s (sha256 %s) not found at its path nor next to the replay", id.Spec, id.SHA256)
}

func hashFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
