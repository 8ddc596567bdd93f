// Package hostplay runs a house bot (game.HouseBot, written in Go inside the
// project) as a wasm bot: it reads each observation line into the game's
// typed state, asks the bot, and writes its answer. The house's rated
// ladder entries are built from it (internal/housebots), so that on the
// ladder the house plays by the same rules as everyone: sandboxed, metered,
// seeing only the observation.
//
// Observations are read with sdk.JSON, a scanner, not encoding/json: in Go's
// wasm output encoding/json costs about 600 fuel a byte, which a Grid Royale
// observation alone would spend most of a turn's 5,000,000 on.
package hostplay

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/sdk"
)

// A Decoder makes the game's typed state from one observation and says
// which seat it was sent to.
type Decoder func(obs sdk.JSON) (st game.State, seat int, err error)

// A Game is a game whose house bots play as wasm modules: it reads its own
// observation back into a State (a decoder serves one bot, and may reuse
// its state from one observation to the next).
type Game interface {
	game.Game
	HouseDecoder() func(sdk.JSON) (game.State, int, error)
}

// Main is the whole of a game's house module (games/<g>/house): it plays
// the house bot written into this copy of the module (Selected), which must
// be one of g's. An unselected module refuses to play rather than guess.
func Main(g Game) {
	id, name := Selected()
	if id != g.Info().ID {
		fmt.Fprintf(os.Stderr, "no house bot is selected in this module of %s (%q)\n", g.Info().ID, id+"/"+name)
		os.Exit(2)
	}
	Run(g, name)
}

// Run plays g's house bot name on stdin and stdout until stdin ends.
func Run(g Game, name string) {
	decode := g.HouseDecoder()
	var info *game.HouseBotInfo
	for _, hb := range g.HouseBots() {
		if hb.Name == name {
			info = &hb
			break
		}
	}
	if info == nil {
		fail(fmt.Errorf("%s has no house bot %q", g.Info().ID, name))
	}
	p := &Player{Info: *info, Decode: decode, Reserve: Reserve}
	if r, ok := g.(Reserver); ok {
		p.Reserve = r.HouseReserve()
	}
	if err := sdk.LoopLines(os.Stdin, os.Stdout, p.Answer); err != nil {
		fail(err)
	}
}

func fail(err error) {
	os.Stderr.WriteString(err.Error() + "\n")
	os.Exit(1)
}

// Player is one seat's house bot over the protocol. It is made on the first
// observation, which names the seat.
type Player struct {
	Info   game.HouseBotInfo
	Decode Decoder
	// Reserve is this game's reserve, Reserve unless the game says
	// otherwise (Reserver).
	Reserve int64
	bot     game.HouseBot

	stopSet  bool
	start    int64 // the tank when this answer's thinking began
	maxSpend int64 // the most this answer's thinking may spend
}

// A Stopper is a house bot whose thinking can be cut short: it asks stop as
// it goes and, once stop says so, answers with what it has. Native house
// bots count nodes; as wasm bots they must count fuel instead, since a
// node's price in fuel depends on the build and the cost model.
type Stopper interface {
	SetStop(stop func() bool)
}

// Reserve is the fuel a Stopper's thinking never touches: once the tank is
// down to it, stop says stop. It pays for the rest of the answer (finishing
// the node, writing the line), with room for a garbage collection.
const Reserve = 2_500_000

// A Reserver is a game whose house bots finish an answer on less than
// Reserve once told to stop. A smaller reserve matters where one turn's
// fuel is tight: a Grid Royale bot's first answer has one turn's 5,000,000.
type Reserver interface {
	HouseReserve() int64
}

// MaxSpend is the most fuel one answer's thinking may take, though the tank
// holds up to 20,000,000: the platform also stops an answer after 2 s of wall
// clock, and on a loaded machine a long think could come near that.
const MaxSpend = 6_000_000

// stop is the fuel-aware budget: fuel counts are deterministic, so a replay
// reruns the bot's choices exactly. A native build (FuelLeft -1) never stops.
func (p *Player) stop() bool {
	left := sdk.FuelLeft()
	return left >= 0 && (left < p.Reserve || p.start-left > p.maxSpend)
}

// noAnswer is a well-formed line that no game accepts as an action, so the
// game's documented default applies: what a bot that cannot read its
// observation should get, rather than a crash that costs it the instance.
var noAnswer = []byte(`{}`)

// Answer answers one observation line. The answer's budget starts before
// the observation is read, so that reading it counts against MaxSpend.
func (p *Player) Answer(line []byte) []byte {
	p.start = sdk.FuelLeft()
	st, seat, err := p.Decode(sdk.JSON(line))
	if err != nil {
		os.Stderr.WriteString("observation: " + err.Error() + "\n")
		return noAnswer
	}
	if p.bot == nil {
		// The native bot takes a seed derived from the match seed; here the
		// sandbox's random_get is that stream (seeded by the match seed and
		// the seat), so a match still reruns bit-identically.
		var b [8]byte
		rand.Read(b[:])
		p.bot = p.Info.New(binary.LittleEndian.Uint64(b[:]), seat)
	}
	if sb, ok := p.bot.(Stopper); ok && !p.stopSet {
		p.stopSet = true
		sb.SetStop(p.stop)
	}
	p.maxSpend = MaxSpend
	if per := perAnswer(line); per > 0 {
		// A chess clock (Lines and Boxes): the tank is the whole game's, and
		// one answer may spend at most per; think with at most half of
		// that, and a sixteenth of the clock left, so the clock lasts.
		p.maxSpend = min(per/2, p.start/16)
	}
	a := p.bot.Act(st, seat)
	if len(a) == 0 {
		return noAnswer
	}
	return a
}

// perAnswer is the per_answer of the observation's "fuel" field, 0 when it
// has none. The platform adds that field last (game.AddField), so it is
// looked for from the end: scanning a large observation from its start
// again would cost a Grid Royale bot a tenth of its turn.
func perAnswer(line []byte) int64 {
	i := bytes.LastIndex(line, []byte(`"fuel":`))
	if i < 0 {
		return 0
	}
	return int64(sdk.JSON(line[i+len(`"fuel":`):]).Get("per_answer").Int())
}

// Marker starts the selection: the module's one string that begins with it
// names the house bot it plays, as "game/bot" padded with spaces to
// SelectionLen bytes. The build leaves it unselected; Select writes it.
const Marker = "arena-house-bot:"

// SelectionLen is the bytes after Marker that Select may write.
const SelectionLen = 48

// selection is read, never written, by the program; Select patches its bytes
// in the built module. A package variable (not a constant) so that the
// compiler keeps it as data rather than folding it into the code.
var selection = Marker + "................................................"

// Selected returns the game and bot written into this module.
func Selected() (game, bot string) {
	sel := strings.TrimRight(strings.TrimPrefix(selection, Marker), " ")
	game, bot, _ = strings.Cut(sel, "/")
	return game, bot
}
