package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSpreadOfCacheOrders: what simreal says of the simulator's other cache
// orders, on small worlds: which figures they keep, whether the cluster's
// run is one of them, and which of the cluster's deletions of other classes
// than the default's some order makes.
func TestSpreadOfCacheOrders(t *testing.T) {
	world := func(peak, low int32, dur time.Duration, classes ...string) cacheOrderWorld {
		w := cacheOrderWorld{result: simRealResult{Scales: []realScale{{Message: "Scaled down replica set web-1 from 3 to 2", Sizes: "web-1=2"}},
			PeakPods: peak, PeakInOrder: peak, MinAvailable: low}, duration: dur, classes: map[string][]string{}}
		w.classes["web-1"] = append(w.classes["web-1"], classes...)
		return w
	}
	def := world(4, 2, 10*time.Second, "A", "B")
	for _, tt := range []struct {
		name string
		real cacheOrderWorld
		runs []cacheOrderWorld
		// want: sameAll, realAll, differing, covered.
		sameAll, realAll   int
		differing, covered []string
		wantPeak, wantLow  [2]int32
		wantDur            [2]time.Duration
		reason             string
	}{
		{"every order the default's", def, []cacheOrderWorld{def, def}, 2, 2, nil, nil, [2]int32{4, 4}, [2]int32{2, 2}, [2]time.Duration{10 * time.Second, 10 * time.Second},
			"a settled rollout: no order moves anything, and the cluster's equals them all"},
		{"the cluster's is one order's", world(4, 2, 11*time.Second, "A", "C"), []cacheOrderWorld{def, world(4, 2, 11*time.Second, "A", "C")}, 1, 1,
			[]string{"web-1 #2"}, []string{"web-1 #2"}, [2]int32{4, 4}, [2]int32{2, 2}, [2]time.Duration{10 * time.Second, 11 * time.Second},
			"the second scale-down's classes move with the order, and one order's run is the cluster's (duration is not compared)"},
		{"the cluster's classes no order's", world(4, 2, 10*time.Second, "D", "B"), []cacheOrderWorld{def, world(5, 1, 12*time.Second, "A", "C")}, 1, 0,
			[]string{"web-1 #1"}, nil, [2]int32{4, 5}, [2]int32{1, 2}, [2]time.Duration{10 * time.Second, 12 * time.Second},
			"the cluster's first scale-down took classes no order took there; the other order moved peak and lowest too"},
		{"covered at another scale-down only", world(4, 2, 10*time.Second, "C"), []cacheOrderWorld{world(4, 2, 10*time.Second, "A", "C")}, 0, 0,
			[]string{"web-1 #1"}, nil, [2]int32{4, 4}, [2]int32{2, 2}, [2]time.Duration{10 * time.Second, 10 * time.Second},
			"classes are compared scale-down by scale-down: an order's C at #2 does not cover the cluster's C at #1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := spreadOfCacheOrders(def, tt.real, tt.runs)
			if s.runs != len(tt.runs) || s.sameAll != tt.sameAll || len(s.realSeeds) != tt.realAll ||
				!slices.Equal(s.differing, tt.differing) || !slices.Equal(s.covered, tt.covered) ||
				[2]int32{s.minPeak, s.maxPeak} != tt.wantPeak || [2]int32{s.minLow, s.maxLow} != tt.wantLow ||
				[2]time.Duration{s.minDur, s.maxDur} != tt.wantDur {
				t.Errorf("got %+v\nwant sameAll %d, realAll %d, differing %v, covered %v, peak %v, lowest %v, duration %v: %s",
					s, tt.sameAll, tt.realAll, tt.differing, tt.covered, tt.wantPeak, tt.wantLow, tt.wantDur, tt.reason)
			}
			if tt.name == "the cluster's is one order's" && !slices.Equal(s.realSeeds, []int{2}) {
				t.Errorf("the runs with the cluster's run: seeds %v, want [2] (the second run)", s.realSeeds)
			}
			if text := s.String(); (len(tt.differing) > 0) != strings.Contains(text, "other classes than the default's") {
				t.Errorf("the log line names differing scale-downs: %v, want %v: %s", !(len(tt.differing) > 0), len(tt.differing) > 0, text)
			}
		})
	}
}
