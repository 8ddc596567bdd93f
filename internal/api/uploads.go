package api

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
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
	out, status, err := a.c.Upload(r.Context(), c, game, name, wasm)
	if err != nil {
		return err
	}
	writeJSON(w, status, out)
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
