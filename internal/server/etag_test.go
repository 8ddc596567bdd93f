package server_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
)

// A cached list answers 304 to a request naming its ETag, and a new ETag
// once the list changed.
func TestListETag(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	defer r.stop()
	get := func(etag string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", r.URL+"/api/v1/games/dots-and-boxes/leaderboard", nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotModified && len(body) != 0 {
			t.Fatalf("304 with a body of %d bytes", len(body))
		}
		return resp.StatusCode, resp.Header.Get("ETag")
	}
	code, tag := get("")
	if code != 200 || tag == "" {
		t.Fatalf("first GET: %d, ETag %q", code, tag)
	}
	if code, _ := get(tag); code != http.StatusNotModified {
		t.Fatalf("GET with its ETag: %d, want 304", code)
	}
	if code, _ := get(`"other"`); code != 200 {
		t.Fatalf("GET with another ETag: %d, want 200", code)
	}
	// Retiring a house bot changes the leaderboard.
	ctx := context.Background()
	st := r.Srv.Store()
	house, _ := st.AccountByHandle(ctx, "house")
	bot, err := st.BotByName(ctx, house.ID, "dots-and-boxes", "random")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Retire(ctx, bot.ID); err != nil {
		t.Fatal(err)
	}
	if code, newTag := get(tag); code != 200 || newTag == tag {
		t.Fatalf("after a change: %d, ETag %q (was %q)", code, newTag, tag)
	}
}
