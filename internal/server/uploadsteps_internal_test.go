package server

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/replay"
)

// An answer as a streamed upload tells it: cut on a character's boundary
// to core.MaxStepAnswer bytes with its whole length, valid UTF-8 whatever
// the bot sent, and a non-UTF-8 answer said to be one, not shown.
func TestAnswerStep(t *testing.T) {
	long := strings.Repeat("é", core.MaxStepAnswer) // 2 bytes each
	for _, tc := range []struct {
		name      string
		seat      replay.Seat
		answer    string
		fullLen   int
		hasNotice bool
	}{
		{"short", replay.Seat{Answer: `{"r":0}`, Status: "ok", Fuel: 7}, `{"r":0}`, 0, false},
		{"cut on a character", replay.Seat{Answer: long[:core.MaxStepAnswer+1]}, long[:core.MaxStepAnswer], core.MaxStepAnswer + 1, false},
		{"a kept prefix", replay.Seat{Answer: "abc", AnswerLen: 9000}, "abc", 9000, false},
		{"not UTF-8", replay.Seat{AnswerBase64: "/w=="}, "", 1, true},
	} {
		st := answerStep(3, tc.seat)
		if st.Stage != "answer" || st.Turn != 3 || st.Answer != tc.answer || st.AnswerLen != tc.fullLen || (st.Message != "") != tc.hasNotice {
			t.Errorf("%s: %+v", tc.name, st)
		}
		if st.Status != string(tc.seat.Status) || st.Fuel != tc.seat.Fuel {
			t.Errorf("%s: status and fuel %+v", tc.name, st)
		}
	}
	for _, s := range []string{"\xff\xfeok", "ab\xe2\x82", strings.Repeat("\x80", 500)} {
		if got := cutText(s, core.MaxStepAnswer); !utf8.ValidString(got) {
			t.Errorf("cutText(%q) = %q: not UTF-8", s, got)
		}
	}
}

// The steps of a smoke match's turns: running once, the first answers in
// full, then the count; a turn number going back is a restart.
func TestUploadStepsTurns(t *testing.T) {
	var got []string
	u := &uploadSteps{report: func(st core.UploadStep) { got = append(got, st.Stage) }}
	turn := func(n int) []byte {
		return []byte(`{"turn":` + strconv.Itoa(n) + `,"seats":[{"seat":0,"status":"ok","answer":"{}","fuel":5},{"seat":1,"status":"ignored"}]}`)
	}
	for n := 1; n <= core.MaxStepAnswers+1; n++ {
		u.turn(turn(n))
	}
	u.turn(turn(1))
	u.turn([]byte("not json"))
	want := append(append([]string{"running"}, strings.Fields(strings.Repeat("answer ", core.MaxStepAnswers))...), "progress", "restarted", "answer")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("steps %v; want %v", got, want)
	}
}
