package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/arenabots/arena/internal/core"
)

// MaxUpload is the most bytes of a module.
const MaxUpload = core.MaxUpload

func (a *API) upload(w http.ResponseWriter, r *http.Request) error {
	g, err := a.c.LookupGame(r.PathValue("game"))
	if err != nil {
		return err
	}
	game, name := g.Info().ID, r.PathValue("name")
	if err := core.CheckBotName(name); err != nil {
		return err
	}
	// Authenticate before reading 32 MiB; CSRF of a form comes with the body.
	who, ok, err := a.c.Who(r)
	if err != nil {
		return err
	} else if !ok {
		return core.ErrLogIn
	}
	if !a.uploads.Allow(a.clientIP(r)) {
		return Errorf(http.StatusTooManyRequests, "too many uploads from your address; wait a minute")
	}
	if err := a.c.CheckUpload(r.Context(), who, game, name); err != nil {
		return err
	}
	wasm, formCSRF, err := readModule(r)
	// The response's write deadline runs from now, not from the request's
	// start: 32 MiB over a slow line take minutes to arrive.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(core.UploadWriteWait))
	if err != nil {
		return err
	}
	c, err := a.mustAuth(r, formCSRF)
	if err != nil {
		return err
	}
	if wantsStream(r) {
		return a.streamUpload(w, r, c, game, name, wasm)
	}
	out, status, err := a.c.Upload(r.Context(), c, game, name, wasm, nil)
	if err != nil {
		return err
	}
	writeJSON(w, status, out)
	return nil
}

// wantsStream says whether an upload asks for its check as server-sent
// events (Accept: text/event-stream) rather than one JSON answer.
func wantsStream(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/event-stream" {
			return true
		}
	}
	return false
}

// uploadVerdict is a streamed upload's last event: the answer's status
// and the body a plain upload answers with it.
type uploadVerdict struct {
	Status int `json:"status"`
	core.UploadJSON
}

// streamKeepAlive is how often a quiet upload stream (a compile, a smoke
// match waiting for a worker) gets a comment line, so that a proxy does not
// take it for a dead connection.
const streamKeepAlive = 15 * time.Second

// streamUpload runs an authenticated upload whose module has arrived,
// answering 200 with its check as server-sent events: a step event as each
// happens (core.UploadStep: compiling, compiled, smoke, running,
// restarted, answer, progress), then `verdict`, the status and body a
// plain upload answers. The stream is the upload's own request, held to
// its limits and to the write deadline set when the module arrived; the
// bot's answers in it are cut (core.MaxStepAnswers, core.MaxStepAnswer)
// and JSON-encoded, so no answer can end an event or start another.
func (a *API) streamUpload(w http.ResponseWriter, r *http.Request, c core.Caller, game, name string, wasm []byte) error {
	flusher, ok := w.(http.Flusher)
	if !ok {
		return Errorf(http.StatusNotImplemented, "streaming is not supported here")
	}
	start := time.Now()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var mu sync.Mutex
	send := func(event string, v any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, mustJSON(v))
		flusher.Flush()
	}
	quiet := make(chan struct{})
	defer close(quiet)
	go func() {
		ping := time.NewTicker(streamKeepAlive)
		defer ping.Stop()
		for {
			select {
			case <-quiet:
				return
			case <-ping.C:
				mu.Lock()
				io.WriteString(w, ": checking\n\n")
				flusher.Flush()
				mu.Unlock()
			}
		}
	}()
	out, status, err := a.c.Upload(r.Context(), c, game, name, wasm, func(st core.UploadStep) { send(st.Stage, st) })
	if err != nil {
		e := a.refusal(r, err, start)
		if e == nil {
			return nil // the uploader went away
		}
		out, status = core.UploadJSON{Error: e.Msg}, e.Status
	}
	send("verdict", uploadVerdict{Status: status, UploadJSON: out})
	return nil
}

// readModule reads an upload: the raw module as the body (application/wasm
// or application/octet-stream), or a multipart form with the module in the
// field "file" (and the CSRF token in "csrf").
func readModule(r *http.Request) (wasm []byte, formCSRF string, err error) {
	body := http.MaxBytesReader(nil, r.Body, MaxUpload+64<<10)
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/wasm", "application/octet-stream", "":
		wasm, err = io.ReadAll(io.LimitReader(body, MaxUpload+1))
	case "multipart/form-data":
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, perr := mr.NextPart()
			if perr == io.EOF {
				break
			}
			if perr != nil {
				var mbe *http.MaxBytesError
				if errors.As(perr, &mbe) {
					return nil, "", perr
				}
				return nil, "", Errorf(http.StatusBadRequest, "bad multipart body")
			}
			switch part.FormName() {
			case csrfField:
				b, _ := io.ReadAll(io.LimitReader(part, 256))
				formCSRF = string(b)
			case "file":
				wasm, err = io.ReadAll(io.LimitReader(part, MaxUpload+1))
			}
			part.Close()
			if err != nil {
				break
			}
		}
	default:
		return nil, "", Errorf(http.StatusUnsupportedMediaType, "send the module as application/wasm, or as the field \"file\" of a multipart form")
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", err
		}
		// A body cut short inside a part, or a broken read: the client's fault.
		return nil, "", Errorf(http.StatusBadRequest, "the upload's body ended early or could not be read")
	}
	if len(wasm) > MaxUpload {
		return nil, "", Errorf(http.StatusRequestEntityTooLarge, "the module is larger than %d bytes", MaxUpload)
	}
	if len(wasm) == 0 {
		return nil, "", Errorf(http.StatusBadRequest, "no module in the request")
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return nil, "", Errorf(http.StatusUnprocessableEntity, "not a WebAssembly module: a module starts with the bytes \\0asm (build for wasip1/wasm32-wasi, see the starter kits)")
	}
	return wasm, formCSRF, nil
}
