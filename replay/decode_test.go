package replay_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// sameAsEncodingJSON fails unless decodeFast gives up on data or returns
// exactly what encoding/json does (and encoding/json accepts it).
func sameAsEncodingJSON(t *testing.T, data []byte) (fast bool) {
	t.Helper()
	got, ok := replay.DecodeFast(data)
	want, err := replay.DecodeJSON(data)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("the fast decoder accepts what encoding/json refuses (%v):\n%.2000s", err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the fast decoder and encoding/json differ:\n%+v\n%+v\non\n%.2000s", got, want, data)
	}
	return true
}

// houseReplays are one match of each game between its first house bot,
// at its fewest players, and the hostile match (every kind of answer
// bytes, long and cut answers, failures, logs), encoded as the runner
// writes them.
var houseReplays = sync.OnceValues(func() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, g := range games.All() {
		info := g.Info()
		house := g.HouseBots()[0].Name
		open := func(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
			b, err := bot.OpenBuiltin(house, m)
			return b, bot.Identity{Spec: "builtin:" + house, Name: "@house/" + house}, err
		}
		r, err := match.Runner{}.Play(context.Background(), g, game.Config{Seed: 5, Players: info.Players[0]}, open)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", info.ID, err)
		}
		if out[info.ID], err = r.Marshal(); err != nil {
			return nil, err
		}
	}
	var err error
	out["hostile"], err = hostileBytes()
	return out, err
})

// Every replay the runner writes takes the fast path, and gives what
// encoding/json gives.
func TestDecodeFastTakesTheRunnersReplays(t *testing.T) {
	replays, err := houseReplays()
	if err != nil {
		t.Fatal(err)
	}
	if len(replays) < 5 {
		t.Fatalf("%d replays", len(replays))
	}
	for name, data := range replays {
		if !sameAsEncodingJSON(t, data) {
			t.Errorf("%s: the fast decoder gave up on a replay the runner wrote", name)
		}
	}
	// Version 1, as an older runner wrote it.
	v1, err := os.ReadFile("testdata/v1-dots-and-boxes.replay.json")
	if err != nil {
		t.Fatal(err)
	}
	if !sameAsEncodingJSON(t, v1) {
		t.Error("the fast decoder gave up on the version 1 replay")
	}
}

// decodeCases are JSON close to a replay where encoding/json's answer is
// easy to get wrong: each either decodes the same both ways or makes the
// fast decoder give up.
var decodeCases = []string{
	`{}`, `null`, ` {} `, `{}x`, `{} {}`, `{`, `[]`, `{"format":1}`,
	`{"format":"arena-replay","version":2,"params":null,"bots":null,"turns":null,"logs":null,"result":null}`,
	`{"params":{},"bots":[],"turns":[],"logs":[],"result":{"scores":[],"placement":[],"statuses":[]}}`,
	`{"params":{"a":"1","a":"2","b":null},"result":{"statuses":[{},null,{"ok":1,"ok":2}]}}`,
	`{"turns":[null,{"seats":[null,{}]}],"logs":[null],"bots":[null]}`,
	`{"game":"a","game":"b"}`, `{"Game":"a"}`, `{"GAME":"a"}`, `{"ga\u006de":"a"}`, `{"gamE":"a","game":"b"}`,
	`{"extra":1}`, `{"turns":[{"seats":[{"extra":1}]}]}`,
	`{"seed":18446744073709551615}`, `{"seed":18446744073709551616}`, `{"seed":9999999999999999999}`, `{"seed":-0}`, `{"seed":-1}`,
	`{"version":-0}`, `{"version":01}`, `{"version":1.0}`, `{"version":1e0}`, `{"version":"2"}`, `{"version":true}`,
	`{"version":9223372036854775807}`, `{"version":-9223372036854775808}`, `{"version":9223372036854775808}`, `{"version":-}`,
	`{"turns":[{"seats":[{"fuel":123456789012345678}]}]}`,
	`{"turns":[{"seats":[{"failed":true,"cut":false}]}]}`, `{"turns":[{"seats":[{"failed":1}]}]}`, `{"turns":[{"seats":[{"failed":tru}]}]}`,
	`{"turns":[{"seats":[{"action":null}]}]}`, `{"turns":[{"seats":[{"action":  [1, {"a" : "b\u00e9"}, -0.5e+3, true, false, null] }]}]}`,
	`{"turns":[{"seats":[{"action":{"a":1,}}]}]}`, `{"turns":[{"seats":[{"action":[1,]}]}]}`, `{"turns":[{"seats":[{"action":01}]}]}`,
	`{"turns":[{"seats":[{"action":"\ud800"}]}]}`, `{"turns":[{"seats":[{"action":"\x"}]}]}`, `{"turns":[{"seats":[{"action":1.}]}]}`,
	`{"turns":[{"seats":[{"action":"` + "\xff" + `"}]}]}`, `{"turns":[{"seats":[{"action":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}]}]}`,
	`{"turns":[{"seats":[{"answer":"\"\\\/\b\f\n\r\t\u0000\u00e9\u20AC"}]}]}`,
	`{"turns":[{"seats":[{"answer":"\ud83d\ude00"}]}]}`, `{"turns":[{"seats":[{"answer":"\ud83d"}]}]}`, `{"turns":[{"seats":[{"answer":"\u12"}]}]}`,
	`{"turns":[{"seats":[{"answer":"` + "\xff" + `"}]}]}`, `{"turns":[{"seats":[{"answer":"a\"` + "\xc3" + `"}]}]}`,
	`{"turns":[{"seats":[{"answer":"` + "é\xef\xbf\xbd" + `"}]}]}`, `{"turns":[{"seats":[{"answer":"` + "\x01" + `"}]}]}`,
	`{"turns":[{"seats":[{"answer":"` + "\xed\xa0\x80" + `"}]}]}`, `{"logs":[{"seat":0,"text":"a\nb"}]}`,
	"{\"format\"\t:\r\n\"arena-replay\" , \"version\" : 2 }",
}

func TestDecodeFastAgreesWithEncodingJSON(t *testing.T) {
	fast := 0
	for _, c := range decodeCases {
		if sameAsEncodingJSON(t, []byte(c)) {
			fast++
		}
	}
	// The cases are mostly ones to give up on; still, the plain ones
	// must be taken, or the comparison proves nothing.
	if fast < 10 {
		t.Fatalf("the fast decoder took %d of the %d cases", fast, len(decodeCases))
	}
}

// FuzzDecodeFastIsEncodingJSON: on any input, the fast decoder gives up
// or returns what encoding/json returns, which then accepts the input.
func FuzzDecodeFastIsEncodingJSON(f *testing.F) {
	replays, err := houseReplays()
	if err != nil {
		f.Fatal(err)
	}
	for _, data := range replays {
		if len(data) <= 256<<10 { // the hostile match's 1 MiB answer would slow every mutation
			f.Add(data)
		}
	}
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsEncodingJSON(t, data)
	})
}
