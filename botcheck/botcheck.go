// Package botcheck is the check a wasm bot gets before it joins a ladder: the
// sandbox's limits, the start-up fuel, then a smoke match in each seat
// against a house bot, with advice for the usual mistakes. `arena check` runs
// it offline; the server runs the same code on every upload.
package botcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/bot/wasmbot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox"
	"github.com/arenabots/arena/sandbox/meter"
)

// Options tune a check. The zero value is the server's check.
type Options struct {
	// Runtime compiles and runs the module; nil means sandbox.Default().
	Runtime *sandbox.Runtime
	// Opponent names the house bot of the smoke matches; "" is the game's
	// first house bot.
	Opponent string
	// Seed is the smoke matches' seed.
	Seed uint64
	// Params are the smoke matches' game parameters (defaults when nil).
	Params game.Params
	// Profile, when set, records where the bot's fuel goes in the smoke
	// matches (start-up and answers); it changes no figure of the report.
	Profile *sandbox.Profile
}

// Report is the outcome of a check.
type Report struct {
	Game   string `json:"game"`
	SHA256 string `json:"sha256"`
	Size   int    `json:"size"`
	// Passed is the verdict: the module may join the ladder.
	Passed bool `json:"passed"`
	// Refused is the sandbox's reason for refusing the module, if it did.
	Refused string `json:"refused,omitempty"`
	// StartupFuel is what the module spent before its first stdin read,
	// out of StartupAllowance.
	StartupFuel      int64 `json:"startup_fuel"`
	StartupAllowance int64 `json:"startup_allowance"`
	// Matches are the smoke matches, the bot in seat 0 then in seat 1.
	Matches []Smoke `json:"matches,omitempty"`
	// Problems are the reasons the check failed, one line each.
	Problems []string `json:"problems,omitempty"`
	// Hints say what usually causes the problems seen.
	Hints []string `json:"hints,omitempty"`
}

// Smoke is one smoke match.
type Smoke struct {
	Seat     int                 `json:"seat"` // the bot's seat
	Opponent string              `json:"opponent"`
	Turns    int                 `json:"turns"`
	Scores   []int64             `json:"scores"`
	Statuses map[game.Status]int `json:"statuses"` // the bot's answers by status
	Fuel     FuelStats           `json:"fuel"`
}

// FuelStats summarises the fuel of a bot's answers.
type FuelStats struct {
	Answers int   `json:"answers"` // answers that spent fuel
	Min     int64 `json:"min"`
	Median  int64 `json:"median"`
	Max     int64 `json:"max"`
	// Tank is the most one answer may spend (the tank's cap, or the whole
	// game's allowance under a chess clock); Max/Tank is the share used.
	Tank int64 `json:"tank"`
}

// Share is the largest answer's share of the tank, from 0 to 1.
func (f FuelStats) Share() float64 {
	if f.Tank == 0 {
		return 0
	}
	return float64(f.Max) / float64(f.Tank)
}

// Fuel summarises the fuel of seat's answers in r.
func Fuel(r *replay.Replay, seat int, tank int64) FuelStats {
	var spent []int64
	for _, t := range r.Turns {
		for _, s := range t.Seats {
			if s.Seat == seat && s.Fuel > 0 {
				spent = append(spent, s.Fuel)
			}
		}
	}
	f := FuelStats{Answers: len(spent), Tank: tank}
	if len(spent) == 0 {
		return f
	}
	slices.Sort(spent)
	f.Min, f.Median, f.Max = spent[0], spent[len(spent)/2], spent[len(spent)-1]
	return f
}

// TankOf is the most fuel one answer can have in g.
func TankOf(g game.Game) int64 {
	p := g.Info().Fuel
	switch {
	case p.PerGame > 0:
		return p.PerGame
	case p.Cap > 0:
		return p.Cap
	}
	return game.DefaultFuel.Cap
}

