package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/humanbot"
	botspec "github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// A session is one match the site runs in memory: a person against house
// bots, or house bots watched live. Finished sessions, and replays opened from
// files, stay as replays the viewer shows.
type session struct {
	id    string
	key   string // proves the right to move; kept in a cookie of the creator
	ip    string
	game  game.Game
	human int // the person's seat, -1 when nobody plays
	bots  []string
	size  int64      // of a replay opened from a file: what its view keeps
	start *startSpec // how a game played here began (for a rematch); nil for a file

	hb     *humanbot.Bot
	cancel context.CancelFunc

	mu     sync.Mutex
	frames []json.RawMessage
	turns  []json.RawMessage
	framer framer
	prompt int // the turn the person is asked about, -1 when not asked
	done   bool
	failed string
	rep    *replay.Replay
	view   *viewData // for finished sessions, built once
	subs   map[chan sseEvent]struct{}
	live   bool
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data []byte
}

// sessionLimits bound what browsers can make the server run.
type sessionLimits struct {
	perIP    int           // live sessions per client address
	total    int           // live sessions in all
	kept     int           // finished sessions kept in memory
	viewed   int64         // bytes of the replays opened from files (/view) kept
	saved    int64         // bytes of the games' replays kept on disk (sessions.dir)
	turnWait time.Duration // how long a person may think
	matchMax time.Duration // how long any session may run
}

var defaultLimits = sessionLimits{perIP: 4, total: 64, kept: 200, viewed: 256 << 20, saved: 1 << 30, turnWait: humanbot.DefaultLimit, matchMax: 4 * time.Hour}

// sessions holds every session.
type sessions struct {
	limits sessionLimits
	dir    string // where finished replays are saved, "" for memory only
	// lookup finds a saved replay's game among the site's, or nil.
	lookup func(id string) game.Game

	mu       sync.Mutex
	byID     map[string]*session
	finished []string // ids of finished sessions, oldest first
	// Replays opened from files are kept apart, bounded by their bytes: a
	// file of 700 KB can hold 20,000 empty turns whose frames take 30 MB,
	// and a stranger's files must not push people's games out.
	viewed      []*session // oldest first
	viewedBytes int64
	liveByIP    map[string]int
	live        int

	saveMu     sync.Mutex // held while counting or pruning the saved replays
	savedBytes int64      // in dir; -1 until the first save counts them
}

func newSessions(limits sessionLimits, dir string) *sessions {
	return &sessions{limits: limits, dir: dir, byID: map[string]*session{}, liveByIP: map[string]int{}, savedBytes: -1}
}

var errBusy = errors.New("too many games are running")

func randomID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b)
}

// startSpec is what a new session is made of.
type startSpec struct {
	game   game.Game
	seed   uint64
	params game.Params
	seats  []string // per seat: "human" or a house bot's name
	delay  time.Duration
	ip     string
}

// start makes a session and runs its match in the background.
func (ss *sessions) start(spec startSpec) (*session, error) {
	cfg := game.Config{Seed: spec.seed, Players: len(spec.seats), Params: spec.params}
	if !spec.game.Info().AllowsPlayers(cfg.Players) {
		return nil, fmt.Errorf("%s is for %v players", spec.game.Info().Name, spec.game.Info().Players)
	}
	first, err := spec.game.New(cfg)
	if err != nil {
		return nil, err
	}
	s := &session{id: randomID(12), key: randomID(16), ip: spec.ip, game: spec.game, human: -1,
		prompt: -1, subs: map[chan sseEvent]struct{}{}, live: true, start: &spec}
	bots := make([]bot.Bot, len(spec.seats))
	ids := make([]bot.Identity, len(spec.seats))
	closeAll := func() {
		for _, b := range bots {
			if b != nil {
				b.Close()
			}
		}
	}
	for seat, name := range spec.seats {
		if name == "human" {
			if s.human >= 0 {
				closeAll()
				return nil, errors.New("one person per game")
			}
			s.human = seat
			s.hb = humanbot.New(humanbot.Options{Limit: ss.limits.turnWait, Waiting: needsMover, OnPrompt: s.onPrompt})
			you := botspec.Spec{Kind: botspec.Human, Name: "you"}.String()
			bots[seat], ids[seat] = s.hb, bot.Identity{Spec: you}
			s.bots = append(s.bots, you)
			continue
		}
		b, err := bot.OpenBuiltin(name, bot.Match{Game: spec.game, Seed: spec.seed, Seat: seat, Params: spec.params})
		if err != nil {
			closeAll()
			return nil, err
		}
		house := botspec.Spec{Kind: botspec.Builtin, Name: name}.String()
		shown := house
		if level := houseLevel(spec.game, name); level != "" {
			shown = level + " (" + name + ")" // the difficulty the person picked, not a spec
		}
		bots[seat], ids[seat] = b, bot.Identity{Spec: house, Name: shown}
		s.bots = append(s.bots, shown)
	}
	fr, err := s.framer.frame(first)
	if err != nil {
		closeAll()
		return nil, err
	}
	s.frames = []json.RawMessage{fr}

	ss.mu.Lock()
	if ss.live >= ss.limits.total || ss.liveByIP[spec.ip] >= ss.limits.perIP {
		ss.mu.Unlock()
		closeAll()
		return nil, errBusy
	}
	ss.live++
	ss.liveByIP[spec.ip]++
	ss.byID[s.id] = s
	ss.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), ss.limits.matchMax)
	s.cancel = cancel
	runner := match.Runner{OnTurn: func(t *replay.Turn, st game.State) {
		s.addTurn(t, st)
		if spec.delay > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(spec.delay):
			}
		}
	}}
	go func() {
		defer cancel()
		r, err := runner.Run(ctx, spec.game, cfg, bots, ids)
		closeAll()
		s.finish(r, err)
		ss.retire(s)
	}()
	return s, nil
}

