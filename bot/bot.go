// Package bot is the platform's side of the bot protocol (docs/bots.md):
// what a bot is to the match runner, whatever kind it is (builtin, exec, wasm,
// potm), and the restart-and-retire rule every program-backed bot shares.
package bot

import (
	"context"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/protocol"
)

// The protocol's limits, named here for the bots' convenience.
const (
	MaxLine     = protocol.MaxLine
	MaxLog      = protocol.MaxLog
	MaxRestarts = protocol.MaxRestarts
)

// Match is what a bot is told about the match it joins when it is opened.
type Match struct {
	Game   game.Game
	Seed   uint64
	Seat   int
	Params game.Params
}

// Request is one turn's question to one seat.
type Request struct {
	Turn        int
	Observation []byte     // the game's JSON observation object, no newline
	State       game.State // the same, typed: for house bots only
	// Clocks is, per seat, the share of its game clock left (1 = full):
	// its own clock for a Clocked bot, the fuel left of a game-long tank
	// for a metered one, 1 otherwise. A 2006 contest entry's input file
	// shows both players' time from it.
	Clocks []float64
}

// Reply is one seat's answer to one Request.
type Reply = protocol.Reply

// A Bot plays one seat of one match. Act is called once per turn the seat is
// asked, never concurrently with itself.
type Bot interface {
	Act(ctx context.Context, req Request) Reply
	// Close stops the bot and returns the first MaxLog bytes of its log.
	Close() []byte
}

// Opener opens the bot of one seat for one match (m.Seat) and says how the
// replay names it. The match runner takes one, so it never needs to know how
// bots are specified (package bot/spec makes one from SPEC strings).
type Opener func(ctx context.Context, m Match) (Bot, Identity, error)

// Clocked is implemented by bots that play on a game clock of their own (a
// 2006 contest entry's CPU seconds). ClockLeft is the share of it left,
// from 1 (untouched) to 0 (spent).
type Clocked interface {
	ClockLeft() float64
}

// Identity describes a bot for the replay.
type Identity struct {
	Spec   string `json:"spec"`
	SHA256 string `json:"sha256,omitempty"` // of the bot's file, where it has one
	// CostModel is, for a metered (wasm) bot, the version of the fuel cost
	// model its fuel figures follow (docs/fuel.md): a re-run under another
	// model cannot give the same figures.
	CostModel int `json:"cost_model,omitempty"`
	// Name is what a site shows for the bot (@player/bot), written into a
	// replay downloaded from it so that the file keeps its names. Nothing
	// that re-runs or checks a replay reads it.
	Name string `json:"name,omitempty"`
}

// Identifier is implemented by bots that have a file behind them.
type Identifier interface {
	Identity() Identity
}
