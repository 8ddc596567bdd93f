package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/visitors"
)

// The live views (server-sent event streams) open at once, in all and
// from one address: one visitor must not take them all.
const (
	maxLiveStreams        = 256
	maxLiveStreamsPerAddr = 8
)

// live streams a match as it is played: `match` (the match as it was),
// `turns` (the turns so far), `turn` for each later one, and `end` (the
// match as it ended).
func (a *API) live(w http.ResponseWriter, r *http.Request) error {
	id, err := matchID(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	l, err := a.c.Follow(ctx, id)
	if err != nil {
		return err
	}
	if _, ok := w.(http.Flusher); !ok {
		return Errorf(http.StatusNotImplemented, "streaming is not supported here")
	}
	done, ok := a.liveViews.Open(a.clientIP(r))
	if !ok {
		return Errorf(http.StatusServiceUnavailable, "too many live views open; try again later")
	}
	defer done()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// A viewer who stops reading loses the stream a minute after a write
	// blocks; one who reads keeps it for the whole match.
	sw := &visitors.DeadlineWriter{ResponseWriter: w, Conn: http.NewResponseController(w), Wait: core.StreamWriteWait}
	fmt.Fprintf(sw, "event: match\ndata: %s\n\n", mustJSON(l.Match))
	// The turns so far, so that a view opened late draws the board at once.
	fmt.Fprintf(sw, "event: turns\ndata: %s\n\n", mustJSON(l.Past))
	sw.Flush()
	for ev := range l.Events {
		if ev.End != nil {
			fmt.Fprintf(sw, "event: end\ndata: %s\n\n", mustJSON(ev.End))
		} else {
			fmt.Fprintf(sw, "event: turn\ndata: %s\n\n", ev.Turn)
		}
		sw.Flush()
	}
	return nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