// Check checks the wasm module at path for g. The error is for failures of
// the host (a file that cannot be read, a game without house bots); every
// fault of the module is in the report.
func Check(ctx context.Context, g game.Game, path string, opt Options) (*Report, error) {
	wasm, size, err := readModule(path)
	if err != nil {
		return nil, err
	}
	rt := opt.Runtime
	if rt == nil {
		if rt, err = sandbox.Default(); err != nil {
			return nil, err
		}
	}
	opponent, err := pickOpponent(g, opt.Opponent)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Game:             g.Info().ID,
		SHA256:           hashing.SHA256Hex(wasm),
		Size:             len(wasm),
		StartupAllowance: sandbox.DefaultLimits.StartAllowance,
	}
	// Under the upload's limit, so that the check says what an upload
	// will say (matches compile with a margin over it).
	mod, err := rt.CompileWith(ctx, wasm, sandbox.CompileOptions{Upload: true})
	if err != nil {
		if !sandbox.IsRefused(err) {
			return nil, err
		}
		rep.Refused = err.Error()
		if size > meter.MaxModuleSize {
			// Only the limit and a byte were read: say the file's size.
			rep.Size = int(size)
			rep.Refused = fmt.Sprintf("the module is %.1f MiB, more than the limit of %d MiB", float64(size)/(1<<20), meter.MaxModuleSize>>20)
		}
		rep.Problems = append(rep.Problems, "the sandbox refuses the module: "+rep.Refused)
		rep.addHint(Hint(err))
		return rep, nil
	}
	players := 2
	if !g.Info().AllowsPlayers(2) {
		players = g.Info().Players[0]
	}
	if err := rep.startup(ctx, rt, mod, g, opt, players); err != nil {
		return nil, err
	}
	if len(rep.Problems) > 0 {
		return rep, nil // no use playing a bot that cannot start
	}
	for seat := 0; seat < min(players, 2); seat++ {
		if err := rep.smoke(ctx, rt, g, path, opponent, seat, players, opt); err != nil {
			return nil, err
		}
	}
	rep.Passed = len(rep.Problems) == 0
	return rep, nil
}

// readModule reads at most one byte more than the sandbox accepts, so a
// huge upload costs no more memory than a module at the limit; the sandbox
// then refuses it by its size. size is the file's own.
func readModule(path string) (wasm []byte, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	wasm, err = io.ReadAll(io.LimitReader(f, meter.MaxModuleSize+1))
	size = int64(len(wasm))
	if fi, statErr := f.Stat(); statErr == nil && fi.Mode().IsRegular() {
		size = max(size, fi.Size())
	}
	return wasm, size, err
}

func pickOpponent(g game.Game, name string) (string, error) {
	hbs := g.HouseBots()
	if len(hbs) == 0 {
		return "", fmt.Errorf("%s has no house bot to play a smoke match against", g.Info().ID)
	}
	if name == "" {
		return hbs[0].Name, nil
	}
	for _, hb := range hbs {
		if hb.Name == name {
			return name, nil
		}
	}
	return "", fmt.Errorf("%s has no house bot %q", g.Info().ID, name)
}

// startup starts one instance and puts the first observation of a new match
// to it, to measure the start-up fuel apart from any answer.
func (rep *Report) startup(ctx context.Context, rt *sandbox.Runtime, mod *sandbox.Module, g game.Game, opt Options, players int) error {
	st, err := g.New(game.Config{Seed: opt.Seed, Players: players, Params: opt.Params})
	if err != nil {
		return err
	}
	tank := TankOf(g)
	in, err := rt.Start(ctx, mod, sandbox.Config{Seed: opt.Seed, Tank: &sandbox.Tank{PerTurn: tank, Cap: tank}})
	if err != nil {
		return err
	}
	obs := st.AppendObservation(nil, st.Asked()[0])
	reply := in.Ask(ctx, func(left int64) []byte {
		return game.AddField(obs, "fuel", fmt.Appendf(nil, `{"left":%d,"per_turn":%d,"cap":%d}`, left, tank, tank))
	})
	in.Stop()
	rep.StartupFuel = in.StartupFuel()
	if reply.Status == game.OK {
		return nil
	}
	if strings.Contains(reply.Detail, "start-up") {
		rep.StartupFuel = rep.StartupAllowance
	}
	rep.Problems = append(rep.Problems, fmt.Sprintf("first answer: %s (%s)", reply.Status, reply.Detail))
	rep.addHint(detailHint(reply.Status, reply.Detail))
	return nil
}

