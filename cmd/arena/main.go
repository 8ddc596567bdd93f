// Command arena is the platform's command line: play a match, check a replay,
// run a tournament, check a bot, write a starter kit, list games and bots
// (docs/cli.md).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/alecthomas/kong"
)

// cli is the whole command line; kong reads flags, defaults and help from it.
type cli struct {
	Version    kong.VersionFlag `help:"Print the version and exit."`
	Match      matchCmd         `cmd:"" help:"Play one match and print its result."`
	Replay     replayCmd        `cmd:"" help:"Check or re-run a replay."`
	Tournament tournamentCmd    `cmd:"" help:"Run a round robin: seat-swapped games on shared boards, match points."`
	Check      checkCmd         `cmd:"" help:"Check a wasm bot as the server does on upload: limits, start-up, a smoke match."`
	New        newCmd           `cmd:"" help:"Write a starter kit for a game and language into a new folder."`
	Games      gamesCmd         `cmd:"" help:"List the games."`
	Bots       botsCmd          `cmd:"" help:"List the kinds of bot and the house bots."`
	Serve      serveCmd         `cmd:"" help:"Run the platform: API, matchmaker, workers (docs/api.md)."`
	Push       pushCmd          `cmd:"" help:"Upload a wasm bot to a server."`
	Backup     backupCmd        `cmd:"" help:"Copy a server's SQLite database, while it runs, to a backup file (docs/api.md)."`
	View       viewCmd          `cmd:"" help:"Open a replay file in the browser viewer, and play the house bots, on this machine."`
	Worker     workerCmd        `cmd:"" help:"Run matches for a server on another machine, over NATS (docs/deploy.md)."`
	Workers    workersCmd       `cmd:"" help:"The operator's list of workers and their determinism votes; clear one out of rotation (docs/deploy.md)."`
	Seed       seedCmd          `cmd:"" help:"Fill a data directory with finished matches, for measuring (docs/performance.md)."`
}

type replayCmd struct {
	Verify verifyCmd `cmd:"" help:"Re-apply a replay's actions and check every state hash and the result."`
	Rerun  rerunCmd  `cmd:"" help:"Re-execute a replay's bots and check they give the same answers."`
	Show   showCmd   `cmd:"" help:"Draw the board after any turn of a replay, with statuses and fuel."`
	Logs   logsCmd   `cmd:"" help:"Print the stderr a replay kept of one seat's bot."`
}

// The exit statuses of every command (docs/cli.md).
const (
	exitFailure = 1 // the command ran and failed, or a check did not pass
	exitUsage   = 2 // the command line asks for something that cannot be done
)

// exitError carries an exit status whose message was already printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageError is a command line that cannot run as given: exit status 2 and
// a one-line usage hint for the command.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef makes a usageError.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// hinted is an error with advice on a separate line.
type hinted struct {
	err  error
	hint string
}

func (e hinted) Error() string { return e.err.Error() }
func (e hinted) Unwrap() error { return e.err }

// usageLines are the one-line synopses printed after a usage error, by
// command path as kong names it.
var usageLines = map[string]string{
	"match":         "arena match --game ID --bot SPEC --bot SPEC [--seed N] [--param k=v]... [--json] [--watch 200ms]",
	"tournament":    "arena tournament --game ID --bot SPEC --bot SPEC... [--seed N] [--boards N] [--finals N] [--results FILE] [--replays DIR] [--json]",
	"check":         "arena check --game ID FILE.wasm [--json]",
	"new":           "arena new --lang go|c|rust --game ID [--kit search] DIR",
	"push":          "arena push --server URL --token T --game ID --name NAME FILE.wasm",
	"view":          "arena view [FILE]",
	"serve":         "arena serve [--addr HOST:PORT] [--data DIR] [--db URL]",
	"worker":        "arena worker [--creds FILE] [--nats URL]",
	"backup":        "arena backup --out FILE [--data DIR | --db URL]",
	"seed":          "arena seed --matches N [--data DIR | --db URL] [--game ID]",
	"replay verify": "arena replay verify FILE",
	"replay rerun":  "arena replay rerun [--allow-native] FILE",
	"games":         "arena games [--json]",
	"bots":          "arena bots [--json]",
}

// version is the module version and commit this binary was built from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "arena (unknown version)"
	}
	v := info.Main.Version
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev != "" && (v == "" || v == "(devel)"):
		v = "commit " + rev[:min(12, len(rev))]
		if dirty {
			v += " (modified)"
		}
	case v == "" || v == "(devel)":
		v = "development build" // built without version control information
	}
	return fmt.Sprintf("arena %s, %s", v, info.GoVersion)
}

func main() {
	stop := cpuProfile(os.Getenv("ARENA_CPUPROFILE"))
	code := run(os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// cpuProfile writes a CPU profile of the whole command to file (pprof's
// format) when file is set, for docs/performance.md's measurements of
// `arena serve` and `arena worker`; the returned function ends it.
func cpuProfile(file string) func() {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "arena: ARENA_CPUPROFILE: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "arena: ARENA_CPUPROFILE: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// run parses and runs one command line and returns the exit status.
func run(args []string, stderr io.Writer) int {
	var c cli
	parser, err := kong.New(&c,
		kong.Name("arena"),
		kong.Description("Arena: bots play turn-based games, metered and reproducible."),
		kong.Vars{"version": version()},
		kong.Exit(os.Exit),
	)
	if err != nil {
		fmt.Fprintf(stderr, "arena: internal error: %v\n", err)
		return exitFailure
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		var pe *kong.ParseError
		command := ""
		if errors.As(err, &pe) && pe.Context != nil {
			command = commandPath(pe.Context)
		}
		return report(stderr, usageError{err}, command)
	}
	return report(stderr, ctx.Run(), commandPath(ctx))
}

// commandPath is the command's words without its arguments ("replay verify").
func commandPath(ctx *kong.Context) string {
	var words []string
	for _, w := range strings.Fields(ctx.Command()) {
		if !strings.HasPrefix(w, "<") {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// report prints err the one way every command does and returns the exit
// status: "arena: error: ..." on one line, then a hint or the usage line.
func report(w io.Writer, err error, command string) int {
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintf(w, "arena: error: %s\n", oneLine(err.Error()))
	var h hinted
	if errors.As(err, &h) && h.hint != "" {
		fmt.Fprintf(w, "hint: %s\n", h.hint)
	}
	var ue usageError
	if !errors.As(err, &ue) {
		return exitFailure
	}
	line, ok := usageLines[command]
	if !ok {
		line = "arena COMMAND [flags]; commands: match, tournament, check, new, replay, games, bots, push, view, serve, worker, backup"
	}
	fmt.Fprintf(w, "usage: %s (more: %s)\n", line, strings.Join(strings.Fields("arena "+command+" --help"), " "))
	return exitUsage
}

// oneLine keeps a message on one line, so every error is one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
