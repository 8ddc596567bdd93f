package game

import (
	"fmt"
	"strconv"
)

// IntParam declares one integer parameter of a game whose settings are a
// struct S: its name, what it means, its bounds, and where it lives in S.
// A game lists them once; IntParams then documents, reads, checks and
// writes them all, so no game repeats that code.
type IntParam[S any] struct {
	Name     string
	Doc      string
	Min, Max int
	Odd      bool // the value must be odd (a board with a centre cell)
	// Label, when set, offers the parameter on the site's Play page
	// (ParamInfo.Label).
	Label string
	Field func(*S) *int
}

// IntParams is a game's list of integer parameters.
type IntParams[S any] []IntParam[S]

// Info documents every parameter with its value in def as the default,
// and its bounds.
func (ps IntParams[S]) Info(def S) []ParamInfo {
	out := make([]ParamInfo, 0, len(ps))
	for _, p := range ps {
		out = append(out, ParamInfo{Name: p.Name, Default: strconv.Itoa(*p.Field(&def)), Doc: p.Doc,
			Int: true, Min: p.Min, Max: p.Max, Odd: p.Odd, Label: p.Label})
	}
	return out
}

// Read sets into's fields from params, keeping into's value for a
// parameter that is absent (or given as an empty string), and fails on an
// unknown name, a value that is not an integer, or one out of bounds.
func (ps IntParams[S]) Read(params Params, into *S) error {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	if err := params.CheckKnown(names...); err != nil {
		return err
	}
	for _, p := range ps {
		f := p.Field(into)
		if params[p.Name] == "" {
			continue
		}
		v, err := params.Int(p.Name, *f)
		if err != nil {
			return err
		}
		if v < p.Min || v > p.Max || (p.Odd && v%2 == 0) {
			odd := ""
			if p.Odd {
				odd = "odd and "
			}
			return fmt.Errorf("parameter %s=%d: must be %sin %d..%d", p.Name, v, odd, p.Min, p.Max)
		}
		*f = v
	}
	return nil
}

// Params writes every parameter of s by name.
func (ps IntParams[S]) Params(s S) Params {
	out := make(Params, len(ps))
	for _, p := range ps {
		out[p.Name] = strconv.Itoa(*p.Field(&s))
	}
	return out
}
