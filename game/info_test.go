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
