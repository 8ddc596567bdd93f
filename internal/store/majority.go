package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// ReplaceResult puts another run of a finished match in place of the
// recorded one: its replay, turns and each seat's score, place, statuses
// and fuel (the bots' logs stay). It is for the majority of three runs
// that disagreed (a determinism check), when the recorded run was the odd
// one out. Rating changes already applied from the recorded run stay as
// they are: later matches of the same bots were rated after them. It
// reports whether any seat's place changed; ErrNotFound when the match is
// not finished.
func (s *Store) ReplaceResult(ctx context.Context, res Result) (placesChanged bool, err error) {
	err = s.tx(ctx, func(tx *txn) error {
		var state string
		err := tx.QueryRowContext(ctx, s.q(`SELECT state FROM matches WHERE id = ?`+s.forUpdate()), res.MatchID).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && state != Finished) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		seats, err := s.seatRefs(ctx, tx, res.MatchID)
		if err != nil {
			return err
		}
		if len(seats) != len(res.Seats) {
			return fmt.Errorf("match %d has %d seats, the result %d", res.MatchID, len(seats), len(res.Seats))
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE matches SET turns = ?, replay = ? WHERE id = ?`), res.Turns, compress(res.Replay), res.MatchID); err != nil {
			return err
		}
		for i, r := range res.Seats {
			var place int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT place FROM match_seats WHERE match_id = ? AND seat = ?`), res.MatchID, i).Scan(&place); err != nil {
				return err
			}
			placesChanged = placesChanged || place != r.Place
			st, err := json.Marshal(r.Statuses)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE match_seats SET score = ?, place = ?, statuses = ?, fuel = ? WHERE match_id = ? AND seat = ?`),
				r.Score, r.Place, string(st), r.Fuel, res.MatchID, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		err = fmt.Errorf("store: replace result: %w", err)
	}
	return placesChanged, err
}
