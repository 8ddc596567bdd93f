package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatabaseURLSources runs serve and backup with the database URL from
// the environment and from a file, as an operator keeps a password out of
// ps: the URL is read from there, and no message ever shows the password.
func TestDatabaseURLSources(t *testing.T) {
	const secret = "s3cret-pass"
	bad := "mysql://arena:" + secret + "@db.example/arena" // a scheme no store takes: the refusal quotes the URL
	file := filepath.Join(t.TempDir(), "db-url")
	if err := os.WriteFile(file, []byte(bad+"\n# comment lines after the first are ignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"serve, ARENA_DB", []string{"ARENA_DB=" + bad}, []string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, "want postgres://"},
		{"serve, ARENA_DB_FILE", []string{"ARENA_DB_FILE=" + file}, []string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, "want postgres://"},
		{"serve, --db-file", nil, []string{"serve", "--data", data, "--addr", "127.0.0.1:0", "--db-file", file}, "want postgres://"},
		{"serve, both", []string{"ARENA_DB=" + bad}, []string{"serve", "--data", data, "--db-file", file}, "both set"},
		{"backup, ARENA_DB_FILE", []string{"ARENA_DB_FILE=" + file}, []string{"backup", "--out", filepath.Join(t.TempDir(), "b.db")}, "want postgres://"},
		{"serve, empty file", nil, []string{"serve", "--data", data, "--db-file", os.DevNull}, "first line is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, kv := range c.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			_, errOut, code := arena(t, c.args...)
			if code == 0 || !strings.Contains(errOut, c.want) {
				t.Fatalf("arena %v: exit %d, stderr %q; want a refusal saying %q", c.args, code, errOut, c.want)
			}
			if strings.Contains(errOut, secret) {
				t.Fatalf("the password is in the message: %q", errOut)
			}
		})
	}
}
