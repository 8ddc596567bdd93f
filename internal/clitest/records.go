package clitest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/store"
)

// AllMatches lists every match of the store, ended ones or (live) the
// queued and running ones, newest first.
func AllMatches(t testing.TB, s *store.Store, live bool) []store.Match {
	t.Helper()
	var out []store.Match
	f := store.MatchFilter{Live: live, Limit: 200}
	for {
		ms, err := s.Matches(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ms...)
		if len(ms) < f.Limit {
			return out
		}
		f.Before = ms[len(ms)-1].ID
	}
}

// ExactlyOnce checks what servers killed, restarted or left by their
// workers recorded: every bot's match count equals its rated matches
// applied and its rating history (one entry per match), and no failed match
// moved a rating. A finished rated match may wait, unapplied, only for an
// earlier match still queued or running.
//
// Its reads are not one snapshot: when matches are recorded meanwhile they
// disagree for a moment. So it looks again, up to 10 times, 200 ms apart,
// and fails only when every look finds a fault: a real double count stays.
func ExactlyOnce(t testing.TB, s *store.Store) {
	t.Helper()
	var faults []string
	for try := 0; try < 10; try++ {
		if faults = exactlyOnce(t, s); len(faults) == 0 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, f := range faults {
		t.Error(f)
	}
}

func exactlyOnce(t testing.TB, s *store.Store) (faults []string) {
	t.Helper()
	ctx := context.Background()
	firstLive := int64(1 << 62)
	for _, m := range AllMatches(t, s, true) {
		firstLive = min(firstLive, m.ID)
	}
	rated := map[int64]int{}
	failed := map[int64]bool{}
	for _, m := range AllMatches(t, s, false) {
		switch {
		case m.Kind == store.KindRated && m.State == store.Finished && !m.Applied:
			if m.ID < firstLive {
				faults = append(faults, fmt.Sprintf("match %d finished but not rated, with no earlier match live", m.ID))
			}
		case m.Kind == store.KindRated && m.State == store.Finished:
			for _, seat := range m.Seats {
				rated[seat.BotID]++
			}
		case m.State == store.Failed:
			failed[m.ID] = true
		}
	}
	total := 0
	for _, g := range games.All() {
		bots, err := s.ActiveBots(ctx, g.Info().ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bots {
			h, err := s.RatingHistory(ctx, b.ID, 0, 100000)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int64]bool{}
			for _, p := range h {
				if seen[p.MatchID] || failed[p.MatchID] {
					faults = append(faults, fmt.Sprintf("bot %d: rating moved twice or by a failed match (match %d)", b.ID, p.MatchID))
				}
				seen[p.MatchID] = true
			}
			if int(b.Matches) != rated[b.ID] || len(h) != rated[b.ID] {
				faults = append(faults, fmt.Sprintf("bot %d: %d matches counted, %d rating changes, %d rated matches recorded", b.ID, b.Matches, len(h), rated[b.ID]))
			}
			total += rated[b.ID]
		}
	}
	if total == 0 {
		faults = append(faults, "no rated match was recorded: the check proves nothing")
	}
	return faults
}
