package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// databaseURL picks the database URL of serve and backup: --db (or
// $ARENA_DB), or the first line of --db-file (or $ARENA_DB_FILE), so that a
// Postgres password need not stand on the command line, where ps and the
// shell's history show it. The URL itself is never echoed.
func databaseURL(db, file string) (string, error) {
	if file == "" {
		return db, nil
	}
	if db != "" {
		return "", errors.New("--db (or ARENA_DB) and --db-file (or ARENA_DB_FILE) are both set: give one")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--db-file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	url := strings.TrimSpace(line)
	if url == "" {
		return "", fmt.Errorf("--db-file %s: the first line is empty: want the database URL", file)
	}
	return url, nil
}
