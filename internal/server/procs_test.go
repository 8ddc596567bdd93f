package server

import "testing"

func TestServingProcs(t *testing.T) {
	for _, c := range []struct {
		name                  string
		current, workers, out int
		explicit              bool
	}{
		{"one worker per core: as many Ps again", 2, 2, 4, false},
		{"many cores", 16, 16, 32, false},
		{"more workers than cores", 2, 4, 6, false},
		{"fewer workers than cores", 4, 2, 6, false},
		{"one worker on two cores", 2, 1, 3, false},
		{"no in-process workers", 2, 0, 2, false},
		{"GOMAXPROCS set by the user", 2, 2, 2, true},
	} {
		if got := servingProcs(c.current, c.workers, c.explicit); got != c.out {
			t.Errorf("%s: servingProcs(%d, %d, %v) = %d, want %d", c.name, c.current, c.workers, c.explicit, got, c.out)
		}
	}
}
