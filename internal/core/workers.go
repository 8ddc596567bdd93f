package core

import (
	"net/http"
	"slices"
	"time"

	"github.com/arenabots/arena/internal/jobs"
)

// WorkersJSON lists the workers: the matches this process runs at once, and
// the workers that joined from other machines as they last announced
// themselves.
type WorkersJSON struct {
	Local   int               `json:"local_workers"`
	Workers []jobs.WorkerInfo `json:"workers"`
}

// Workers lists the workers. The list is public, like /metrics, which
// carries the same names (docs/api.md, "Workers").
func (c *Core) Workers() WorkersJSON {
	local, joined := c.p.Workers()
	return WorkersJSON{Local: local, Workers: joined}
}

// StrikesOut is how many lost determinism votes take a worker out of
// rotation (internal/server/majority.go).
const StrikesOut = 3

// WorkerStanding is a worker's record of lost determinism votes (the
// server's rotation, internal/server/majority.go).
type WorkerStanding struct {
	Name      string     `json:"name"`
	Strikes   int        `json:"strikes"`
	Held      bool       `json:"held"` // out of rotation
	HeldSince *time.Time `json:"held_since,omitempty"`
	// Disagreed are the matches where its run was the odd one out (the
	// latest 20).
	Disagreed []int64 `json:"disagreed"`
}

// AdminWorker is one worker in the operator's list: its standing, the ids
// it announces under now (none when it is not running), and when it last
// announced itself (absent when it is not running).
type AdminWorker struct {
	WorkerStanding
	IDs      []string   `json:"ids"`
	LastSeen *time.Time `json:"last_seen,omitempty"`
}

// IsAdmin says whether the caller is one of the accounts the server names
// as its operators (Options.Admins; `arena serve --admin`), logged in.
func (c *Core) IsAdmin(who Caller) bool {
	return who.LoggedIn() && slices.Contains(c.opt.Admins, who.Account.ID)
}

// errNotAdmin refuses the operator's reads and writes to anyone else.
var errNotAdmin = Errorf(http.StatusForbidden, "this page is the operator's: only the accounts the server names with --admin may see it")

// AdminWorkers is the operator's list of the workers, by name.
func (c *Core) AdminWorkers(who Caller) ([]AdminWorker, error) {
	if !c.IsAdmin(who) {
		return nil, errNotAdmin
	}
	return c.p.AdminWorkers(), nil
}

// ClearWorker puts a worker out of rotation back in, its strikes cleared;
// 404 when no worker of that name has lost a vote.
func (c *Core) ClearWorker(who Caller, name string) error {
	if !c.IsAdmin(who) {
		return errNotAdmin
	}
	ok, err := c.p.ClearWorker(name)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(http.StatusNotFound, "no worker %q has lost a vote", Truncate(name, 64))
	}
	c.log.Warn("worker cleared by an operator: back in rotation", "worker", name, "by", who.Account.Handle)
	return nil
}
