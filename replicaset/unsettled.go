package replicaset

import (
	"slices"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Unsettled tells, for the first n pods of a deletion order, whether
// upstream's choice of them depends on the order the controller's cache
// lists the pods. ranks are the ranks [DeletionOrder] returned, in its
// order, and now its clock; the first n are the pods deleted, the rest
// kept. For each deleted pod it gives how many kept pods upstream's
// comparison does not put after it, pods tied with it (equal in every rule
// but the UID) aside.
//
// Rules 6 and 8 of [DeletionOrder] are not transitive: two pods of one
// logarithmic bucket go by UID when their times differ and by the next
// rules when they are equal, so three pods can go round in a circle.
// Where every count is 0 (and no deleted pod ties with a kept one), each
// deleted pod goes before each kept pod in every comparison, and Go's sort
// then puts the same pods first for every input order: a real controller
// deletes these very pods. Where a count is above 0, another cache order
// may make the controller delete that kept pod instead; which one, no
// snapshot tells. ranks is not modified.
func Unsettled(ranks []Rank, n int, now time.Time) []int {
	n = max(0, min(n, len(ranks)))
	out := make([]int, n)
	if n == 0 || n == len(ranks) {
		return out
	}
	groups := map[orderGroup]*unsettledGroup{}
	var order []orderGroup
	for i := range ranks {
		g, c := groupOf(&ranks[i], now), classOf(&ranks[i])
		ug, ok := groups[g]
		if !ok {
			ug = &unsettledGroup{rep: i, class: c, uniform: true}
			groups[g] = ug
			order = append(order, g)
		}
		ug.uniform = ug.uniform && c == ug.class
		if i >= n {
			ug.keptIdx = append(ug.keptIdx, i)
		}
	}
	for i := range n {
		p := &ranks[i]
		g := groupOf(p, now)
		own := groups[g]
		// Kept pods of other groups: those groups' order is transitive, so
		// one pair of each tells.
		for _, h := range order {
			if h == g || len(groups[h].keptIdx) == 0 {
				continue
			}
			if !lessRanks(p, &ranks[groups[h].rep], now) {
				out[i] += len(groups[h].keptIdx)
			}
		}
		// A group of one class (a steady state's pods) ties throughout.
		if len(own.keptIdx) == 0 || own.uniform {
			continue
		}
		own.index(ranks, g.byUID)
		c := classOf(p)
		if g.byUID {
			// Pods of the group whose first time differs from p's go by UID.
			if same := own.sameFirst[c.first]; same.len() < own.kept.len() {
				out[i] += own.kept.notAbove(p.UID) - same.notAbove(p.UID)
			}
			// The rest share p's first time: class by class.
			for _, kc := range own.byFirst[c.first] {
				if kc.class != c {
					out[i] += kc.notAfter(p, now)
				}
			}
			continue
		}
		for key, kc := range own.classes {
			if key != c {
				out[i] += kc.notAfter(p, now)
			}
		}
	}
	return out
}

// orderGroup is what rules 1 to 5, and where they apply the buckets of
// rules 6 and 8, say of a pod: pods of different groups compare the same
// way whatever their UIDs and exact times, and transitively.
type orderGroup struct {
	unscheduled       bool
	phase             int
	ready             bool
	cost              int32
	onNode            int
	restarts, sidecar int   // not ready pods only
	bucket            int64 // the ready (or, not ready, creation) bucket
	// byUID: two pods of the group whose first time (ready, or for a pod
	// not ready creation) differs go by UID; the group has a bucket.
	byUID bool
}

// groupOf is the pod's group at now. A zero clock or a zero time compares
// exact times, not buckets: such pods keep one group per rules 1 to 5,
// and their pairs are compared one class at a time.
func groupOf(r *Rank, now time.Time) orderGroup {
	g := orderGroup{unscheduled: r.Node == "", phase: phaseOrder(r.Phase), ready: r.Ready, cost: r.Cost, onNode: r.OnNode}
	t := r.Created
	if r.Ready {
		t = r.ReadySince
	} else {
		g.restarts, g.sidecar = r.Restarts, r.SidecarRestarts
	}
	if now.IsZero() || t.IsZero() {
		g.bucket = -2
		return g
	}
	g.bucket, g.byUID = logBucket(now.Sub(t)), true
	return g
}

// tieClass is a pod's rank but for its UID: pods of one class tie.
type tieClass struct {
	first             moment // ReadySince when ready, else Created
	ready             moment
	restarts, sidecar int
	created           moment
}

func classOf(r *Rank) tieClass {
	c := tieClass{first: momentOf(r.Created), restarts: r.Restarts, sidecar: r.SidecarRestarts, created: momentOf(r.Created)}
	if r.Ready {
		c.first = momentOf(r.ReadySince)
		c.ready = c.first
	}
	return c
}

// moment is an instant as a map key: equal instants are equal moments
// whatever their location or monotonic reading, and it holds no pointer.
type moment struct {
	sec  int64
	nsec int
}

func momentOf(t time.Time) moment { return moment{t.Unix(), t.Nanosecond()} }

// unsettledGroup holds a group's kept pods: all their UIDs, those per first
// time, and per class.
type unsettledGroup struct {
	rep       int      // a pod of the group, to compare groups
	class     tieClass // rep's class
	uniform   bool     // every pod of the group of rep's class
	keptIdx   []int    // the group's kept pods
	indexed   bool     // the fields below are filled (index)
	kept      uidList
	sameFirst map[moment]*uidList
	classes   map[tieClass]*unsettledClass
	byFirst   map[moment][]*unsettledClass // the classes per first time
}

type unsettledClass struct {
	class tieClass
	rank  Rank // one pod of the class
	uids  uidList
}

// index fills the group's UID lists and classes from its kept pods, once.
func (ug *unsettledGroup) index(ranks []Rank, byUID bool) {
	if ug.indexed {
		return
	}
	ug.indexed = true
	ug.classes = map[tieClass]*unsettledClass{}
	for _, i := range ug.keptIdx {
		r := &ranks[i]
		c := classOf(r)
		ug.kept.add(r.UID)
		kc, ok := ug.classes[c]
		if !ok {
			kc = &unsettledClass{class: c, rank: *r}
			ug.classes[c] = kc
			if ug.byFirst == nil {
				ug.byFirst = map[moment][]*unsettledClass{}
			}
			ug.byFirst[c.first] = append(ug.byFirst[c.first], kc)
		}
		kc.uids.add(r.UID)
		if byUID {
			if ug.sameFirst == nil {
				ug.sameFirst = map[moment]*uidList{}
			}
			l := ug.sameFirst[c.first]
			if l == nil {
				l = &uidList{}
				ug.sameFirst[c.first] = l
			}
			l.add(r.UID)
		}
	}
}

// notAfter counts the class's pods the comparison does not put after p.
// The UID enters a comparison only as "the lower first", so comparing with
// the UIDs swapped tells whether the class goes after p always, never, or
// by UID.
func (kc *unsettledClass) notAfter(p *Rank, now time.Time) int {
	lo, hi := *p, kc.rank
	lo.UID, hi.UID = "a", "b"
	withLower := lessRanks(&lo, &hi, now)
	lo.UID, hi.UID = "b", "a"
	withHigher := lessRanks(&lo, &hi, now)
	switch {
	case withLower && withHigher:
		return 0
	case withLower:
		return kc.uids.notAbove(p.UID)
	case !withHigher:
		return kc.uids.len()
	}
	// Before only with the higher UID: not a comparison upstream makes;
	// count pod by pod.
	n := 0
	for _, u := range kc.uids.uids {
		q := kc.rank
		q.UID = u
		if !lessRanks(p, &q, now) {
			n++
		}
	}
	return n
}

// uidList is a set of kept pods' UIDs, sorted on first use: most
// scale-downs never need it sorted (a group whose kept pods share the
// deleted pod's first time, as a steady state's do).
type uidList struct {
	uids   []types.UID
	sorted bool
}

func (l *uidList) add(u types.UID) { l.uids, l.sorted = append(l.uids, u), false }

func (l *uidList) len() int {
	if l == nil {
		return 0
	}
	return len(l.uids)
}

// notAbove is how many of the UIDs are not above u: the pods the
// lower-UID rule does not put after the pod with UID u (an equal UID, as
// of pods without one, compares neither way).
func (l *uidList) notAbove(u types.UID) int {
	if l == nil {
		return 0
	}
	if !l.sorted {
		slices.Sort(l.uids)
		l.sorted = true
	}
	return sort.Search(len(l.uids), func(i int) bool { return l.uids[i] > u })
}
