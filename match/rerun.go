package match

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/replay"
)

// Rerun plays the replay's match again with the bots open gives (the
// replay's own, or where they are found now) and checks that every seat gave
// the same answer, byte for byte, with the same status, spent the same fuel,
// and that every state hash and the result are the same. A wasm match must
// re-run bit-identically; a difference is reported at the first turn it shows.
func (rn Runner) Rerun(ctx context.Context, r *replay.Replay, g game.Game, open bot.Opener) error {
	if r.ResumedAfter > 0 {
		rn.From, rn.FromTurn = r, r.ResumedAfter
	}
	played, err := rn.Play(ctx, g, r.Config(), open)
	if err != nil {
		return err
	}
	return Compare(r, played)
}

// Compare reports the first difference between a recorded match and a re-run.
func Compare(want, got *replay.Replay) error {
	for seat := 0; seat < len(want.Bots) && seat < len(got.Bots); seat++ {
		if w, g := want.Bots[seat].CostModel, got.Bots[seat].CostModel; w != g {
			return fmt.Errorf("seat %d was recorded under fuel cost model %d and re-runs under %d: its fuel figures cannot match (re-run it with the build that recorded it)", seat, w, g)
		}
	}
	for i := 0; i < len(want.Turns) && i < len(got.Turns); i++ {
		w, g := want.Turns[i], got.Turns[i]
		if len(w.Seats) != len(g.Seats) {
			return fmt.Errorf("turn %d: %d seats answered, recorded %d", w.Turn, len(g.Seats), len(w.Seats))
		}
		for j := range w.Seats {
			ws, gs := &w.Seats[j], &g.Seats[j]
			wa, err := ws.AnswerDigest()
			if err != nil {
				return fmt.Errorf("turn %d, seat %d: %w", w.Turn, ws.Seat, err)
			}
			ga, err := gs.AnswerDigest()
			if err != nil {
				return fmt.Errorf("turn %d, seat %d: %w", w.Turn, ws.Seat, err)
			}
			if want.Version == 1 {
				// Version 1 kept answers as text, cut and with invalid
				// UTF-8 replaced: compare the re-run's answer the same way.
				b, _, _ := gs.AnswerBytes()
				wa, ga = ws.Answer, v1Answer(b)
			}
			switch {
			case ws.Status != gs.Status:
				return fmt.Errorf("turn %d, seat %d: status %s, recorded %s (%s)", w.Turn, ws.Seat, gs.Status, ws.Status, gs.Reason)
			case ws.Failed != gs.Failed && want.Version != 1:
				return fmt.Errorf("turn %d, seat %d: failed is %v, recorded %v", w.Turn, ws.Seat, gs.Failed, ws.Failed)
			case wa != ga:
				return fmt.Errorf("turn %d, seat %d: answered %s, recorded %s", w.Turn, ws.Seat, describe(gs), describe(ws))
			case ws.Fuel != gs.Fuel:
				return fmt.Errorf("turn %d, seat %d: spent %d fuel, recorded %d", w.Turn, ws.Seat, gs.Fuel, ws.Fuel)
			}
		}
		if w.Hash != g.Hash {
			return fmt.Errorf("turn %d: state hash %s, recorded %s", w.Turn, g.Hash, w.Hash)
		}
	}
	if len(want.Turns) != len(got.Turns) {
		return fmt.Errorf("the re-run lasted %d turns, recorded %d", len(got.Turns), len(want.Turns))
	}
	return nil
}

// describe names an answer for a mismatch message: quoted, clipped, with
// its length and whether it is valid UTF-8.
func describe(s *replay.Seat) string {
	b, whole, err := s.AnswerBytes()
	if err != nil {
		return err.Error()
	}
	n := len(b)
	if !whole && s.AnswerLen > 0 {
		n = s.AnswerLen
	}
	if len(b) > 60 {
		b = b[:60]
	}
	return fmt.Sprintf("%q (%d bytes)", b, n)
}

// v1Answer is how version 1 recorded an answer: cut to 4 KiB, each byte of
// invalid UTF-8 replaced by U+FFFD (as encoding/json writes it).
func v1Answer(b []byte) string {
	if len(b) > 4<<10 {
		b = b[:4<<10]
	}
	out := make([]rune, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		out = append(out, r)
		b = b[size:]
	}
	return string(out)
}
