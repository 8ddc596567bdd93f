package core

import (
	"context"
	"encoding/json"
	"time"

	"github.com/arenabots/arena/internal/store"
)

// LiveEvent is one event of a followed match: a turn as it is played, or
// the match as it ended.
type LiveEvent struct {
	Turn json.RawMessage // a turn record, as the replay writes it; nil for the end
	End  *MatchJSON      // the match once it has ended; nil for a turn
}

// Live is a match followed as it is played.
type Live struct {
	Match MatchJSON         // as it was when it was opened
	Past  []json.RawMessage // the turns so far; empty when they are not all known
	// Events carries each later turn, then the end; it is closed after the
	// end, when ctx ends, or when the match can no longer be read.
	Events <-chan LiveEvent
}

// liveBuffer is how many batches of turns (jobs.MaxLiveTurns at most,
// a few a second) wait for a slow follower: past it, turns are dropped
// rather than hold up the match. A batch arrives whole, so a follower
// keeps up with a match of a thousand turns a second.
const liveBuffer = 32

// liveCheck is how often a followed match's state is read again.
const liveCheck = time.Second

// Follow follows match id until it ends or ctx does.
func (c *Core) Follow(ctx context.Context, id int64) (*Live, error) {
	m, err := c.storeMatch(ctx, id)
	if err != nil {
		return nil, err
	}
	batches := make(chan [][]byte, liveBuffer)
	past, stop, err := c.p.Live(m.ID, func(b [][]byte) {
		select {
		case batches <- b:
		default: // a slow reader loses turns rather than holding up the match
		}
	})
	if err != nil {
		return nil, err
	}
	events := make(chan LiveEvent)
	l := &Live{Match: matchJSON(m), Past: make([]json.RawMessage, len(past)), Events: events}
	for i, t := range past {
		l.Past[i] = t
	}
	go func() {
		defer close(events)
		defer stop()
		send := func(ev LiveEvent) bool {
			select {
			case events <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		tick := time.NewTicker(liveCheck)
		defer tick.Stop()
		for m.State == store.Queued || m.State == store.Running {
			select {
			case <-ctx.Done():
				return
			case batch := <-batches:
				for _, b := range batch {
					if !send(LiveEvent{Turn: b}) {
						return
					}
				}
			case <-tick.C:
				if m, err = c.st.Match(ctx, m.ID); err != nil {
					return
				}
			}
		}
		end := matchJSON(m)
		send(LiveEvent{End: &end})
	}()
	return l, nil
}
