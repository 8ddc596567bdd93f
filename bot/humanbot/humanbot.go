// Package humanbot is the `human` kind of bot: a person playing one seat in
// the browser. To the match runner it is a bot like any other; its Act waits
// until the person answers (through Answer) or walks away, in which case the
// turn is a timeout and the game's documented default applies, exactly as it
// would for a program.
package humanbot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
)

// DefaultLimit is how long a person may think about one move. It is generous
// on purpose: it only exists so that an abandoned game ends.
const DefaultLimit = 10 * time.Minute

// DefaultAwayLimit is how long a person who has already missed a move gets
// for each later one, until they move again: so a game left open in a
// forgotten tab ends within minutes rather than hours.
const DefaultAwayLimit = 20 * time.Second

// MaxAnswer bounds one answer from the browser. Answers of the three games are
// a few hundred bytes; a Grid Royale turn with 50 units is about 2 KB.
const MaxAnswer = 64 << 10

// Options configure a human seat.
type Options struct {
	// Limit is how long Act waits for an answer (DefaultLimit when zero).
	Limit time.Duration
	// AwayLimit replaces Limit once a move was missed, until the person
	// answers again (DefaultAwayLimit when zero).
	AwayLimit time.Duration
	// Waiting, when set, tells whether an observation needs the person at all.
	// Dots and Boxes asks both seats every turn but applies only the mover's
	// answer; the other seat is answered at once with "{}" and is ignored.
	Waiting func(obs []byte) bool
	// OnPrompt, when set, is called (without locks held) each time the bot
	// starts waiting for the person, so a page can be told to ask.
	OnPrompt func(p Prompt)
}

// Prompt is one question put to the person.
type Prompt struct {
	Turn        int    `json:"turn"` // the turns resolved before it
	Observation []byte `json:"-"`
}

// Bot is one human seat of one match.
type Bot struct {
	opts    Options
	mu      sync.Mutex
	pending *Prompt
	answers chan []byte
	closed  chan struct{}
	once    sync.Once
	away    bool // a move was missed and none made since
}

// New makes a human seat.
func New(opts Options) *Bot {
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	if opts.AwayLimit <= 0 {
		opts.AwayLimit = DefaultAwayLimit
	}
	return &Bot{opts: opts, answers: make(chan []byte, 1), closed: make(chan struct{})}
}

// Errors of Answer, for the page to explain.
var (
	ErrNotAsked = errors.New("it is not your move")
	ErrTooLong  = fmt.Errorf("an answer is at most %d bytes", MaxAnswer)
)

// Act waits for the person's answer to req.
func (b *Bot) Act(ctx context.Context, req bot.Request) bot.Reply {
	if b.opts.Waiting != nil && !b.opts.Waiting(req.Observation) {
		return bot.Reply{Line: []byte("{}"), Status: game.OK}
	}
	p := Prompt{Turn: req.Turn, Observation: req.Observation}
	b.mu.Lock()
	b.pending = &p
	limit := b.opts.Limit
	if b.away {
		limit = min(limit, b.opts.AwayLimit)
	}
	b.mu.Unlock()
	if b.opts.OnPrompt != nil {
		b.opts.OnPrompt(p)
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	defer func() {
		// No answer is taken after this, and none is left over for the
		// next question (one given as the game was stopped).
		b.mu.Lock()
		b.pending = nil
		select {
		case <-b.answers:
		default:
		}
		b.mu.Unlock()
	}()
	select {
	case line := <-b.answers:
		b.mu.Lock()
		b.away = false
		b.mu.Unlock()
		return bot.Reply{Line: line, Status: game.OK}
	case <-timer.C:
		b.mu.Lock()
		defer b.mu.Unlock()
		b.pending = nil
		// An answer given as the time ran out is in the channel: it was
		// on time, and left there it would answer the next question.
		select {
		case line := <-b.answers:
			b.away = false
			return bot.Reply{Line: line, Status: game.OK}
		default:
		}
		b.away = true
		return bot.Reply{Status: game.Timeout, Detail: fmt.Sprintf("the player did not move within %s", limit)}
	case <-b.closed:
		return bot.Reply{Status: game.Timeout, Detail: "the player left the game"}
	case <-ctx.Done():
		return bot.Reply{Status: game.Timeout, Detail: "the game was stopped"}
	}
}

// Pending returns the question the person has to answer now, if any.
func (b *Bot) Pending() (Prompt, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		return Prompt{}, false
	}
	return *b.pending, true
}

// Answer hands the person's answer line for turn to the waiting Act. The line
// is passed on as it is: the game judges it like any bot's answer.
func (b *Bot) Answer(turn int, line []byte) error {
	if len(line) > MaxAnswer {
		return ErrTooLong
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil || b.pending.Turn != turn {
		return ErrNotAsked
	}
	select {
	case b.answers <- append([]byte(nil), line...):
		b.pending = nil // one answer per question
		return nil
	default:
		return ErrNotAsked
	}
}

// Close makes a waiting Act give up; a person writes no log.
func (b *Bot) Close() []byte {
	b.once.Do(func() { close(b.closed) })
	return nil
}
