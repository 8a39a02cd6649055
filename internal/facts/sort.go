package facts

import (
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// The orderings below are upstream's. Each sorts a fresh copy with pdqsort,
// never the caller's slice: [sort.Sort], or for the creation order
// [slices.SortFunc], the same algorithm (both are generated from one
// template; TestSortedByCreationSortSort checks that they agree even on
// ties) without an interface. ByRevision is not a strict order when
// revisions do not parse; using the same algorithm on the same input order
// keeps even that case identical to upstream.

// compareCreation orders by creation timestamp, then by name, as
// olderFirst.
func compareCreation(a, b *appsv1.ReplicaSet) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// SortedByCreation returns the ReplicaSets oldest first; on equal timestamps
// (they have one-second resolution) by name.
func SortedByCreation(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := clone(rss)
	slices.SortFunc(out, compareCreation)
	return out
}

// SortedByCreationNewestFirst returns the reverse of [SortedByCreation]:
// newest first, and on equal timestamps by name descending.
func SortedByCreationNewestFirst(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := clone(rss)
	slices.SortFunc(out, func(a, b *appsv1.ReplicaSet) int { return compareCreation(b, a) })
	return out
}

type bySizeOlder []*appsv1.ReplicaSet

func (o bySizeOlder) Len() int      { return len(o) }
func (o bySizeOlder) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o bySizeOlder) Less(i, j int) bool {
	if a, b := rsReplicas(o[i]), rsReplicas(o[j]); a != b {
		return a > b
	}
	return olderFirst(o[i], o[j])
}

// SortedBySizeOlder returns the ReplicaSets largest first; on equal sizes
// oldest first (then by name). Scaling down takes from this order.
func SortedBySizeOlder(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := clone(rss)
	sort.Sort(bySizeOlder(out))
	return out
}

type bySizeNewer []*appsv1.ReplicaSet

func (o bySizeNewer) Len() int      { return len(o) }
func (o bySizeNewer) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o bySizeNewer) Less(i, j int) bool {
	if a, b := rsReplicas(o[i]), rsReplicas(o[j]); a != b {
		return a > b
	}
	return olderFirst(o[j], o[i])
}

// SortedBySizeNewer returns the ReplicaSets largest first; on equal sizes
// newest first, and on equal timestamps by name descending. Scaling up gives
// to this order.
func SortedBySizeNewer(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := clone(rss)
	sort.Sort(bySizeNewer(out))
	return out
}

// byRevision keeps each ReplicaSet's parsed revision beside it, so Less does
// not parse annotations on every comparison.
type byRevision struct {
	rss  []*appsv1.ReplicaSet
	revs []int64
	errs []bool
}

func (o byRevision) Len() int { return len(o.rss) }
func (o byRevision) Swap(i, j int) {
	o.rss[i], o.rss[j] = o.rss[j], o.rss[i]
	o.revs[i], o.revs[j] = o.revs[j], o.revs[i]
	o.errs[i], o.errs[j] = o.errs[j], o.errs[i]
}
func (o byRevision) Less(i, j int) bool {
	if o.errs[i] || o.errs[j] || o.revs[i] == o.revs[j] {
		return olderFirst(o.rss[i], o.rss[j])
	}
	return o.revs[i] < o.revs[j]
}

// SortedByRevision returns the ReplicaSets by revision, lowest first. Equal
// revisions, and any comparison involving a revision that does not parse,
// fall back to creation order.
func SortedByRevision(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	o := byRevision{rss: clone(rss), revs: make([]int64, len(rss)), errs: make([]bool, len(rss))}
	for i, rs := range o.rss {
		rev, err := deployutil.Revision(rs)
		o.revs[i], o.errs[i] = rev, err != nil
	}
	sort.Sort(o)
	return o.rss
}

func clone(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	return append([]*appsv1.ReplicaSet(nil), rss...)
}

// olderFirst orders by creation timestamp, then by name.
func olderFirst(a, b *appsv1.ReplicaSet) bool {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.Name < b.Name
	}
	return a.CreationTimestamp.Before(&b.CreationTimestamp)
}
