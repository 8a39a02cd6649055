package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/simulate"
)

// cacheSpread is what --cache-orders reports: the rollout run again with
// each ReplicaSet's pods listed in the orders seeds 1 to Orders draw
// (simulate.WithCacheOrder), beside the main run in creation order.
type cacheSpread struct {
	Orders int `json:"orders"`
	// The ranges of the figures over the other orders.
	PeakPodsMin     int32  `json:"peakPodsMin"`
	PeakPodsMax     int32  `json:"peakPodsMax"`
	MinAvailableMin int32  `json:"minAvailableMin"`
	MinAvailableMax int32  `json:"minAvailableMax"`
	DurationMin     string `json:"durationMin"`
	DurationMax     string `json:"durationMax"`
	// SameDeletions counts the orders that delete the main run's very
	// pods, in the same sequence.
	SameDeletions int `json:"sameDeletions"`
	// Moved are the seeds whose outcome, syncs, peak pods, lowest
	// availability or duration differ from the main run's.
	Moved []uint64 `json:"moved,omitempty"`
}

// runCacheOrders runs state with opts in the cache orders of seeds
// 1 to n and compares each run with base, the run in creation order;
// done, unless nil, hears how many runs are done after each.
func runCacheOrders(state deploysync.State, opts []simulate.Option, base *simulate.Timeline, n int, done func(int)) (*cacheSpread, error) {
	basePeak, _ := base.PeakPods()
	baseMin, _ := base.MinAvailable()
	baseDeleted := deletedPods(base)
	out := &cacheSpread{Orders: n}
	var shortest, longest time.Duration
	for seed := uint64(1); seed <= uint64(n); seed++ {
		tl, err := simulate.Run(state, append(slices.Clone(opts), simulate.WithCacheOrder(seed))...)
		if err != nil {
			return nil, fmt.Errorf("--cache-orders, seed %d: %w", seed, err)
		}
		peak, _ := tl.PeakPods()
		lowest, _ := tl.MinAvailable()
		d := tl.Duration()
		if seed == 1 {
			out.PeakPodsMin, out.PeakPodsMax, out.MinAvailableMin, out.MinAvailableMax = peak, peak, lowest, lowest
			shortest, longest = d, d
		}
		out.PeakPodsMin, out.PeakPodsMax = min(out.PeakPodsMin, peak), max(out.PeakPodsMax, peak)
		out.MinAvailableMin, out.MinAvailableMax = min(out.MinAvailableMin, lowest), max(out.MinAvailableMax, lowest)
		shortest, longest = min(shortest, d), max(longest, d)
		if slices.Equal(deletedPods(tl), baseDeleted) {
			out.SameDeletions++
		}
		if tl.Outcome != base.Outcome || tl.Syncs() != base.Syncs() || peak != basePeak || lowest != baseMin || d != base.Duration() {
			out.Moved = append(out.Moved, seed)
		}
		if done != nil {
			done(int(seed))
		}
	}
	out.DurationMin, out.DurationMax = shortest.String(), longest.String()
	return out, nil
}

// progress returns a done func for runCacheOrders that, once the
// runs have taken 2 s by now, writes to w how many of n are done, at most
// once a second and not after the last: a large Deployment in many orders
// takes a while.
func progress(w io.Writer, n int, now func() time.Time) func(int) {
	start := now()
	var last time.Time
	return func(done int) {
		t := now()
		if done >= n || t.Sub(start) < 2*time.Second || t.Sub(last) < time.Second {
			return
		}
		last = t
		fmt.Fprintf(w, "cache orders: %d of %d run\n", done, n)
	}
}

// deletedPods lists the pods a run deleted, step by step, as
// "ReplicaSet/pod".
func deletedPods(tl *simulate.Timeline) []string {
	var out []string
	for _, s := range tl.Steps {
		for _, d := range s.Deleted {
			out = append(out, d.ReplicaSet+"/"+d.Pod)
		}
	}
	return out
}

// text is the spread as the summary's line.
func (c *cacheSpread) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "in %d other orders (--cache-order 1 to %d): peak pods %s, lowest available %s, duration %s; %d of %d delete the pods this run deletes",
		c.Orders, c.Orders, span(fmt.Sprint(c.PeakPodsMin), fmt.Sprint(c.PeakPodsMax)),
		span(fmt.Sprint(c.MinAvailableMin), fmt.Sprint(c.MinAvailableMax)), span(c.DurationMin, c.DurationMax), c.SameDeletions, c.Orders)
	switch {
	case len(c.Moved) == 0:
		b.WriteString("; every order keeps this run's outcome, syncs, peak, lowest availability and duration")
	default:
		seeds := make([]string, len(c.Moved))
		for i, s := range c.Moved {
			seeds[i] = fmt.Sprint(s)
		}
		fmt.Fprintf(&b, "; %d move the outcome, syncs, peak, lowest availability or duration (seeds %s)", len(c.Moved), strings.Join(seeds, ", "))
	}
	return b.String()
}

// span is "a" when a and b are one value, else "a–b".
func span(a, b string) string {
	if a == b {
		return a
	}
	return a + "–" + b
}
