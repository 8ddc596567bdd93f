package dotsandboxes

import (
	"math/bits"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// beginnerBot is an opponent for people who are learning the game: it plays
// as a casual player does, not as a program does. It takes boxes and avoids
// drawing a box's third side, like greedy, and opens the smallest chain when
// it must open one, but it never declines the last two boxes of a chain (it
// knows nothing of control), and it slips now and then:
//   - with a box to take and a safe edge left, it overlooks the box one time
//     in missCapture and draws a safe edge instead;
//   - with safe edges left, it draws a third side one time in missSafe;
//   - when it must open a chain, it opens the next smallest instead of the
//     smallest one time in missOpen, which can give a three-chain away.
//
// The slips come from the bot's seed (derived from the match seed and the
// seat, or the sandbox's random stream in a wasm build), so a match reruns
// identically. Every choice is a scan of the board: a move costs
// microseconds, so the bot fits any fuel budget.
type beginnerBot struct {
	src *rng.Source
}

// One slip in so many chances of each kind: often enough that a person who
// plays carefully wins, rare enough that the bot still punishes a third side
// drawn carelessly.
const (
	missCapture = 6
	missSafe    = 12
	missOpen    = 4
)

func newBeginnerBot(seed uint64) game.HouseBot {
	return &beginnerBot{src: rng.New(rng.Mix(seed, 0x626567696e6e6572))}
}

func (b *beginnerBot) Act(st game.State, seat int) []byte {
	s := st.(*State)
	if int(s.ToMove) != seat || s.Over() {
		return answer(s.FirstUndrawn())
	}
	return answer(b.choose(&s.Board))
}

// slip reports whether this chance, one in n, is taken.
func (b *beginnerBot) slip(n int) bool { return b.src.Intn(n) == 0 }

func (b *beginnerBot) any(mask uint64) Edge {
	return nthBit(mask, b.src.Intn(bits.OnesCount64(mask)))
}

func (b *beginnerBot) choose(bd *Board) Edge {
	closing, safe, unsafe := bd.classify()
	switch {
	case closing != 0:
		if safe != 0 && b.slip(missCapture) {
			return b.any(safe)
		}
		// Always the whole chain: a beginner does not double-deal.
		return b.any(closing)
	case safe != 0:
		if unsafe != 0 && b.slip(missSafe) {
			return b.any(unsafe)
		}
		return b.any(safe)
	}
	// Every edge opens something: the cheapest first (openings sorts them
	// by the boxes they hand over), now and then the next one.
	opens := openings(bd, unsafe, NumBoxes)
	if len(opens) > 1 && b.slip(missOpen) {
		return opens[1]
	}
	return opens[0]
}
