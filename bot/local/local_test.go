package local_test

import (
	"context"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/games/dotsandboxes"
)

// The command line's opener opens what its spec names and says why it
// cannot open a seat no machine can play from a spec.
func TestOpenerKinds(t *testing.T) {
	m := bot.Match{Game: dotsandboxes.Game{}}
	for _, c := range []struct {
		spec spec.Spec
		want string // what the error says; "" for a bot that opens
	}{
		{spec.Spec{Kind: spec.Builtin, Name: "greedy"}, ""},
		{spec.Spec{Kind: spec.Human, Name: "you"}, "played on the site"},
		{spec.Spec{Kind: spec.Wasm, SHA256: strings.Repeat("0", 64)}, "give its file's path"},
		{spec.Spec{Kind: spec.Builtin, Name: "nobody"}, `no house bot "nobody"`},
		{spec.Spec{Kind: spec.Potm, Path: "/bin/true"}, "lines-and-boxes only"},
		{spec.Spec{}, "no bot of kind kind(0)"},
	} {
		b, err := local.Opener{}.Open(context.Background(), c.spec, m)
		if b != nil {
			b.Close()
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.spec, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%#v: %v, want an error saying %q", c.spec, err, c.want)
		}
	}
}
