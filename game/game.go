// Package game defines what every game on the platform implements.
//
// The split follows OpenSpiel: a Game describes a game and makes new matches;
// a State is one match in progress. The match runner (package match) drives any
// State through this interface alone, so it knows no particular game.
//
// A turn goes like this: the runner asks State.Asked which seats to ask, sends
// each of them State.AppendObservation as one JSON line, collects their answer
// lines, and hands them all to State.Apply. Apply validates every answer, applies
// the ones the rules apply (the game's default where an answer is missing or
// bad) and returns one Verdict per seat.
package game

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/arenabots/arena/protocol"
)

// Status is what one answer of one seat got (package protocol lists them).
type Status = protocol.Status

// The statuses of the bot protocol, named here for the games' convenience.
const (
	OK        = protocol.OK
	Illegal   = protocol.Illegal
	Malformed = protocol.Malformed
	Fuel      = protocol.Fuel
	Timeout   = protocol.Timeout
	Crash     = protocol.Crash
	Retired   = protocol.Retired
	Ignored   = protocol.Ignored
)

// Statuses lists every status in a fixed order, for tables and counts.
var Statuses = protocol.Statuses

// Params are a match's parameters, as given on the command line (--param k=v).
// State.Params returns every parameter in force, defaults included, so that a
// replay names the whole configuration.
type Params map[string]string

// Int reads an integer parameter, or def when it is absent.
func (p Params) Int(name string, def int) (int, error) {
	s, ok := p[name]
	if !ok {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("parameter %s=%q: not an integer", name, s)
	}
	return v, nil
}

// CheckKnown reports a parameter that is not in known, so that a typo on the
// command line is an error rather than a silently ignored setting.
func (p Params) CheckKnown(known ...string) error {
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		found := false
		for _, n := range known {
			if k == n {
				found = true
				break
			}
		}
		if !found {
			if len(known) == 0 {
				return fmt.Errorf("unknown parameter %q: the game has no parameters", k)
			}
			return fmt.Errorf("unknown parameter %q (known: %s)", k, strings.Join(known, ", "))
		}
	}
	return nil
}

// Config is everything a new match is made from. A match is a function of its
// Config and the answers of its bots.
type Config struct {
	Seed    uint64
	Players int
	Params  Params
}

// ParamInfo documents one parameter and its default, and what a form
// needs to offer it.
type ParamInfo struct {
	Name    string
	Default string
	Doc     string
	// Int says the value is an integer a person picks in Min..Max (odd
	// when Odd). The game may accept special values besides, which Doc
	// names (Lines and Boxes' rows=0: drawn from the seed).
	Int      bool
	Min, Max int
	Odd      bool
	// Label, when set, is the short name ("Rows") under which the site's
	// Play page offers the parameter; the others keep their default there.
	Label string
}

// FuelPolicy says how a metered (wasm) bot's tank is filled in this game.
// Per-turn games add PerTurn at every observation and cut the tank to Cap;
// a game with a chess clock (Lines and Boxes) sets PerGame instead.
type FuelPolicy struct {
	PerTurn int64 // added when an observation is delivered
	Cap     int64 // the tank never holds more
	PerGame int64 // when non-zero: one tank for the whole game, never refilled
	// PerAnswer, with PerGame: the most one answer may spend of the game's
	// tank, so that every answer fits the wall-clock backstop.
	PerAnswer int64
}

// DefaultFuel is the protocol's per-turn allowance (docs/fuel.md).
var DefaultFuel = FuelPolicy{PerTurn: 5_000_000, Cap: 20_000_000}

// Info describes a game.
type Info struct {
	ID      string      // e.g. "dots-and-boxes"
	Name    string      // e.g. "Dots and Boxes"
	Players []int       // allowed player counts
	Params  []ParamInfo // every parameter with its default
	Fuel    FuelPolicy
	// Ties is true when equal scores are a tie (Lines and Boxes); false when
	// Placement breaks every tie by the game's own rules (Grid Royale).
	Ties bool
	// Varied are parameter settings under which the seed also varies the
	// starting position (Lines and Boxes: a random size and pre-drawn lines).
	// Tournaments use them unless told otherwise, so that their boards differ.
	Varied Params
	// Display is how the site shows the game (game/site.go).
	Display Display
	// LadderPlayers, when set, are the player counts the rated ladder
	// plays, a subset of Players (Snake: 2 and 4 of its 2 to 8).
	LadderPlayers []int
}

