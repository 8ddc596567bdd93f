package server

import "testing"

func TestServingProcs(t *testing.T) {
	for _, c := range []struct {
		name                  string
		current, workers, out int
		explicit              bool
	}{
		{"one worker per core gets a spare P", 2, 2, 3, false},
		{"many cores", 16, 16, 17, false},
		{"more workers than cores", 2, 4, 5, false},
		{"fewer workers than cores: a P is free already", 4, 2, 4, false},
		{"one worker on two cores: a P is free already", 2, 1, 2, false},
		{"no in-process workers", 2, 0, 2, false},
		{"GOMAXPROCS set by the user", 2, 2, 2, true},
	} {
		if got := servingProcs(c.current, c.workers, c.explicit); got != c.out {
			t.Errorf("%s: servingProcs(%d, %d, %v) = %d, want %d", c.name, c.current, c.workers, c.explicit, got, c.out)
		}
	}
}