// smoke plays one match with the bot in seat and the house bot elsewhere.
func (rep *Report) smoke(ctx context.Context, rt *sandbox.Runtime, g game.Game, path, opponent string, seat, players int, opt Options) error {
	bots := make([]bot.Bot, players)
	ids := make([]bot.Identity, players)
	house := spec.Spec{Kind: spec.Builtin, Name: opponent}
	defer func() {
		for _, b := range bots {
			if b != nil {
				b.Close()
			}
		}
	}()
	for s := range bots {
		m := bot.Match{Game: g, Seed: opt.Seed, Seat: s, Params: opt.Params}
		var err error
		if s == seat {
			var wb *wasmbot.Bot
			wb, err = wasmbot.OpenProfiled(ctx, rt, path, m, opt.Profile)
			if err == nil {
				bots[s], ids[s] = wb, wb.Identity()
			}
		} else {
			bots[s], err = bot.OpenBuiltin(opponent, m)
			ids[s] = bot.Identity{Spec: house.String()}
		}
		if err != nil {
			return err
		}
	}
	r, err := match.Runner{}.Run(ctx, g, game.Config{Seed: opt.Seed, Players: players, Params: opt.Params}, bots, ids)
	if err != nil {
		return err
	}
	sm := Smoke{
		Seat: seat, Opponent: house.String(), Turns: r.Result.Turns, Scores: r.Result.Scores,
		Statuses: r.Result.Statuses[seat], Fuel: Fuel(r, seat, TankOf(g)),
	}
	rep.Matches = append(rep.Matches, sm)
	for _, st := range game.Statuses {
		if n := sm.Statuses[st]; n > 0 && st != game.OK && st != game.Ignored {
			rep.Problems = append(rep.Problems, fmt.Sprintf("in seat %d, %d answer(s) got %q", seat, n, st))
		}
	}
	for _, h := range ReplayHints(r, seat) {
		rep.addHint(h)
	}
	return nil
}

func (rep *Report) addHint(h string) {
	if h != "" && !slices.Contains(rep.Hints, h) {
		rep.Hints = append(rep.Hints, h)
	}
}

// Hint advises on a module the sandbox refused, or returns "".
func Hint(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, `"gojs"`) || strings.Contains(msg, `"go".`):
		return "this module was built with GOOS=js; build with GOOS=wasip1 GOARCH=wasm go build -o bot.wasm ."
	case strings.Contains(msg, `"arena".`) && strings.Contains(msg, "the only function"):
		return `name the import fuel_left: Go //go:wasmimport arena fuel_left; C __attribute__((import_module("arena"), import_name("fuel_left"))); Rust #[link(wasm_import_module = "arena")] with the function named fuel_left`
	case strings.Contains(msg, `"env".`) && strings.Contains(strings.ToLower(msg), "fuel"):
		return `the fuel_left import has no module name: C __attribute__((import_module("arena"), import_name("fuel_left"))); Rust #[link(wasm_import_module = "arena")]`
	case strings.Contains(msg, `"env".`):
		return `the module imports from "env": a function was declared but not defined, or the build did not target wasm32-wasi (C: clang --target=wasm32-wasi --sysroot=/usr)`
	case strings.Contains(msg, "ELF"):
		return "this is a native program: build it for wasm (see the kit's README)"
	}
	return ""
}

