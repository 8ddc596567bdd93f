package game

import (
	"slices"
	"testing"
)

// TestRatedPlayers: the ladder plays a game's LadderPlayers when it names
// them, else every player count it allows.
func TestRatedPlayers(t *testing.T) {
	if got := (Info{Players: []int{2, 4}}).RatedPlayers(); !slices.Equal(got, []int{2, 4}) {
		t.Errorf("without LadderPlayers: %v, want [2 4]", got)
	}
	if got := (Info{Players: []int{2, 3, 4, 5}, LadderPlayers: []int{2, 4}}).RatedPlayers(); !slices.Equal(got, []int{2, 4}) {
		t.Errorf("with LadderPlayers [2 4]: %v", got)
	}
}

// TestPlayerCounts: the counts a game allows, as a sentence says them; a
// run of three or more in a row by its ends.
func TestPlayerCounts(t *testing.T) {
	for _, c := range []struct {
		players []int
		want    string
	}{
		{nil, ""},
		{[]int{2}, "2"},
		{[]int{2, 3}, "2 or 3"},
		{[]int{2, 4}, "2 or 4"},
		{[]int{2, 3, 4}, "2 to 4"},
		{[]int{2, 3, 4, 5, 6, 7, 8}, "2 to 8"},
		{[]int{2, 3, 4, 6}, "2 to 4 or 6"},
		{[]int{1, 3, 4, 5, 7, 8}, "1, 3 to 5, 7 or 8"},
	} {
		if got := (Info{Players: c.players}).PlayerCounts(); got != c.want {
			t.Errorf("%v: %q, want %q", c.players, got, c.want)
		}
	}
}
