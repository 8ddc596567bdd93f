package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/arenabots/arena/botcheck"
	"github.com/arenabots/arena/sandbox"
)

type checkCmd struct {
	Game     string   `required:"" help:"Game id (see 'arena games')."`
	File     string   `arg:"" help:"The wasm module to check."`
	Opponent string   `help:"House bot of the smoke matches (default: the game's first)."`
	Seed     uint64   `default:"1" help:"Seed of the smoke matches."`
	Param    []string `sep:"none" help:"Game parameter k=v for the smoke matches. Repeatable, once per name."`
	JSON     bool     `name:"json" help:"Print the report as one JSON object."`
	Profile  bool     `help:"Print where the bot spends its fuel in the smoke matches, by function and host call (docs/fuel.md)."`
	profileFlags
}

// profileFlags are the options of a fuel profile, shared by check and match.
type profileFlags struct {
	ProfileTop int    `default:"20" help:"With --profile: how many functions to list."`
	ProfileOut string `type:"path" help:"With --profile: also write the profile to this file, for 'go tool pprof'."`
}

// writeProfile prints prof and writes its pprof file if asked.
func (f profileFlags) writeProfile(w io.Writer, prof *sandbox.Profile) error {
	prof.WriteText(w, f.ProfileTop)
	if f.ProfileOut == "" {
		return nil
	}
	out, err := os.Create(f.ProfileOut)
	if err != nil {
		return err
	}
	if err := prof.WritePprof(out); err != nil {
		out.Close()
		return fmt.Errorf("writing the profile: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing the profile: %w", err)
	}
	fmt.Fprintf(w, "profile written to %s (go tool pprof -top %s)\n", f.ProfileOut, f.ProfileOut)
	return nil
}

func (c *checkCmd) Run() error {
	g, err := lookupGame(c.Game)
	if err != nil {
		return err
	}
	params, err := parseParams(c.Param)
	if err != nil {
		return err
	}
	players := 2
	if !g.Info().AllowsPlayers(players) {
		players = g.Info().Players[0]
	}
	if err := checkParams(g, c.Seed, players, params); err != nil {
		return err
	}
	if _, err := os.Stat(c.File); err != nil {
		return missingIsUsage(fmt.Errorf("%s: %w", c.File, unwrapPath(err)))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var prof *sandbox.Profile
	if c.Profile {
		prof = sandbox.NewProfile()
	}
	rep, err := botcheck.Check(ctx, g, c.File, botcheck.Options{Opponent: c.Opponent, Seed: c.Seed, Params: params, Profile: prof})
	if err != nil {
		return usageOrFailure(err, c.Opponent != "")
	}
	if c.JSON {
		if err := printJSON(rep); err != nil {
			return err
		}
	} else {
		printCheck(os.Stdout, c.File, rep)
	}
	if prof != nil && len(rep.Matches) > 0 {
		out := os.Stdout
		if c.JSON {
			out = os.Stderr
		}
		fmt.Fprintf(out, "smoke matches of %s: ", c.File)
		if err := c.writeProfile(out, prof); err != nil {
			return err
		}
	}
	if !rep.Passed {
		return exitError{exitFailure}
	}
	return nil
}

// usageOrFailure makes an unknown --opponent a usage error.
func usageOrFailure(err error, opponentGiven bool) error {
	if opponentGiven {
		return usageError{err}
	}
	return err
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// printCheck writes a check's report for a person.
func printCheck(w io.Writer, file string, rep *botcheck.Report) {
	fmt.Fprintf(w, "%s: %s bot, %d bytes, sha256 %s\n", file, rep.Game, rep.Size, rep.SHA256)
	if rep.Refused != "" {
		fmt.Fprintf(w, "  sandbox limits: REFUSED: %s\n", rep.Refused)
	} else {
		fmt.Fprintln(w, "  sandbox limits: ok")
		fmt.Fprintf(w, "  start-up fuel:  %s of %s (%.1f%%)\n", count(rep.StartupFuel), count(rep.StartupAllowance),
			100*float64(rep.StartupFuel)/float64(rep.StartupAllowance))
	}
	for _, m := range rep.Matches {
		fmt.Fprintf(w, "  smoke match in seat %d against %s: %d turns, scores %s\n", m.Seat, m.Opponent, m.Turns, joinInts(m.Scores))
		fmt.Fprintf(w, "    statuses: %s\n", statusLine(m.Statuses))
		if m.Fuel.Answers > 0 {
			fmt.Fprintf(w, "    fuel per answer: %s\n", fuelLine(m.Fuel))
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  problem: %s\n", p)
	}
	for _, h := range rep.Hints {
		fmt.Fprintf(w, "  hint: %s\n", h)
	}
	if rep.Passed {
		fmt.Fprintln(w, "PASS: the bot may join the ladder")
	} else {
		fmt.Fprintln(w, "FAIL: the bot would be refused on upload")
	}
}

func joinInts(v []int64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += "-"
		}
		s += fmt.Sprint(x)
	}
	return s
}
