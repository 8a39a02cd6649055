package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/simulate"
)

// simCacheOrderRuns is how many cache orders simreal simulates beside the
// default's (simulate.WithCacheOrder, seeds 1 to n): 64, or
// DEPLOYSYNC_SIMREAL_CACHE_ORDERS. In rolling 1000 replicas the share of
// orders whose whole run was the cluster's went from none of 16 to 46 of
// 256 from run to run (2 of 64 in another): 64 is a sample at some 0.2 s
// a run there, a few ms in CI's scenarios.
var simCacheOrderRuns = func() uint64 {
	if v := os.Getenv("DEPLOYSYNC_SIMREAL_CACHE_ORDERS"); v != "" {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n < 1 {
			panic(fmt.Sprintf("DEPLOYSYNC_SIMREAL_CACHE_ORDERS=%q: want a positive number", v))
		}
		return n
	}
	return 64
}()

// cacheOrderWorld is one world compared by spreadOfCacheOrders: its result
// and its deleted pods' classes (simDeletedClasses, recorder.deletedClasses).
type cacheOrderWorld struct {
	result   simRealResult
	classes  map[string][]string
	duration time.Duration
}

// cacheOrderSpread is how the simulator's runs in other cache orders
// compare with its default run and with the cluster's.
type cacheOrderSpread struct {
	runs int
	// sameWrites, samePeak, sameLowest, sameClasses count the runs with the
	// default's ScalingReplicaSet sequence and sizes, peak pods, lowest
	// availability and deleted classes; sameAll those with all four.
	sameWrites, samePeak, sameLowest, sameClasses, sameAll int
	// realSeeds are the runs with the cluster's writes, peak (with
	// overtaking creates in order), lowest availability and deleted
	// classes, the runs the cluster's is one of: their indexes from 1,
	// simCacheOrders' seeds.
	realSeeds []int
	// differing are the scale-downs ("ReplicaSet #i", from 1) whose
	// deleted classes on the cluster are not the default's; covered those
	// of them some run deleted the cluster's classes at.
	differing, covered []string
	minDur, maxDur     time.Duration
	minPeak, maxPeak   int32
	minLow, maxLow     int32
}

// spreadOfCacheOrders compares runs, the simulator in other cache orders,
// with def, its default run, and with real, the cluster's. Deleted classes
// are compared per ReplicaSet and scale-down, in order, as simreal
// compares them.
func spreadOfCacheOrders(def, real cacheOrderWorld, runs []cacheOrderWorld) cacheOrderSpread {
	s := cacheOrderSpread{runs: len(runs)}
	for i, r := range runs {
		writes := cmp.Equal(r.result.Scales, def.result.Scales)
		peak := r.result.PeakPods == def.result.PeakPods
		low := r.result.MinAvailable == def.result.MinAvailable
		classes := cmp.Equal(r.classes, def.classes)
		s.sameWrites += b2i(writes)
		s.samePeak += b2i(peak)
		s.sameLowest += b2i(low)
		s.sameClasses += b2i(classes)
		s.sameAll += b2i(writes && peak && low && classes)
		if cmp.Equal(r.result.Scales, real.result.Scales) && r.result.PeakPods == real.result.PeakInOrder &&
			r.result.MinAvailable == real.result.MinAvailable && cmp.Equal(r.classes, real.classes) {
			s.realSeeds = append(s.realSeeds, i+1)
		}
		if i == 0 {
			s.minDur, s.maxDur = r.duration, r.duration
			s.minPeak, s.maxPeak = r.result.PeakPods, r.result.PeakPods
			s.minLow, s.maxLow = r.result.MinAvailable, r.result.MinAvailable
		}
		s.minDur, s.maxDur = min(s.minDur, r.duration), max(s.maxDur, r.duration)
		s.minPeak, s.maxPeak = min(s.minPeak, r.result.PeakPods), max(s.maxPeak, r.result.PeakPods)
		s.minLow, s.maxLow = min(s.minLow, r.result.MinAvailable), max(s.maxLow, r.result.MinAvailable)
	}
	var names []string
	for rs := range real.classes {
		names = append(names, rs)
	}
	slices.Sort(names)
	for _, rs := range names {
		for i, cls := range real.classes[rs] {
			if i < len(def.classes[rs]) && def.classes[rs][i] == cls {
				continue
			}
			at := fmt.Sprintf("%s #%d", rs, i+1)
			s.differing = append(s.differing, at)
			for _, r := range runs {
				if i < len(r.classes[rs]) && r.classes[rs][i] == cls {
					s.covered = append(s.covered, at)
					break
				}
			}
		}
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// String is the spread as simreal logs it.
func (s cacheOrderSpread) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d other cache orders (simulate.WithCacheOrder 1–%d): the default's writes and sizes in %d, its peak pods in %d, its lowest availability in %d, its deleted classes in %d, all four in %d; "+
		"peak %d–%d, lowest %d–%d, duration %v–%v; the cluster's writes, peak (creates in order), lowest and deleted classes all in %d",
		s.runs, s.runs, s.sameWrites, s.samePeak, s.sameLowest, s.sameClasses, s.sameAll,
		s.minPeak, s.maxPeak, s.minLow, s.maxLow, s.minDur, s.maxDur, len(s.realSeeds))
	if len(s.realSeeds) > 0 && len(s.realSeeds) < s.runs {
		fmt.Fprintf(&b, " (seeds %s)", strings.Trim(fmt.Sprint(s.realSeeds), "[]"))
	}
	if len(s.differing) > 0 {
		fmt.Fprintf(&b, "; the cluster deleted other classes than the default's at %d scale-downs (%s), %d of them those of some other order",
			len(s.differing), strings.Join(s.differing, ", "), len(s.covered))
		if len(s.covered) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(s.covered, ", "))
		}
	}
	return b.String()
}

// simCacheOrders runs the scenario's state in the simulator in
// simCacheOrderRuns other cache orders at tick and compares them with its
// default run (tl) and the cluster's (real): which of the figures simreal
// compares the cache's order moves, and whether the cluster's deletions
// that differ from the default's are among those the other orders make.
func simCacheOrders(state deploysync.State, opts []simulate.Option, tl *simulate.Timeline, t0 time.Time,
	realWorld cacheOrderWorld, realDowns map[string][]*scaleDown) (cacheOrderSpread, error) {
	def := cacheOrderWorld{result: simResult(state, tl), classes: simDeletedClasses(tl, t0, realDowns), duration: tl.Duration()}
	runs := make([]cacheOrderWorld, 0, simCacheOrderRuns)
	for seed := uint64(1); seed <= simCacheOrderRuns; seed++ {
		o, err := simulate.Run(state, append(slices.Clone(opts), simulate.WithCacheOrder(seed))...)
		if err != nil {
			return cacheOrderSpread{}, fmt.Errorf("simulate.Run with cache order %d: %w", seed, err)
		}
		runs = append(runs, cacheOrderWorld{result: simResult(state, o), classes: simDeletedClasses(o, t0, realDowns), duration: o.Duration()})
	}
	return spreadOfCacheOrders(def, realWorld, runs), nil
}
