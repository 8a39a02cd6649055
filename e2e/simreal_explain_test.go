package e2e

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/deploysync/deploysync/replicaset"
	"github.com/deploysync/deploysync/simulate"
)

// Where the two worlds' deleted pods differ by rank class, the difference
// may still be one upstream's own ranking allows on the cluster: the
// ReplicaSet controller ranks at its own clock, which the recorder knows
// only to within the time between the scale-down and its first deletion
// seen, and it sorts the pods in the order its cache lists them (a Go
// map's, different on every sync), which decides among pods its
// comparison does not order transitively (replicaset.DeletionOrder's doc).
// upstreamAllows looks for a witness: a clock in that window and an order
// of the pods at which upstream's ranking deletes pods of the simulator's
// classes. A witness proves the choice was open to the real controller; no
// witness among those tried leaves the difference unexplained.

// simRankSlack is how long before the recorder saw a scale-down the real
// controller may have read it: the two informers' deliveries of one write
// differ by milliseconds (the recorder's lags, simRecorder.latencies).
const simRankSlack = 50 * time.Millisecond

// simRankShuffles is how many seeded shuffles of the pods are tried as the
// cache's order, besides the recorder's (by name).
const simRankShuffles = 64

// simDown is one scale-down of the simulator: its step's time and the
// ranks of the pods it deleted, moved to the cluster's clock.
type simDown struct {
	at    time.Time
	pods  []string
	ranks []replicaset.Rank
	// marked is how many of the deletions the simulator marks as the
	// cache's order's choice (simulate.Deletion's Tied or Unsettled above 0).
	marked int
}

// simDowns are the simulator's scale-downs per ReplicaSet, in order (one
// per step and ReplicaSet), with their times moved from the simulated
// clock (tl.Start) to the cluster's (t0, the real start; tl.Start keeps
// them).
func simDowns(tl *simulate.Timeline, t0 time.Time) map[string][]simDown {
	move := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		return t0.Add(t.Sub(tl.Start))
	}
	out := map[string][]simDown{}
	for _, st := range tl.Steps {
		per := map[string]*simDown{}
		var order []string
		for _, d := range st.Deleted {
			sd := per[d.ReplicaSet]
			if sd == nil {
				sd = &simDown{at: move(st.Time)}
				per[d.ReplicaSet] = sd
				order = append(order, d.ReplicaSet)
			}
			r := d.Rank
			r.ReadySince, r.Created = move(r.ReadySince), move(r.Created)
			sd.pods, sd.ranks = append(sd.pods, d.Pod), append(sd.ranks, r)
			if d.Tied > 0 || d.Unsettled > 0 {
				sd.marked++
			}
		}
		for _, rs := range order {
			out[rs] = append(out[rs], *per[rs])
		}
	}
	return out
}

// realDowns are the recorder's scale-downs that deleted pods, per
// ReplicaSet, in order: the entries of deletedClasses.
func (r *simRecorder) realDowns() map[string][]*scaleDown {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]*scaleDown{}
	for _, d := range r.downs {
		if len(d.deleted) > 0 {
			out[d.rs] = append(out[d.rs], d)
		}
	}
	return out
}

// classesAt are the sorted rank classes of ranks at now, joined as one
// entry of deletedClasses.
func classesAt(ranks []replicaset.Rank, now time.Time) string {
	cls := make([]string, len(ranks))
	for i, r := range ranks {
		cls[i] = rankClass(r, now)
	}
	slices.Sort(cls)
	return strings.Join(cls, "; ")
}

