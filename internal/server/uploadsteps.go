package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/replay"
)

// uploadSteps tells a streamed upload what its check does as it happens
// (core.UploadStep): the compile, the smoke match's start, the uploaded
// bot's first answers, then how many turns are played. Every step is told
// from the upload's own goroutine; the live hub only hands turns over.
type uploadSteps struct {
	report func(core.UploadStep) // nil: nobody is told anything

	running  bool
	last     int       // the latest turn seen
	answers  int       // answers told in full
	progress time.Time // when the turn count was last told
}

// stepTurnBuffer is how many turns wait for the upload's goroutine before
// the live hub drops the next ones (it must never block): more than the
// answers told in full, which are the first turns.
const stepTurnBuffer = 2 * core.MaxStepAnswers

// stepProgressEvery bounds how often the turn count is told.
const stepProgressEvery = 250 * time.Millisecond

func (u *uploadSteps) tell(st core.UploadStep) {
	if u.report != nil {
		u.report(st)
	}
}

// follow subscribes to the smoke match's live turns when someone is told
// of them; the channel is nil (never ready) otherwise.
func (u *uploadSteps) follow(live *liveHub, match int64) (<-chan []byte, func()) {
	if u.report == nil || live == nil {
		return nil, func() {}
	}
	ch := make(chan []byte, stepTurnBuffer)
	_, stop := live.subscribe(match, func(batch [][]byte) {
		for _, data := range batch {
			select {
			case ch <- data:
			default: // a late answer or a count is lost, never the hub's time
				return
			}
		}
	})
	return ch, stop
}

// drain tells the turns that arrived before the verdict.
func (u *uploadSteps) drain(ch <-chan []byte) {
	for {
		select {
		case t := <-ch:
			u.turn(t)
		default:
			if u.last > 0 {
				u.tell(core.UploadStep{Stage: "progress", Turn: u.last})
			}
			return
		}
	}
}

// turn tells one live turn of the smoke match: the uploaded bot plays seat 0.
func (u *uploadSteps) turn(data []byte) {
	var t replay.Turn
	if json.Unmarshal(data, &t) != nil || t.Turn <= 0 {
		return
	}
	if !u.running {
		u.running = true
		u.tell(core.UploadStep{Stage: "running", Turn: t.Turn, Message: "a worker is playing the smoke match"})
	} else if t.Turn <= u.last {
		u.answers = 0
		u.tell(core.UploadStep{Stage: "restarted", Turn: t.Turn, Message: "the smoke match started again on another worker"})
	}
	u.last = t.Turn
	for _, seat := range t.Seats {
		if seat.Seat != 0 {
			continue
		}
		if u.answers < core.MaxStepAnswers {
			u.answers++
			u.tell(answerStep(t.Turn, seat))
			return
		}
	}
	if now := time.Now(); now.Sub(u.progress) >= stepProgressEvery {
		u.progress = now
		u.tell(core.UploadStep{Stage: "progress", Turn: t.Turn})
	}
}

// answerStep is the bot's answer of one turn as a step: its status, fuel
// and reason, and its answer line cut to core.MaxStepAnswer bytes (on a
// character's boundary).
func answerStep(turn int, seat replay.Seat) core.UploadStep {
	st := core.UploadStep{Stage: "answer", Turn: turn, Status: string(seat.Status), Fuel: seat.Fuel, Reason: cutText(seat.Reason, core.MaxStepAnswer)}
	switch {
	case seat.AnswerBase64 != "":
		n := base64.StdEncoding.DecodedLen(len(seat.AnswerBase64))
		if raw, err := base64.StdEncoding.DecodeString(seat.AnswerBase64); err == nil {
			n = len(raw)
		}
		st.AnswerLen = max(seat.AnswerLen, n)
		st.Message = fmt.Sprintf("the answer is not UTF-8 text (%d bytes)", st.AnswerLen)
	default:
		st.Answer = cutText(seat.Answer, core.MaxStepAnswer)
		// AnswerLen is set when only a prefix was kept (replay.Seat).
		if full := max(len(seat.Answer), seat.AnswerLen); len(st.Answer) < full {
			st.AnswerLen = full
		}
	}
	return st
}

// cutText cuts s to at most n bytes without splitting a character, and
// makes it valid UTF-8.
func cutText(s string, n int) string {
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