// stopAll stops every live session (their replays end where they stopped).
func (ss *sessions) stopAll() {
	ss.mu.Lock()
	var live []*session
	for _, s := range ss.byID {
		if s.cancel != nil {
			live = append(live, s)
		}
	}
	ss.mu.Unlock()
	for _, s := range live {
		s.cancel()
	}
}

// needsMover tells a human seat whether an observation is a question for the
// person: in a game that names the mover (some ask every seat and use the mover's answer),
// only the mover has to answer.
func needsMover(obs []byte) bool {
	var o struct {
		You    *int `json:"you"`
		ToMove *int `json:"to_move"`
	}
	if json.Unmarshal(obs, &o) != nil || o.You == nil || o.ToMove == nil {
		return true
	}
	return *o.You == *o.ToMove
}

// retire moves a session from the live ones to the finished ones and forgets
// the oldest finished ones beyond the limit.
func (ss *sessions) retire(s *session) {
	if ss.dir != "" {
		if r := s.replay(); r != nil {
			if err := os.MkdirAll(ss.dir, 0o755); err == nil {
				path := filepath.Join(ss.dir, s.id+".json")
				if r.Save(path) == nil {
					ss.savedOne(path)
				}
			}
		}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.live--
	if ss.liveByIP[s.ip]--; ss.liveByIP[s.ip] <= 0 {
		delete(ss.liveByIP, s.ip)
	}
	ss.keep(s.id)
}

// keep records a finished session, forgetting the oldest beyond the limit.
// The caller holds ss.mu.
func (ss *sessions) keep(id string) {
	ss.finished = append(ss.finished, id)
	for len(ss.finished) > ss.limits.kept {
		delete(ss.byID, ss.finished[0])
		ss.finished = ss.finished[1:]
	}
}

// savedOne counts a replay saved to ss.dir and, past the limit of the
// directory's bytes, removes the oldest replays there until it is a tenth
// under: a game left at once ends in a second, and one address could
// otherwise fill the disk.
func (ss *sessions) savedOne(path string) {
	ss.saveMu.Lock()
	defer ss.saveMu.Unlock()
	if ss.savedBytes < 0 { // first save since the start: count what is there
		_, ss.savedBytes = ss.savedReplays()
	} else if info, err := os.Stat(path); err == nil {
		ss.savedBytes += info.Size()
	}
	if ss.savedBytes <= ss.limits.saved {
		return
	}
	// Counted again from the listing: files removed by hand must not make
	// it prune what it need not.
	files, total := ss.savedReplays()
	ss.savedBytes = total
	for _, f := range files {
		if ss.savedBytes <= ss.limits.saved-ss.limits.saved/10 {
			break
		}
		if os.Remove(filepath.Join(ss.dir, f.Name())) == nil {
			ss.savedBytes -= f.Size()
		}
	}
}

// savedReplays lists the replays in ss.dir, oldest first, and their bytes.
func (ss *sessions) savedReplays() ([]os.FileInfo, int64) {
	ents, _ := os.ReadDir(ss.dir)
	var files []os.FileInfo
	var total int64
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			files = append(files, info)
			total += info.Size()
		}
	}
	slices.SortFunc(files, func(a, b os.FileInfo) int { return a.ModTime().Compare(b.ModTime()) })
	return files, total
}

// addReplay stores a finished match read from a file, forgetting the
// oldest such replays beyond the limit of their bytes.
func (ss *sessions) addReplay(g game.Game, r *replay.Replay) (*session, error) {
	v, err := buildView(g, r)
	if err != nil {
		return nil, err
	}
	size := v.size()
	if size > ss.limits.viewed/4 {
		return nil, fmt.Errorf("its %d turns make %.1f MiB to show, more than this site keeps for one replay (%d MiB)", len(r.Turns), float64(size)/(1<<20), ss.limits.viewed/4>>20)
	}
	s := &session{id: randomID(12), game: g, human: -1, prompt: -1, done: true, rep: r, view: v, bots: v.Bots, size: size}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.byID[s.id] = s
	ss.viewed = append(ss.viewed, s)
	ss.viewedBytes += size
	for ss.viewedBytes > ss.limits.viewed {
		old := ss.viewed[0]
		ss.viewed[0] = nil // not kept alive by the slice's array
		ss.viewed = ss.viewed[1:]
		ss.viewedBytes -= old.size
		delete(ss.byID, old.id)
	}
	return s, nil
}

