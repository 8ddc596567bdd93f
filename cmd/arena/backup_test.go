package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/store"
)

// TestBackupCommand runs arena backup as a user does: a copy of a data
// directory's database that opens with its accounts, and a clear refusal
// for a missing database, an existing backup file and a Postgres URL.
func TestBackupCommand(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	s, err := store.Open(ctx, "", data, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAccount(ctx, "alice", "hash"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "backup.db")
	if _, errOut, code := arena(t, "backup", "--data", data, "--out", out); code != 0 {
		t.Fatalf("arena backup: exit %d: %s", code, errOut)
	}
	s.Close()
	restored := t.TempDir()
	copy, err := store.Open(ctx, "sqlite:"+out, restored, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer copy.Close()
	if a, err := copy.AccountByHandle(ctx, "alice"); err != nil || a.PasswordHash != "hash" {
		t.Fatalf("the backup lacks @alice: %+v %v", a, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"backup", "--data", data, "--out", out}, "exists"},
		{[]string{"backup", "--data", t.TempDir(), "--out", filepath.Join(t.TempDir(), "b.db")}, "no database"},
		{[]string{"backup", "--db", "postgres://u@h/db", "--out", filepath.Join(t.TempDir(), "b.db")}, "pg_dump"},
	} {
		_, errOut, code := arena(t, c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("arena %v: exit %d, stderr %q; want a refusal saying %q", c.args, code, errOut, c.want)
		}
	}
}
