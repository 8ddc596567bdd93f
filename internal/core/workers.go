package core

import "github.com/arenabots/arena/internal/jobs"

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