// size is what the view keeps: its frames and the replay.
func (v *viewData) size() int64 {
	n := int64(len(v.Replay))
	for _, f := range v.Frames {
		n += int64(len(f))
	}
	return n
}

func (ss *sessions) get(id string) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s := ss.byID[id]; s != nil {
		return s
	}
	if ss.dir == "" || len(id) != 24 {
		return nil
	}
	// A replay saved by an earlier run of the server.
	for _, c := range id {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return nil
		}
	}
	r, err := replay.Load(filepath.Join(ss.dir, id+".json"))
	if err != nil {
		return nil
	}
	g := ss.lookup(r.Game)
	if g == nil {
		return nil
	}
	v, err := buildView(g, r)
	if err != nil {
		return nil
	}
	s := &session{id: id, game: g, human: -1, prompt: -1, done: true, rep: r, view: v, bots: v.Bots}
	ss.byID[id] = s
	ss.keep(id)
	return s
}

func (s *session) onPrompt(p humanbot.Prompt) {
	s.mu.Lock()
	s.prompt = p.Turn
	data, _ := json.Marshal(map[string]int{"turn": p.Turn})
	s.broadcast(sseEvent{"prompt", data})
	s.mu.Unlock()
}

func (s *session) addTurn(t *replay.Turn, st game.State) {
	rec, err := json.Marshal(t)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fr, err := s.framer.frame(st)
	if err != nil {
		return
	}
	s.frames = append(s.frames, fr)
	s.turns = append(s.turns, rec)
	s.prompt = -1
	data, _ := json.Marshal(struct {
		Turn  json.RawMessage `json:"turn"`
		Frame json.RawMessage `json:"frame"`
	}{rec, fr})
	s.broadcast(sseEvent{"turn", data})
}

func (s *session) finish(r *replay.Replay, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done, s.live, s.prompt = true, false, -1
	s.rep = r
	if err != nil {
		s.failed = err.Error()
	}
	data, _ := json.Marshal(s.resultLocked())
	s.broadcast(sseEvent{"end", data})
	for ch := range s.subs {
		close(ch)
	}
	s.subs = map[chan sseEvent]struct{}{}
}

func (s *session) resultLocked() map[string]any {
	out := map[string]any{"failed": s.failed}
	if s.rep != nil {
		out["result"] = s.rep.Result
	}
	return out
}

// broadcast sends ev to every subscriber; one too slow to keep up is dropped
// (its browser reconnects and starts again from a snapshot). Holds s.mu.
func (s *session) broadcast(ev sseEvent) {
	for ch := range s.subs {
		select {
		case ch <- ev:
		default:
			close(ch)
			delete(s.subs, ch)
		}
	}
}

// subscribe returns a snapshot event and a channel of the events after it;
// the channel is nil for a finished session.
func (s *session) subscribe() (sseEvent, chan sseEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, _ := json.Marshal(s.snapshotLocked())
	if s.done {
		return sseEvent{"init", snap}, nil
	}
	ch := make(chan sseEvent, 256)
	s.subs[ch] = struct{}{}
	return sseEvent{"init", snap}, ch
}

func (s *session) unsubscribe(ch chan sseEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.subs[ch]; ok {
		delete(s.subs, ch)
		close(ch)
	}
}

// snapshot is the viewer's data for a session at this moment.
type snapshot struct {
	*viewData
	Human  int  `json:"human"`
	Prompt int  `json:"prompt"`
	Live   bool `json:"live"`
	// Queued says that a platform match waits for a worker.
	Queued bool   `json:"queued,omitempty"`
	Failed string `json:"failed,omitempty"`
}

func (s *session) snapshotLocked() snapshot {
	if s.view == nil && s.done && s.rep != nil {
		if v, err := buildView(s.game, s.rep); err == nil {
			s.view = v
		}
	}
	if s.view != nil {
		return snapshot{viewData: s.view, Human: s.human, Prompt: -1, Failed: s.failed}
	}
	// A match in progress: a replay of the turns so far.
	turns := s.turns
	if turns == nil {
		turns = []json.RawMessage{}
	}
	partial, _ := json.Marshal(map[string]any{"game": s.game.Info().ID, "turns": turns})
	v := &viewData{Game: s.game.Info().ID, Name: s.game.Info().Name, Players: len(s.bots), Bots: s.bots,
		Frames: s.frames, Replay: partial, Done: s.done}
	return snapshot{viewData: v, Human: s.human, Prompt: s.prompt, Live: s.live, Failed: s.failed}
}

func (s *session) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

func (s *session) replay() *replay.Replay {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rep
}

// houseLevel is the difficulty a house bot is picked by on the Play page, or "".
func houseLevel(g game.Game, name string) string {
	for _, hb := range g.HouseBots() {
		if hb.Name == name {
			return hb.Level
		}
	}
	return ""
}
