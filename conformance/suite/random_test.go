package suite

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/conformance/upstream"
	"github.com/deploysync/deploysync/internal/testing/randstate"
)

// The number of random states: 20,000 by default (CI), 1,000,000 with
// DEPLOYSYNC_LONG=1, or DEPLOYSYNC_STATES=n.
func randomStates() int {
	if v, err := strconv.Atoi(os.Getenv("DEPLOYSYNC_STATES")); err == nil && v > 0 {
		return v
	}
	if os.Getenv("DEPLOYSYNC_LONG") != "" {
		return 1_000_000
	}
	return 20_000
}

// ciStates is the size of a CI run, from which on every cell the scenarios
// reach must be reached.
const ciStates = 20_000

// rapidSource lets rapid make the generator's choices, so a failing state
// shrinks to a small one.
type rapidSource struct {
	t *rapid.T
	i int
}

func (s *rapidSource) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	s.i++
	return rapid.IntRange(0, n-1).Draw(s.t, "c"+strconv.Itoa(s.i))
}

// randomCounts are the tallies of a run.
type randomCounts struct {
	accepted, refused  int // by upstream's validation
	refusedBoth        int // refused by validation and by Sync: counted, not compared
	syncAcceptsInvalid int // refused by validation, accepted by Sync: compared
	compared           int
	lagging            int            // also compared with a lagging cache (a collision on a ReplicaSet this sync released)
	why, whyBoth       map[string]int // validation's first refusal, by field: of the states Sync accepts, refuses
}

// refusal names the field of validation's first error, without indices.
func refusal(errs field.ErrorList) string {
	if len(errs) == 0 {
		return "none"
	}
	return indices.ReplaceAllString(errs[0].Field, "") + ": " + string(errs[0].Type)
}

var indices = regexp.MustCompile(`\[[^]]*\]`)

// TestRandomStates compares the two sides on generated states, one sync
// each. Every state is first classified by upstream's own validation
// (upstream.Accepts):
//
//   - validation accepts, Sync refuses: a failure — Sync must take every
//     state an apiserver holds;
//   - both refuse: counted, not compared;
//   - Sync accepts: compared with upstream, whatever validation says.
//
// By default Sync decides as upstream on every state, its int32 wrap-arounds
// included, so no state is excluded. The run prints the coverage
// table of the compared syncs and, from the CI size on, fails if it misses a
// cell the scenario suite reaches.
func TestRandomStates(t *testing.T) {
	n := randomStates()
	if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	cnt := randomCounts{why: map[string]int{}, whyBoth: map[string]int{}}
	cov := Coverage{}
	rapid.Check(t, func(rt *rapid.T) {
		c := randstate.Valid(&rapidSource{t: rt})
		valid, verrs := upstream.Accepts(c.State.Deployment, c.State.ReplicaSets, c.State.Pods)
		if _, err := deploysync.Sync(c.State, c.Options()...); err != nil {
			if valid {
				rt.Fatalf("upstream's validation accepts the state, Sync refuses it: %v\ninput:\n%s", err, StateYAML(c.State))
			}
			cnt.refused++
			cnt.refusedBoth++
			cnt.whyBoth[refusal(verrs)]++
			return
		}
		if valid {
			cnt.accepted++
		} else {
			cnt.refused++
			cnt.syncAcceptsInvalid++
			cnt.why[refusal(verrs)]++
		}
		_, plan, out, err := CompareOutcomes("random state", c.State, c.TerminatingReplicas)
		if err != nil {
			rt.Fatal(err)
		}
		cnt.compared++
		cov.Add(Cells(plan, out))
		if collidesWithRelease(plan) {
			_, plan, out, err := CompareLagging("random state", c.State, c.TerminatingReplicas)
			if err != nil {
				rt.Fatal(err)
			}
			cnt.lagging++
			cov.Add(Cells(plan, out))
		}
	})
	want := scenarioCoverage()
	t.Logf("random states: validation accepted %d, refused %d (of which Sync refused %d, Sync accepted %d); compared %d",
		cnt.accepted, cnt.refused, cnt.refusedBoth, cnt.syncAcceptsInvalid, cnt.compared)
	t.Logf("collisions on a ReplicaSet the same sync released, compared again with a lagging cache: %d", cnt.lagging)
	if n >= ciStates && cnt.lagging == 0 {
		t.Error("no random state collided with a ReplicaSet its own sync released: the lagging-cache comparison ran on none")
	}
	t.Logf("validation's refusals (first error) of the states Sync accepts: %v; of those Sync refuses too: %v", cnt.why, cnt.whyBoth)
	t.Logf("coverage (states: compared random states reaching the cell; scenarios: scenarios reaching it):\n%s", cov.Table(want))
	if missing := cov.Missing(want); len(missing) > 0 {
		var lines []string
		for _, x := range missing {
			lines = append(lines, fmt.Sprintf("%s / %s / %s / %s", x.Branch, x.Write, x.Event, x.End))
		}
		msg := fmt.Sprintf("%d cells the scenario suite reaches, no random state reached:\n  %s", len(missing), joinLines(lines))
		if n >= ciStates {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

func joinLines(lines []string) string {
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}

// collidesWithRelease reports whether a plan ends in a hash collision on
// the name of a ReplicaSet it releases: the one decision that depends on
// whether the cache has delivered the sync's own patches
// (deploysync.WithLaggingCache).
func collidesWithRelease(p deploysync.Plan) bool {
	var hc *deploysync.HashCollisionError
	if !errors.As(p.Err, &hc) {
		return false
	}
	for _, a := range p.Actions {
		if r, ok := a.(*action.ReleaseReplicaSet); ok && r.Name == hc.Name {
			return true
		}
	}
	return false
}