// rankClocks are the clocks in [lo, hi] at which some rank class of ranks
// can change: lo, and every time a ready or creation age reaches a power
// of two nanoseconds (a bucket edge), in order. Between two of them every
// class, and so upstream's ranking, stays the same.
func rankClocks(ranks []replicaset.Rank, lo, hi time.Time) []time.Time {
	clocks := []time.Time{lo}
	for _, r := range ranks {
		for _, s := range []time.Time{r.ReadySince, r.Created} {
			if s.IsZero() {
				continue
			}
			for k := 0; k < 63; k++ {
				edge := s.Add(time.Duration(1) << k)
				if edge.After(hi) {
					break
				}
				if edge.After(lo) {
					clocks = append(clocks, edge)
				}
			}
		}
	}
	slices.SortFunc(clocks, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(clocks, func(a, b time.Time) bool { return a.Equal(b) })
}

// upstreamAllows reports whether upstream's ranking of the pods real
// scale-down d chose from deletes pods of want's classes at some clock
// from the scale-down (less simRankSlack) to its first deletion seen, for
// the recorder's order of the pods or one of simRankShuffles seeded
// shuffles, and says at which.
func upstreamAllows(d *scaleDown, want []replicaset.Rank) (string, bool) {
	n := len(d.deleted)
	if len(want) != n || n > len(d.before) {
		return fmt.Sprintf("the simulator deleted %d pods, the cluster %d", len(want), n), false
	}
	where, ok := rankingWitness(d, want, func(_ []*corev1.Pod, ranks []replicaset.Rank, c time.Time) bool {
		return classesAt(ranks[:n], c) == classesAt(want, c)
	})
	if !ok {
		return where + ", deletes pods of the simulator's classes", false
	}
	return fmt.Sprintf("upstream's ranking of the %d pods deletes pods of the simulator's classes %s", len(d.before), where), true
}

// upstreamPicks reports whether upstream's ranking of d's pods deletes
// exactly the pods named want (the simulator's, all of them among d's) at
// some clock and order upstreamAllows tries, and says at which.
func upstreamPicks(d *scaleDown, want []string) (string, bool) {
	n := len(want)
	if n > len(d.before) {
		return fmt.Sprintf("the simulator deleted %d of %d pods", n, len(d.before)), false
	}
	where, ok := rankingWitness(d, nil, func(order []*corev1.Pod, _ []replicaset.Rank, _ time.Time) bool {
		for _, p := range order[:n] {
			if !slices.Contains(want, p.Name) {
				return false
			}
		}
		return true
	})
	if !ok {
		return where + ", deletes the simulator's very pods", false
	}
	return "upstream's ranking deletes the simulator's very pods " + where, true
}

// rankingWitness looks for a clock of d's window (from the scale-down, less
// simRankSlack, to its first deletion seen: every bucket edge of d's pods
// and of extra's) and an order of d's pods (the recorder's, then
// simRankShuffles seeded shuffles) at which match holds for upstream's
// ranking (upstreamOrder), latest clock first, and says where: "at clocks
// from X to Y before the first deletion was seen, in ORDER", or, with
// none, "no clock from X before the first deletion seen to it, in K
// orders of the N pods". At every clock and order it tries,
// replicaset.DeletionOrder must give upstream's very order; where it does
// not, rankingWitness says so and reports no witness.
func rankingWitness(d *scaleDown, extra []replicaset.Rank, match func([]*corev1.Pod, []replicaset.Rank, time.Time) bool) (string, bool) {
	lo, hi := d.at, d.ranked
	if hi.Before(lo) {
		lo = hi
	}
	lo = lo.Add(-simRankSlack)
	_, ranks := replicaset.DeletionOrder(d.before, simOnNode(d.before), hi)
	clocks := rankClocks(append(ranks, extra...), lo, hi)
	pods := slices.Clone(d.before)
	for k := 0; k <= simRankShuffles; k++ {
		shuffle(pods, k)
		// The latest clock first: the recorder's own, then earlier ones.
		for i := len(clocks) - 1; i >= 0; i-- {
			c := clocks[i]
			order, ranks, err := upstreamOrder(pods, c)
			if err != nil {
				return fmt.Sprintf("%v, in %s", err, orderName(k)), false
			}
			if !match(order, ranks, c) {
				continue
			}
			end := hi
			if i+1 < len(clocks) {
				end = clocks[i+1]
			}
			return fmt.Sprintf("at clocks from %v to %v before the first deletion was seen, in %s", hi.Sub(c), hi.Sub(end), orderName(k)), true
		}
	}
	return fmt.Sprintf("no clock from %v before the first deletion seen to it, in %d orders of the %d pods", hi.Sub(lo), simRankShuffles+1, len(d.before)), false
}

// shuffle makes pods cache order k of rankingWitness and orderCensus: for
// k > 0 a shuffle seeded with k of the order pods are in (k = 0 leaves
// them, the recorder's order, as they are).
func shuffle(pods []*corev1.Pod, k int) {
	if k == 0 {
		return
	}
	rnd := rand.New(rand.NewPCG(uint64(k), 27))
	rnd.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
}

// orderName names cache order k.
func orderName(k int) string {
	if k == 0 {
		return "the recorder's order (by name)"
	}
	return fmt.Sprintf("cache order %d (a seeded shuffle)", k)
}

// simOnNode counts the active pods per node among pods: the related pods
// upstream counts per node, for the e2e cluster, where every pod of a
// Deployment is on the one node no-kubelet and so each pod's count is the
// same.
func simOnNode(pods []*corev1.Pod) map[string]int {
	on := map[string]int{}
	for _, p := range pods {
		if controller.IsPodActive(p) {
			on[p.Spec.NodeName]++
		}
	}
	return on
}

// upstreamSorts counts upstreamOrder's rankings and upstreamMismatches
// those where replicaset.DeletionOrder's order differed, for simreal's
// summary, which fails on a mismatch.
var upstreamSorts, upstreamMismatches atomic.Int64

// upstreamOrder sorts a copy of pods as kube-controller-manager's
// ReplicaSet controller does before a scale-down (getPodsToDelete):
// sort.Sort of pkg/controller's ActivePodsWithRanks, each pod ranked by
// simOnNode's count of its node, at clock now. It returns the order with
// each pod's replicaset.Rank, and an error naming the first place where
// replicaset.DeletionOrder, given the same pods, order and clock, orders
// them otherwise: the library's ranking checked against upstream's code on
// every ranking the witness search tries.
func upstreamOrder(pods []*corev1.Pod, now time.Time) ([]*corev1.Pod, []replicaset.Rank, error) {
	onNode := simOnNode(pods)
	up := controller.ActivePodsWithRanks{Pods: slices.Clone(pods), Rank: make([]int, len(pods)), Now: metav1.NewTime(now)}
	for i, p := range up.Pods {
		up.Rank[i] = onNode[p.Spec.NodeName]
	}
	sort.Sort(up)
	upstreamSorts.Add(1)
	ours, ranks := replicaset.DeletionOrder(pods, onNode, now)
	for i := range ours {
		if ours[i] != up.Pods[i] {
			upstreamMismatches.Add(1)
			return nil, nil, fmt.Errorf("replicaset.DeletionOrder differs from upstream's ActivePodsWithRanks at clock %s: position %d is %s, upstream's %s",
				now.Format(time.RFC3339Nano), i, ours[i].Name, up.Pods[i].Name)
		}
	}
	return up.Pods, ranks, nil
}

// simRankCensus is how many cache orders orderCensus sorts the pods in.
const simRankCensus = 256

// census is orderCensus' count over the orders sorted: how many different
// sets of classes the deleted places hold (sets), in how many orders they
// are the cluster's (real) and the simulator's (sim); how many different
// sets of pods (podSets), in how many orders the cluster's very pods
// (realPods) and the simulator's (simPods, where all of them are among
// the cluster's).
type census struct {
	pods, orders, sets, real, sim int
	podSets, realPods, simPods    int
}

func (c census) String() string {
	return fmt.Sprintf("at the recorder's clock upstream's ranking of the %d pods in %d cache orders deletes %d different sets of classes "+
		"(the cluster's in %d, the simulator's in %d) and %d different sets of pods (the cluster's own in %d, the simulator's in %d)",
		c.pods, c.orders, c.sets, c.real, c.sim, c.podSets, c.realPods, c.simPods)
}

// orderCensus sorts d's pods as upstream does at the recorder's clock
// (d.ranked) in simRankCensus cache orders (the recorder's, then seeded
// shuffles) and counts the different sets of classes, and of pods, the
// first len(d.deleted) make, and the orders in which they are the
// cluster's and the simulator's (its deleted pods' ranks sim and names
// simNames), classes read at that clock. Where there is more than one
// set, what a scale-down deletes at that clock is decided by the order
// the ReplicaSet controller's cache lists the pods in, a Go map's.
func orderCensus(d *scaleDown, sim []replicaset.Rank, simNames []string) (census, error) {
	n := len(d.deleted)
	if n > len(d.before) {
		return census{}, fmt.Errorf("%d deleted of %d pods", n, len(d.before))
	}
	key := func(names []string) string {
		names = slices.Clone(names)
		slices.Sort(names)
		return strings.Join(names, ",")
	}
	real, simCls := classesAt(rankedDeleted(d), d.ranked), classesAt(sim, d.ranked)
	realPods, simPods := key(d.deleted), key(simNames)
	tally, podTally := map[string]int{}, map[string]int{}
	pods := slices.Clone(d.before)
	for k := 0; k < simRankCensus; k++ {
		shuffle(pods, k)
		order, ranks, err := upstreamOrder(pods, d.ranked)
		if err != nil {
			return census{}, err
		}
		tally[classesAt(ranks[:n], d.ranked)]++
		names := make([]string, n)
		for i, p := range order[:n] {
			names[i] = p.Name
		}
		podTally[key(names)]++
	}
	return census{pods: len(d.before), orders: simRankCensus, sets: len(tally), real: tally[real], sim: tally[simCls],
		podSets: len(podTally), realPods: podTally[realPods], simPods: podTally[simPods]}, nil
}

// markedText says whether the simulator foretold that a scale-down's pods
// are the cache's order's choice: deletions it marks tied or unsettled
// (simulate.Deletion; replicaset.Unsettled). Where it marks none, its
// pods are upstream's for every cache order at its clock.
func markedText(d simDown) string {
	if d.marked == 0 {
		return fmt.Sprintf("the simulator marked none of its %d deletions tied or unsettled (a choice it calls the same for every cache order)", len(d.pods))
	}
	return fmt.Sprintf("the simulator marked %d of its %d deletions tied or unsettled (the cache's order's choice, foretold)", d.marked, len(d.pods))
}

// explainDeletions compares the two worlds' scale-downs of each ReplicaSet
// one by one, as the deleted-pods comparison does (both read at the
// cluster's clock), and for each whose classes differ gives
// upstreamAllows' answer, with orderCensus' where both hold the same pods. Once one world has deleted
// a pod the other still has (other pods of the same classes, or an allowed
// difference), the two rank different pods: upstreamAllows is then given
// the simulator's pods as the cluster's objects (simPool); where they
// first part with the same classes, a line reports upstreamPicks' answer.
// all reports whether every difference has a witness (false when a
// ReplicaSet's scale-downs differ in number).
func explainDeletions(sim map[string][]simDown, real map[string][]*scaleDown, t0 time.Time) (lines []string, all bool) {
	all = true
	names := make([]string, 0, len(sim)+len(real))
	for rs := range sim {
		names = append(names, rs)
	}
	for rs := range real {
		if _, ok := sim[rs]; !ok {
			names = append(names, rs)
		}
	}
	sort.Strings(names)
	for _, rs := range names {
		s, r := sim[rs], real[rs]
		if len(s) != len(r) {
			lines = append(lines, fmt.Sprintf("%s: %d scale-downs deleted pods in the simulator, %d on the cluster", rs, len(s), len(r)))
			all = false
			continue
		}
		simGone, realGone, seen := map[string]bool{}, map[string]bool{}, map[string]*corev1.Pod{}
		apart := false // the worlds have deleted different pods
		for i, d := range r {
			for _, p := range d.before {
				seen[p.Name] = p
			}
			// Both worlds' pods read at the cluster's clock, as
			// simDeletedClasses compares them.
			differs := classesAt(s[i].ranks, d.ranked) != classesAt(rankedDeleted(d), d.ranked)
			pool, note := simPool(d, simGone, realGone, seen)
			if !apart && !sameNames(s[i].pods, d.deleted) {
				apart = true
				// Where the worlds first part with the same classes: is
				// the simulator's very choice one upstream could make?
				// Reported only: the classes, compared, are alike.
				if !differs && allIn(s[i].pods, d.before) {
					why, _ := upstreamPicks(d, s[i].pods)
					if c, err := orderCensus(d, s[i].ranks, s[i].pods); err != nil {
						why += "; " + err.Error()
					} else {
						why += "; " + c.String()
					}
					why += "; " + markedText(s[i])
					lines = append(lines, fmt.Sprintf("%s scale-down %d (−%d, first deletion seen at +%v): the first with other pods of the same classes: %s",
						rs, i+1, len(d.deleted), d.ranked.Sub(t0).Round(time.Millisecond), why))
				}
			}
			for _, n := range s[i].pods {
				simGone[n] = true
			}
			for _, n := range d.deleted {
				realGone[n] = true
			}
			if !differs {
				continue
			}
			dd := *d
			dd.before = pool
			why, ok := upstreamAllows(&dd, s[i].ranks)
			why += note
			if note == "" {
				// The worlds hold the same pods: how much of the choice
				// the cache's order decides.
				c, err := orderCensus(d, s[i].ranks, s[i].pods)
				if err != nil {
					why, ok = why+"; "+err.Error(), false
				} else {
					why += "; " + c.String()
				}
			}
			all = all && ok
			verdict := "allowed"
			if !ok {
				verdict = "UNEXPLAINED"
			}
			lines = append(lines, fmt.Sprintf("%s scale-down %d (−%d, first deletion seen at +%v): %s: %s",
				rs, i+1, len(d.deleted), d.ranked.Sub(t0).Round(time.Millisecond), verdict, why))
		}
	}
	return lines, all
}

// sameNames: a and b name the same pods.
func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, n := range a {
		if !slices.Contains(b, n) {
			return false
		}
	}
	return true
}

