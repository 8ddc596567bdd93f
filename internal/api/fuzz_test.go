package api

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/arenabots/arena/internal/core"
)

func FuzzReadModule(f *testing.F) {
	f.Add("application/wasm", []byte("\x00asm\x01\x00\x00\x00"))
	f.Add("multipart/form-data; boundary=zz", []byte("--zz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.wasm\"\r\n\r\n\x00asm\x01\x00\x00\x00\r\n--zz\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nc_1\r\n--zz--\r\n"))
	f.Add("text/plain", []byte("hello"))
	f.Add("multipart/form-data", []byte("--\r\n"))
	f.Fuzz(func(t *testing.T, ctype string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/games/g/bots/b", bytes.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		wasm, csrf, err := readModule(r)
		if err != nil {
			// A refusal the uploader can act on: a 4xx with a message.
			var e *core.Error
			if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 || e.Msg == "" {
				t.Fatalf("error %v (%T) is not a refusal", err, err)
			}
			return
		}
		if !bytes.HasPrefix(wasm, []byte("\x00asm")) || len(wasm) > MaxUpload || len(csrf) > 256 {
			t.Fatalf("accepted %d bytes, csrf %q", len(wasm), csrf)
		}
	})
}