// RatedPlayers are the player counts the rated ladder plays:
// LadderPlayers, or every count in Players when the game names none.
func (i Info) RatedPlayers() []int {
	if len(i.LadderPlayers) > 0 {
		return i.LadderPlayers
	}
	return i.Players
}

// AllowsPlayers reports whether n players can play this game.
func (i Info) AllowsPlayers(n int) bool {
	for _, p := range i.Players {
		if p == n {
			return true
		}
	}
	return false
}

// PlayerCounts writes the allowed player counts for people: "2", "2 or 4",
// "2 to 8"; a run of three or more counts in a row is written as its ends.
func (i Info) PlayerCounts() string {
	var words []string
	for k := 0; k < len(i.Players); {
		end := k
		for end+1 < len(i.Players) && i.Players[end+1] == i.Players[end]+1 {
			end++
		}
		if end-k >= 2 {
			words = append(words, strconv.Itoa(i.Players[k])+" to "+strconv.Itoa(i.Players[end]))
		} else {
			for _, n := range i.Players[k : end+1] {
				words = append(words, strconv.Itoa(n))
			}
		}
		k = end + 1
	}
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// A Game makes matches.
type Game interface {
	Info() Info
	// New starts a match. It fails on a player count or parameter the game
	// does not accept, with a message that says what is wrong.
	New(cfg Config) (State, error)
	// HouseBots lists the bots written in Go for this game.
	HouseBots() []HouseBotInfo
}

// A State is one match in progress.
type State interface {
	// Params returns every parameter in force, defaults included.
	Params() Params
	Players() int
	// Turn is the number of turns resolved so far.
	Turn() int
	Done() bool
	// Asked returns the seats that are sent an observation this turn, in seat order.
	Asked() []int
	// AppendObservation appends the documented JSON observation object for seat.
	AppendObservation(dst []byte, seat int) []byte
	// Apply resolves one turn. answers[seat] is the answer line of that seat,
	// or nil when the seat was not asked or gave no answer (a bot failure: the
	// runner knows which). It returns one Verdict per seat; for a nil answer the
	// verdict's Status is empty and its Action is what the game applied instead.
	Apply(answers [][]byte) []Verdict
	// Scores are the per-seat scores so far (boxes, bank).
	Scores() []int64
	// Placement lists the seats best first. Meaningful once Done.
	Placement() []int
	// Hash is a cheap hash of the whole state, recorded after every turn.
	Hash() uint64
}

// A Verdict is what the game made of one seat's answer.
type Verdict struct {
	Status Status
	// Action is the action applied for the seat, as canonical compact JSON in
	// the game's answer format, or nil when nothing was applied for it.
	// Applying the recorded actions again reproduces the match (replay verify).
	Action json.RawMessage
	// Reason says why an answer was illegal or malformed.
	Reason string
}

// A HouseBot is a bot written in Go inside the project. It is given the typed
// state, which holds exactly what the observation holds (every game here is
// of perfect information), and returns an answer line in the game's format.
type HouseBot interface {
	Act(s State, seat int) []byte
}

// HouseBotInfo names a house bot and makes one per seat and match.
type HouseBotInfo struct {
	Name string
	Doc  string
	// Level, when set, is the difficulty a person picks this bot by on the
	// site's Play page ("Beginner", "Easy", "Medium", "Hard"). A game's
	// levelled bots are listed weakest first, in the order its measured
	// strength gives (docs/bots-strength.md).
	Level string
	// New makes the bot for one seat of one match. seed is derived from the
	// match seed and seat, so a house bot's play is reproducible.
	New func(seed uint64, seat int) HouseBot
}