// allIn: every pod named in names is one of pods.
func allIn(names []string, pods []*corev1.Pod) bool {
	for _, n := range names {
		if !slices.ContainsFunc(pods, func(p *corev1.Pod) bool { return p.Name == n }) {
			return false
		}
	}
	return true
}

// simPool are the pods the simulator's world holds at real scale-down d,
// as the cluster's objects: d's pods, less those the simulator deleted
// before and the cluster did not, with those the cluster deleted before
// and the simulator did not (as the recorder last saw them). Pods are
// matched by name: the steady state's are the same pods in both worlds
// (steadyPods), a pod either world created has a name of its own and is
// left as d has it. note says what was changed ("" for nothing).
func simPool(d *scaleDown, simGone, realGone map[string]bool, seen map[string]*corev1.Pod) ([]*corev1.Pod, string) {
	var pool []*corev1.Pod
	less, more := 0, 0
	in := map[string]bool{}
	for _, p := range d.before {
		in[p.Name] = true
		if simGone[p.Name] && !realGone[p.Name] {
			less++
			continue
		}
		pool = append(pool, p)
	}
	var names []string
	for n := range realGone {
		if !simGone[n] && !in[n] && seen[n] != nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		pool = append(pool, seen[n])
		more++
	}
	if less == 0 && more == 0 {
		return pool, ""
	}
	return pool, fmt.Sprintf(" (the simulator's pods: the cluster's %d, less %d it deleted before, with %d the cluster deleted before)", len(d.before), less, more)
}

