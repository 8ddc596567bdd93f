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

// Identity describes a bot for the replay.
type Identity struct {
	Spec   string `json:"spec"`
	SHA256 string `json:"sha256,omitempty"` // of the bot's file, where it has one
}

// Identifier is implemented by bots that have a file behind them.
type Identifier interface {
	Identity() Identity
}
