package suite

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/conformance/minors/corpus"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/simulate"
)

// liveEnv reads a positive integer from the environment, or def.
func liveEnv(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// liveMaxWorldPods bounds the trajectory worlds of the live run, as the
// recorder bounds its own: each sync's state crosses a pipe as JSON.
const liveMaxWorldPods = 300

// TestLiveMinors runs every minor's real upstream live beside the library,
// on states drawn afresh rather than recorded: with DEPLOYSYNC_LIVE_ALL=1 it
// builds each minor's oracle as hack/record-minors.sh does (the script
// itself, DEPLOYSYNC_MINORS_BUILD_ONLY=1, in DEPLOYSYNC_MINORS_SCRATCH or
// its default), then, per minor, compares Sync with WithKubernetesVersion of
// that minor against the oracle on random states (randstate.Valid from seed
// DEPLOYSYNC_LIVE_SEED, default 1,000,001, past the corpus's seeds;
// DEPLOYSYNC_LIVE_STATES of them, default 10,000) and on rollouts in the
// simulate world (DEPLOYSYNC_LIVE_TRAJECTORIES, default 200, from the same
// seed on; at every sync both sides decide and the world goes on with the
// library's plan). Each comparison is the corpus check's (checkRecord) on the
// oracle's fresh answer. It stops a minor at its first difference.
// DEPLOYSYNC_LIVE_MINORS=1.33,1.35 picks minors. Cold, building an older
// minor takes many minutes.
func TestLiveMinors(t *testing.T) {
	if os.Getenv("DEPLOYSYNC_LIVE_ALL") != "1" {
		t.Skip("set DEPLOYSYNC_LIVE_ALL=1 to build every minor's oracle and compare live")
	}
	var picked []string
	if v := os.Getenv("DEPLOYSYNC_LIVE_MINORS"); v != "" {
		picked = strings.Split(v, ",")
	} else {
		for m := range minors.Versions {
			picked = append(picked, m)
		}
		slices.Sort(picked)
	}
	for _, m := range picked {
		if _, ok := minors.Versions[m]; !ok {
			t.Fatalf("DEPLOYSYNC_LIVE_MINORS: unsupported minor %q", m)
		}
	}
	states := liveEnv("DEPLOYSYNC_LIVE_STATES", 10_000)
	trajectories := liveEnv("DEPLOYSYNC_LIVE_TRAJECTORIES", 200)
	firstSeed := uint64(liveEnv("DEPLOYSYNC_LIVE_SEED", 1_000_001))

	// Build every picked oracle first and keep a copy: a later build into
	// the same scratch directory then cannot touch a running one.
	bin := t.TempDir()
	scratch := os.Getenv("DEPLOYSYNC_MINORS_SCRATCH")
	if scratch == "" {
		scratch = filepath.Join(os.TempDir(), "deploysync-minors")
	}
	start := time.Now()
	cmd := exec.Command("bash", append([]string{"../hack/record-minors.sh"}, picked...)...)
	cmd.Env = append(os.Environ(), "DEPLOYSYNC_MINORS_BUILD_ONLY=1", "DEPLOYSYNC_MINORS_SCRATCH="+scratch)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("record-minors.sh (build only): %v\n%s", err, b)
	}
	for _, m := range picked {
		b, err := os.ReadFile(filepath.Join(scratch, m, "oracle"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, "oracle-"+m), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("oracles of %s built in %s", strings.Join(picked, ", "), time.Since(start).Round(time.Second))

	for _, m := range picked {
		t.Run(m, func(t *testing.T) {
			liveMinor(t, m, filepath.Join(bin, "oracle-"+m), firstSeed, states, trajectories)
		})
	}
}

// liveMinor compares one minor live.
func liveMinor(t *testing.T, minor, oraclePath string, firstSeed uint64, states, trajectories int) {
	o, err := minors.StartOracle(oraclePath)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	info, err := o.Ask(minors.Request{Op: "info"})
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != minors.Versions[minor] {
		t.Fatalf("the oracle is built with k8s.io/kubernetes %s, not %s", info.Version, minors.Versions[minor])
	}
	opts, err := VersionOptions(minor)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	var cnt recordCounts
	for i := range states {
		seed := firstSeed + uint64(i)
		c := randstate.Valid(randstate.NewRand(seed))
		st, err := corpus.Encode(c.State)
		if err != nil {
			t.Fatal(err)
		}
		r, err := o.Sync(fmt.Sprintf("seed %d", seed), st, c.TerminatingReplicas)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkRecord(&cnt, minor, r, opts); err != nil {
			t.Fatalf("%s (%s), random state of seed %d (randstate.Valid(randstate.NewRand(%d))), after %d identical: %v", minor, info.Version, seed, seed, cnt.compared+cnt.refusedBoth, err)
		}
		if n := i + 1; n%10_000 == 0 || n == states {
			t.Logf("%s: random states: %d of %d, %d compared, %d refused by both, 0 differ, %s", minor, n, states, cnt.compared, cnt.refusedBoth, time.Since(start).Round(time.Second))
		}
	}
	randomTime := time.Since(start)

	start = time.Now()
	var tc recordCounts
	started, syncs, stopped, tooLarge, invalid := 0, 0, 0, 0, 0
	for seed := firstSeed; started < trajectories; seed++ {
		if seed-firstSeed > uint64(20*trajectories) {
			t.Fatalf("only %d of %d trajectories could start from seeds %d-%d", started, trajectories, firstSeed, seed-1)
		}
		src, c, ok, err := randstate.TrajectoryStart(seed)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			invalid++
			continue
		}
		if worldPods(c) > liveMaxWorldPods {
			tooLarge++
			continue
		}
		started++
		wopts := randstate.WorldOptions(src, c, seed%3 == 0)
		step := 0
		wopts = append(wopts, simulate.WithSyncFunc(func(s deploysync.State) (deploysync.Plan, error) {
			step++
			syncs++
			st, err := corpus.Encode(s)
			if err != nil {
				return deploysync.Plan{}, err
			}
			r, err := o.Sync(fmt.Sprintf("trajectory %d sync %d", seed, step), st, c.TerminatingReplicas)
			if err != nil {
				return deploysync.Plan{}, err
			}
			if err := checkRecord(&tc, minor, r, opts); err != nil {
				return deploysync.Plan{}, fmt.Errorf("%w: %s (%s), trajectory of seed %d, sync %d: %v", errLiveDiffer, minor, info.Version, seed, step, err)
			}
			// The world goes on with the library's plan on the state as the
			// minor decoded it (both sides just agreed on it).
			decoded, err := corpus.State(r.Input)
			if err != nil {
				return deploysync.Plan{}, err
			}
			plan, err := deploysync.Sync(decoded, append([]deploysync.Option{deploysync.WithTerminatingReplicas(c.TerminatingReplicas)}, opts...)...)
			if err != nil {
				return plan, err
			}
			if refused(decoded, plan) {
				stopped++
				return deploysync.Plan{}, errStop
			}
			return plan, nil
		}))
		if _, err := simulate.Run(c.State, wopts...); err != nil && !isStop(err) {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if started%200 == 0 || started == trajectories {
			t.Logf("%s: trajectories: %d of %d, %d syncs (%d compared), 0 differ, %s", minor, started, trajectories, syncs, tc.compared, time.Since(start).Round(time.Second))
		}
	}
	t.Logf("%s (%s): %d random states (seeds %d-%d): %d compared, %d refused by both, 0 differ, in %s; %d trajectories (seeds from %d): %d syncs, %d compared, %d refused by both, 0 differ, %d stopped at a write an apiserver would refuse, %d skipped as worlds of more than %d pods, %d skipped as refused, in %s",
		minor, info.Version, states, firstSeed, firstSeed+uint64(states)-1, cnt.compared, cnt.refusedBoth, randomTime.Round(time.Second),
		trajectories, firstSeed, syncs, tc.compared, tc.refusedBoth, stopped, tooLarge, liveMaxWorldPods, invalid, time.Since(start).Round(time.Second))
}

// errLiveDiffer marks a live trajectory sync on which the library and the
// minor differ.
var errLiveDiffer = errors.New("deploysync differs from the live upstream")
