package web

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
)

// TestPlayOffersLevels: the Play page offers every game's levelled house
// bots as difficulties, weakest first as the game lists them, Easy picked,
// and the other house bots after them.
func TestPlayOffersLevels(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	levelRE := regexp.MustCompile(`value="([^"]+)"( checked)?>\s*<span><b>(Beginner|Easy|Medium|Hard)</b>`)
	for _, g := range games.All() {
		var want []string
		for _, hb := range g.HouseBots() {
			if hb.Level != "" {
				want = append(want, hb.Level+"="+hb.Name)
			}
		}
		if len(want) < 3 {
			t.Errorf("%s: %d difficulty levels; want at least 3", g.Info().ID, len(want))
		}
		resp, err := http.Get(srv.URL + "/play/" + g.Info().ID)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got []string
		checked := ""
		for _, m := range levelRE.FindAllStringSubmatch(string(body), -1) {
			got = append(got, m[3]+"="+m[1])
			if m[2] != "" {
				checked = m[3]
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") || checked != "Easy" {
			t.Errorf("%s: levels %v (checked %q), want %v with Easy checked", g.Info().ID, got, checked, want)
		}
		if !strings.Contains(string(body), "Other house bots") {
			t.Errorf("%s: the other house bots are not offered", g.Info().ID)
		}
	}
}
