package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/server"
)

// An operator named with --admin must have an account when the server
// starts: a handle named before it is signed up would go to whoever signs
// it up first. The house account is no operator.
func TestAdminsMustExist(t *testing.T) {
	for _, tc := range []struct{ handle, want string }{
		{"nobody", "no such account"},
		{"house", "cannot log in"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := server.New(ctx, server.Options{DataDir: t.TempDir(), Workers: 1, NoMatchmaker: true, Admins: []string{tc.handle}})
		cancel()
		if err == nil {
			t.Fatalf("--admin %s: the server started", tc.handle)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--admin %s: %v; want it to say %q", tc.handle, err, tc.want)
		}
	}
}