// ReplayHints advises on what a bot in seat did in a match: debug text on
// stdout, reading stdin twice, answers that never come.
func ReplayHints(r *replay.Replay, seat int) []string {
	var hints []string
	asked, failed := 0, 0
	first := "" // the first failed answer, quoted, when no hint explains it
	for _, t := range r.Turns {
		for _, s := range t.Seats {
			if s.Seat != seat || s.Status == game.Ignored {
				continue
			}
			asked++
			h := answerHint(s)
			if first == "" && s.Status != game.OK && (h == "" || h == loopHint) {
				first = firstFailure(t.Turn, s)
			}
			if s.Status == game.Fuel || s.Status == game.Timeout || s.Status == game.Retired {
				failed++
				continue // one hint for them all, below, when no answer came
			}
			if h != "" && !slices.Contains(hints, h) {
				hints = append(hints, h)
			}
		}
	}
	if asked > 0 && failed == asked && !slices.Contains(hints, loopHint) {
		hints = append(hints, loopHint)
	}
	if first != "" {
		hints = append(hints, first)
	}
	if h := fieldsNeverRead(r, seat); h != "" {
		hints = append(hints, h)
	}
	return hints
}

// fieldsNeverRead warns about a bot whose answers were taken (ok) but whose
// fields the game never read: none of them ever appears in an action it
// applied, as with a bot of another game (a game ignores fields it does not
// know, so its answers all count as "do nothing"). It returns "" otherwise.
func fieldsNeverRead(r *replay.Replay, seat int) string {
	answered, applied := map[string]bool{}, map[string]bool{}
	keys := func(s string, into map[string]bool) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &m) == nil {
			for k := range m {
				into[k] = true
			}
		}
	}
	for _, t := range r.Turns {
		for _, s := range t.Seats {
			if s.Seat == seat && s.Status == game.OK {
				keys(s.Answer, answered)
				keys(string(s.Action), applied)
			}
		}
	}
	if len(answered) == 0 {
		return ""
	}
	for k := range answered {
		if applied[k] {
			return ""
		}
	}
	var names []string
	for _, k := range slices.Sorted(maps.Keys(answered)) {
		names = append(names, strconv.Quote(k))
	}
	return fmt.Sprintf("the game read none of the fields of its answers (%s): each was taken as doing nothing. Is it a bot for another game? The game's rules page lists the fields it reads", clip(strings.Join(names, ", "), 80))
}

// firstFailure quotes a failed answer and the reason it got its status:
// what the author needs to find the bug.
func firstFailure(turn int, s replay.Seat) string {
	out := fmt.Sprintf("the first answer that failed, turn %d, was %s", turn, s.Status)
	if s.Answer != "" {
		out += fmt.Sprintf(" (it read %q)", clip(s.Answer, 60))
	}
	if s.Reason != "" {
		out += ": " + clip(s.Reason, 160)
	}
	return out
}

// answerHint advises on one recorded answer, or returns "".
func answerHint(s replay.Seat) string {
	if s.Status == game.Malformed && looksLikeText(s.Answer) {
		return fmt.Sprintf("seat %d wrote %q to stdout, which is not an answer: print only answer lines to stdout and debug text to stderr (a wasm bot's answer is its first line, the rest is dropped; an exec: bot's every extra line puts it a turn behind)", s.Seat, clip(s.Answer, 40))
	}
	return detailHint(s.Status, s.Reason)
}

const loopHint = "no answer came back within its fuel: a loop that never ends, or waiting for input it already has (read one line per turn)"

// detailHint advises on a failure the sandbox or runner described.
func detailHint(st game.Status, detail string) string {
	switch {
	case st == game.Fuel && !strings.Contains(detail, "start-up"), st == game.Timeout:
		return loopHint
	case strings.Contains(detail, "read stdin again"):
		return "the bot read stdin again before answering: read exactly one line per turn, then write one answer line"
	case strings.Contains(detail, "start-up allowance"):
		return "start-up (before the first stdin read) spent its whole allowance: move work into the first turn, or make it smaller"
	case st == game.Crash && strings.Contains(detail, "returned from _start"):
		return "the bot's main returned: keep reading lines until stdin ends"
	}
	return ""
}

// looksLikeText is true for an answer that is not even the start of JSON.
func looksLikeText(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && s[0] != '{' && s[0] != '['
}

// clip keeps at most n bytes of s, cut at a character's start, and makes
// it valid UTF-8: a bot chooses these strings, and a message stored with
// a broken character is refused by Postgres.
func clip(s string, n int) string {
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
