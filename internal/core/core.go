// Package core is what the platform's API (internal/api) and its site
// (internal/web) both do: the reads and writes of accounts, bots, uploads,
// matches, replays, live turns, leaderboards and challenges, each with its
// permission checks, and the one set of JSON types both show. The API puts
// HTTP around it (bodies, cookies, CSRF, limits per address); the site calls
// it directly for the pages it draws on the server.
//
// Every refusal is an *Error: a status and a sentence for the user, never a
// Go error's text.
package core

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/visitors"
)

// HouseHandle is the account that owns the house bots.
const HouseHandle = "house"

// Limits.
const (
	MaxUpload   = 32 << 20 // bytes of a module
	PageDefault = 50       // rows of a list when the caller gives no limit
	PageMax     = 200      // the most rows of a list
)

// UploadWriteWait is the time an upload's answer has to be written once
// the module has arrived (the check runs meanwhile: up to 90 s).
const UploadWriteWait = 3 * time.Minute

// StreamWriteWait is how long a write to an event stream may wait: a
// client that stops reading loses the stream then.
const StreamWriteWait = time.Minute

// Platform is what the core needs beyond the store: the parts that run
// matches (implemented by package internal/server).
type Platform interface {
	// Upload checks and stores a module as a new version of the account's
	// named bot, held to lim (a *store.LimitError when over), and runs its
	// smoke match; errors of type *Error are the uploader's to fix.
	// report, when not nil, is told each step of the check as it happens
	// (UploadStep), from the calling goroutine.
	Upload(ctx context.Context, acc store.Account, game, name string, wasm []byte, lim store.UploadLimits, report func(UploadStep)) (store.Bot, store.Version, error)
	// Challenge schedules an unrated match between active bots.
	Challenge(ctx context.Context, game string, bots []int64, seed uint64) (int64, error)
	// Live returns the turns of a running match so far (nil when they are
	// not all known) and calls fn with each later batch of turns (as they
	// arrive from the match's worker) until stop is called. fn must neither
	// block nor change the batch.
	Live(matchID int64, fn func([][]byte)) (past [][]byte, stop func(), err error)
	// Workers lists the matches this process runs at once and the workers
	// that joined from other machines.
	Workers() (local int, joined []jobs.WorkerInfo)
	// AdminWorkers lists every worker that lost a vote or runs now, by
	// name; ClearWorker puts one back in rotation, its strikes cleared
	// (false when no worker of that name lost a vote).
	AdminWorkers() []AdminWorker
	ClearWorker(name string) (bool, error)
}

// Error is a refusal with an HTTP status and a message for the user.
type Error struct {
	Status int
	Msg    string
	// RetryAfter, when set, says when to try again (a 429's Retry-After).
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Msg }

// Errorf makes an *Error.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Msg: fmt.Sprintf(format, args...)}
}

// Options configures the core.
type Options struct {
	Log *slog.Logger
	// Games are the platform's games (games.All), in the order they are
	// listed.
	Games []game.Game
	// ChallengesPerMinute limits each account's challenges; zero for the
	// default (10).
	ChallengesPerMinute int
	// UploadsPerDay limits the versions an account uploads in 24 hours,
	// and BotsPerGame the bots it has for one game; zero for the defaults
	// (DefaultUploadsPerDay, DefaultBotsPerGame). CheckUpload applies them
	// before a module is read; the Platform holds uploads to them.
	UploadsPerDay, BotsPerGame int
	// Admins are the accounts (by id) that see the operator's pages on
	// the site (IsAdmin).
	Admins []int64
}

// The per-account upload limits' defaults. Each upload is compiled, tried
// in a smoke match and kept for at least a day (up to 32 MiB), and each bot
// plays on its game's ladder; a per-address rate alone lets one account
// upload from many addresses. Peers: Kaggle takes 5 submissions a day,
// Halite one bot per player.
const (
	DefaultUploadsPerDay = 50
	DefaultBotsPerGame   = 10
)

// Core is the platform's reads and writes over a store and a Platform.
type Core struct {
	st  *store.Store
	p   Platform
	opt Options
	log *slog.Logger
	// challenges counts by account: a challenge is a match on the
	// server's workers.
	challenges *visitors.Rate
	// tries counts upload attempts by account, a day at a time: one the
	// sandbox refuses to compile makes no version, so the daily limit on
	// versions does not see it, yet compiling is the dearest step.
	tries   *visitors.Rate
	pages   pageCache
	botGame botGames
}

// New makes the core.
func New(st *store.Store, p Platform, opt Options) *Core {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	opt.UploadsPerDay = orDefault(opt.UploadsPerDay, DefaultUploadsPerDay)
	opt.BotsPerGame = orDefault(opt.BotsPerGame, DefaultBotsPerGame)
	return &Core{st: st, p: p, opt: opt, log: opt.Log,
		challenges: visitors.NewRate(orDefault(opt.ChallengesPerMinute, 10), time.Minute),
		tries:      visitors.NewRate(2*opt.UploadsPerDay, 24*time.Hour),
	}
}

// orDefault is v when it is set (above 0), else d.
func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// Store is the core's store (for the server's own wiring and tests).
func (c *Core) Store() *store.Store { return c.st }

// Truncate cuts s to at most n bytes: what a refusal quotes of a visitor's
// input.
func Truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