// rankedDeleted are the ranks of d's deleted pods as DeletionOrder reads
// them.
func rankedDeleted(d *scaleDown) []replicaset.Rank {
	order, ranks := replicaset.DeletionOrder(d.before, map[string]int{"no-kubelet": len(d.before)}, d.ranked)
	var out []replicaset.Rank
	for i, p := range order {
		if slices.Contains(d.deleted, p.Name) {
			out = append(out, ranks[i])
		}
	}
	return out
}

// simFailDraws are the simulator's failure draws for the pods it created
// in run tl, in creation order: true for a pod that never became Ready.
// The world draws once per pod it creates, in order, whatever the tick, so
// any run of the scenario tells them: the pods it created (UID "pod-N", N
// counting the world's pods in creation order) as it holds them at the
// end. A gap in N (a created pod deleted in the run) would hide a draw, and
// a pod not Ready but young may not be failing: both stop the test rather
// than guess.
func simFailDraws(t *testing.T, tl *simulate.Timeline) []bool {
	t.Helper()
	end := tl.Steps[len(tl.Steps)-1].Time
	type made struct {
		n     int
		fails bool
	}
	var ms []made
	for _, ps := range tl.Final.Pods {
		for _, p := range ps {
			if p.CreationTimestamp.Time.Before(tl.Start) {
				continue // the input's
			}
			uid := string(p.UID)
			n, err := strconv.Atoi(strings.TrimPrefix(uid, "pod-"))
			if err != nil || !strings.HasPrefix(uid, "pod-") {
				t.Fatalf("simulated pod %s: UID %q is not the world's pod-N", p.Name, uid)
			}
			fails := !ready(p)
			if fails && end.Sub(p.CreationTimestamp.Time) < time.Minute {
				t.Fatalf("simulated pod %s not Ready %v after its creation: failing or young?", p.Name, end.Sub(p.CreationTimestamp.Time))
			}
			ms = append(ms, made{n, fails})
		}
	}
	slices.SortFunc(ms, func(a, b made) int { return a.n - b.n })
	draws := make([]bool, len(ms))
	for i, m := range ms {
		if m.n != ms[0].n+i {
			t.Fatalf("simulated pods created in the run: pod-%d follows pod-%d, a pod deleted in between hides its draw", m.n, ms[i-1].n)
		}
		draws[i] = m.fails
	}
	return draws
}
