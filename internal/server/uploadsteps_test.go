package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// streamEvent is one server-sent event of a streamed upload.
type streamEvent struct {
	Name string
	Data json.RawMessage
}

// streamUpload uploads module as the named Dots and Boxes bot asking for
// the check as events, and returns the answer's status, content type and
// every event, in order.
func streamUpload(t *testing.T, base, tok, name string, module []byte) (int, string, []streamEvent) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/api/v1/games/dots-and-boxes/bots/"+name, bytes.NewReader(module))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/wasm")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		return resp.StatusCode, resp.Header.Get("Content-Type"), nil
	}
	var events []streamEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur streamEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			cur.Data = json.RawMessage(line[len("data: "):])
		case line == "":
			if cur.Name != "" {
				events = append(events, cur)
			}
			cur = streamEvent{}
		case strings.HasPrefix(line, ":"):
		default:
			t.Fatalf("a line outside the event-stream format: %q", line)
		}
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), events
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A streamed upload tells the check's steps in order as they happen, the
// bot's first answers with their status and fuel, then the verdict a plain
// upload answers; a hostile bot's answers arrive cut and encoded, and its
// refusal says why. A plain upload of the same server still answers JSON.
func TestUploadStreamsItsCheck(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "streamer")

	status, ctype, events := streamUpload(t, r.URL, tok, "kit", starterKit(t))
	if status != 200 || ctype != "text/event-stream" {
		t.Fatalf("streamed upload: %d %q", status, ctype)
	}
	var order []string
	var answers []core.UploadStep
	for _, ev := range events {
		if len(order) == 0 || order[len(order)-1] != ev.Name {
			order = append(order, ev.Name)
		}
		if ev.Name == "answer" {
			var st core.UploadStep
			if err := json.Unmarshal(ev.Data, &st); err != nil {
				t.Fatalf("answer %s: %v", ev.Data, err)
			}
			answers = append(answers, st)
		}
	}
	got := strings.Join(order, " ")
	if !strings.HasPrefix(got, "compiling compiled smoke running answer") || !strings.HasSuffix(got, "verdict") {
		t.Fatalf("the steps: %s", got)
	}
	if len(answers) == 0 || len(answers) > core.MaxStepAnswers {
		t.Fatalf("%d answers told; want 1 to %d", len(answers), core.MaxStepAnswers)
	}
	oks := 0
	for i, a := range answers {
		// Dots and Boxes asks both seats every turn and applies the mover's
		// answer only: the other's is ignored.
		if a.Status != "ok" && a.Status != "ignored" || a.Fuel <= 0 || a.Answer == "" || (i > 0 && a.Turn <= answers[i-1].Turn) {
			t.Fatalf("answer %d: %+v", i, a)
		}
		if a.Status == "ok" {
			oks++
		}
	}
	if oks == 0 {
		t.Fatalf("no ok answer among %+v", answers)
	}
	var v struct {
		Status  int
		Version struct{ State, Message string }
	}
	if err := json.Unmarshal(events[len(events)-1].Data, &v); err != nil || v.Status != 201 || v.Version.State != "active" || !strings.HasPrefix(v.Version.Message, "accepted") {
		t.Fatalf("the verdict: %s (%v)", events[len(events)-1].Data, err)
	}

	// The hostile bot: markup and event-stream text for every answer.
	hostile := readFile(t, wasmtest.GoBuild(t, "testdata/hostile", ""))
	_, _, events = streamUpload(t, r.URL, tok, "hostile", hostile)
	var told, malformed int
	for _, ev := range events {
		if ev.Name != "answer" {
			continue
		}
		told++
		var st core.UploadStep
		if err := json.Unmarshal(ev.Data, &st); err != nil {
			t.Fatal(err)
		}
		if st.Status == "retired" && told > 1 {
			continue // too many failed answers: the rest of its turns
		}
		if st.Status == "malformed" {
			malformed++
		}
		if st.Status != "malformed" && st.Status != "ignored" || len(st.Answer) != core.MaxStepAnswer || st.AnswerLen <= core.MaxStepAnswer || !strings.HasPrefix(st.Answer, "<img src=x") {
			t.Fatalf("the hostile answer as told: %+v", st)
		}
	}
	last := events[len(events)-1]
	if malformed == 0 || last.Name != "verdict" || !strings.Contains(string(last.Data), `"status":422`) || !strings.Contains(string(last.Data), "Malformed answers") {
		t.Fatalf("%d answers; the hostile bot's verdict: %s %s", told, last.Name, last.Data)
	}

	// Refused before the smoke match: the sandbox's refusal is the verdict.
	_, _, events = streamUpload(t, r.URL, tok, "notwasm", []byte("\x00asm\x01\x00\x00\x00\xff"))
	if len(events) != 2 || events[0].Name != "compiling" || events[1].Name != "verdict" || !strings.Contains(string(events[1].Data), `"status":422`) || !strings.Contains(string(events[1].Data), "the module is refused") {
		t.Fatalf("a module the sandbox refuses: %+v", events)
	}

	// Refused before the stream starts: a plain JSON error with its status.
	status, ctype, _ = streamUpload(t, r.URL, "", "kit", starterKit(t))
	if status != 401 || !strings.HasPrefix(ctype, "application/json") {
		t.Fatalf("an upload without a token: %d %q", status, ctype)
	}
	// And the plain upload is as it was.
	var out struct{ Note string }
	if st := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/kit", tok, bytes.NewReader(starterKit(t)), "application/wasm", &out); st != 200 || !strings.HasPrefix(out.Note, "unchanged") {
		t.Fatalf("a plain upload of the same module: %d %+v", st, out)
	}
}
