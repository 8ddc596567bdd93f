// Package protocol holds the vocabulary of the bot protocol, version 1
// (docs/bots.md): the status every answer gets, the size limits, and the
// shape of one answer. Games, bots and the sandbox all speak it; it knows
// none of them.
package protocol

// Version is the bot protocol's version. A change to anything a bot author
// relies on gets a new number.
const Version = 1

// Status is what one answer of one seat got.
type Status string

// The statuses of the bot protocol.
const (
	OK        Status = "ok"        // well formed, legal, applied (or legal and not needed)
	Illegal   Status = "illegal"   // well formed but against the rules; the default applies
	Malformed Status = "malformed" // not the JSON the game expects; the default applies
	Fuel      Status = "fuel"      // the bot ran out of fuel before answering
	Timeout   Status = "timeout"   // the backstop (the bot's CPU time) fired
	Crash     Status = "crash"     // trap, exit, closed stdout, failed start
	Retired   Status = "retired"   // failed too often this match; defaults only
	Ignored   Status = "ignored"   // the game does not apply this seat's answer this turn
)

// Statuses lists every status in a fixed order, for tables and counts.
var Statuses = []Status{OK, Illegal, Malformed, Fuel, Timeout, Crash, Retired, Ignored}

// MaxLine is the longest answer line a bot may send; a longer one is malformed.
const MaxLine = 1 << 20

// MaxLog is how much of a bot's stderr is kept per match.
const MaxLog = 64 << 10

// MaxRestarts is how many times a failing instance is replaced in one match;
// the failure after that retires the bot for the rest of the match.
const MaxRestarts = 3

// Reply is one bot's answer to one observation, before any game judges it.
type Reply struct {
	// Line is the answer line without its newline, when Status is OK.
	Line []byte
	// Status is OK when a line came back in time; otherwise the failure
	// (Fuel, Timeout, Crash, Retired, or Malformed for an over-long line;
	// Illegal where the kind of bot can tell on its own, as potm entries can).
	Status Status
	// Fuel is the fuel the answer spent (wasm bots), 0 for other kinds.
	Fuel int64
	// Detail says what went wrong, for the replay and the bot's owner.
	Detail string
}
