package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"time"
	"unicode/utf8"
)

// AnnounceSubject is where workers say who they are and what they do.
const AnnounceSubject = "arena.workers.announce"

// Announcement is one worker process's state. Workers send one every
// Interval and whenever a match starts or ends; one that falls silent for
// three intervals is gone.
type Announcement struct {
	ID         string    `json:"id"`   // random per process
	Name       string    `json:"name"` // --name, default the host name
	Version    string    `json:"version"`
	CostModel  int       `json:"cost_model"`
	Cores      int       `json:"cores"`
	Parallel   int       `json:"parallel"`
	MatchesRun int64     `json:"matches_run"`
	Failed     int64     `json:"failed"`
	Refused    int64     `json:"refused"` // jobs of another build
	Current    []int64   `json:"current"` // match ids running now
	Started    time.Time `json:"started"`
	Interval   float64   `json:"interval"` // seconds between announcements
	Leaving    bool      `json:"leaving,omitempty"`
}

// Bounds on what a worker may claim, so that a hostile one cannot bloat the
// server's memory or its pages.
const (
	maxAnnouncement = 16 << 10
	maxWorkers      = 4096
	maxNameLen      = 64
)

// ParseAnnouncement decodes and checks an announcement.
func ParseAnnouncement(data []byte) (Announcement, error) {
	var a Announcement
	if len(data) > maxAnnouncement {
		return a, fmt.Errorf("announcement of %d bytes", len(data))
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return Announcement{}, err
	}
	switch {
	case a.ID == "" || len(a.ID) > maxNameLen || !utf8.ValidString(a.ID):
		return Announcement{}, errors.New("announcement: bad id")
	case len(a.Name) > maxNameLen || !utf8.ValidString(a.Name) || len(a.Version) > 200 || !utf8.ValidString(a.Version):
		return Announcement{}, errors.New("announcement: bad name or version")
	case a.Cores < 0 || a.Parallel < 0 || a.Parallel > 4096 || a.MatchesRun < 0 || a.Failed < 0 || a.Refused < 0:
		return Announcement{}, errors.New("announcement: negative or absurd counts")
	case len(a.Current) > a.Parallel:
		return Announcement{}, errors.New("announcement: more current matches than parallel slots")
	case !(a.Interval > 0 && a.Interval <= 300):
		return Announcement{}, errors.New("announcement: interval out of (0, 300] s")
	}
	return a, nil
}

// Version is this binary's version: the module version and VCS revision
// when the build recorded them.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "+dirty"
		}
	}
	return v
}

// Roster is the server's view of its workers.
type Roster struct {
	mu      sync.Mutex
	workers map[string]rosterEntry
	names   map[string]string // id -> name of every worker seen (Name)
	now     func() time.Time
}

type rosterEntry struct {
	a    Announcement
	seen time.Time
}

// NewRoster makes an empty roster.
func NewRoster() *Roster {
	return &Roster{workers: map[string]rosterEntry{}, names: map[string]string{}, now: time.Now}
}

// Note takes an announcement's bytes; bad ones are dropped with an error.
func (r *Roster) Note(data []byte) error {
	a, err := ParseAnnouncement(data)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.expire(now)
	if a.Leaving {
		delete(r.workers, a.ID)
		return nil
	}
	if _, ok := r.workers[a.ID]; !ok && len(r.workers) >= maxWorkers {
		return errors.New("announcement: too many workers")
	}
	r.workers[a.ID] = rosterEntry{a: a, seen: now}
	if _, ok := r.names[a.ID]; !ok && len(r.names) >= maxWorkers {
		r.names = map[string]string{}
	}
	r.names[a.ID] = a.Name
	return nil
}

func (r *Roster) expire(now time.Time) {
	for id, e := range r.workers {
		if now.Sub(e.seen) > time.Duration(3*e.a.Interval*float64(time.Second)) {
			delete(r.workers, id)
		}
	}
}

// WorkerInfo is a worker as the API shows it.
type WorkerInfo struct {
	Announcement
	LastSeen time.Time `json:"last_seen"`
}

// List is the live workers, by name then id.
func (r *Roster) List() []WorkerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expire(r.now())
	out := make([]WorkerInfo, 0, len(r.workers))
	for _, e := range r.workers {
		out = append(out, WorkerInfo{Announcement: e.a, LastSeen: e.seen})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Name is the name the worker with this id announced, "" when it never
// did. Unlike List, it does not forget a worker whose announcements are
// late (a loaded machine) or stopped.
func (r *Roster) Name(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.names[id]
}

// Capacity is the matches the live workers can run at once.
func (r *Roster) Capacity() int {
	n := 0
	for _, w := range r.List() {
		n += w.Parallel
	}
	return n
}
