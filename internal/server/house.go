package server

import (
	"context"
	"fmt"

	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/rating"
)

// seedLadder makes @house's rated ladder entries the wasm modules of
// internal/housebots: on the ladder the house plays by everyone's rules.
// It is idempotent. A bot whose active version is not the embedded module
// (a native house bot, as older data directories have, or an older build)
// gets the module as a new version, which keeps the rating's mean and
// starts its uncertainty again, as an upload's new version does. A house
// bot with no wasm entry leaves the ladder (retired; its history stays).
// The bots keep their builtin spec: the smoke match and Play built-ins
// still use the native bot (job).
func (s *Server) seedLadder(ctx context.Context, house store.Account) error {
	entries, err := housebots.Ladder()
	if err != nil {
		return err
	}
	r := rating.Default()
	onLadder := map[string]bool{}
	for _, e := range entries {
		onLadder[e.Game+"/"+e.Name] = true
		native := spec.Spec{Kind: spec.Builtin, Name: e.Name}
		b, err := s.store.EnsureHouseBot(ctx, house.ID, e.Game, e.Name, native.String(), r.Mu, r.Sigma)
		if err != nil {
			return err
		}
		if b.ActiveVersion != 0 {
			v, err := s.store.Version(ctx, b.ActiveVersion)
			if err != nil {
				return fmt.Errorf("house bot %s/%s: %w", e.Game, e.Name, err)
			}
			if v.SHA256 == e.SHA256 {
				continue
			}
		}
		_, v, err := s.store.AddVersion(ctx, house.ID, e.Game, e.Name, e.SHA256, e.Wasm, r.Mu, r.Sigma)
		if err != nil {
			return err
		}
		msg := fmt.Sprintf("the house's wasm build of %s (internal/housebots)", native)
		if err := s.store.FinishCheck(ctx, v.ID, true, msg, 0, r.Sigma); err != nil {
			return err
		}
	}
	bots, err := s.store.BotsOf(ctx, house.ID)
	if err != nil {
		return err
	}
	for _, b := range bots {
		if !b.Retired && !onLadder[b.Game+"/"+b.Name] {
			if err := s.store.Retire(ctx, b.ID); err != nil {
				return err
			}
		}
	}
	return nil
}
