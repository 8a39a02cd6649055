package facts

import (
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// byCreationOracle is the creation order as upstream sorts it: sort.Sort
// on an interface whose Less is olderFirst.
type byCreationOracle []*appsv1.ReplicaSet

func (o byCreationOracle) Len() int           { return len(o) }
func (o byCreationOracle) Swap(i, j int)      { o[i], o[j] = o[j], o[i] }
func (o byCreationOracle) Less(i, j int) bool { return olderFirst(o[i], o[j]) }

// TestSortedByCreationSortSort: the creation orders give the very order
// sort.Sort gives, element by element (by pointer), also where the order is
// not strict (a name twice with one timestamp: states Sync refuses, which
// the rolling and scaling packages may still be given).
func TestSortedByCreationSortSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ties := 0
	for range 3000 {
		n := r.IntN(40)
		rss := make([]*appsv1.ReplicaSet, n)
		for i := range rss {
			rss[i] = &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
				Name:              "rs-" + strconv.Itoa(r.IntN(4)),
				CreationTimestamp: metav1.NewTime(base.Add(time.Duration(r.IntN(4)) * time.Second)),
			}}
		}
		want := append(byCreationOracle(nil), rss...)
		sort.Sort(want)
		wantRev := append(byCreationOracle(nil), rss...)
		sort.Sort(sort.Reverse(wantRev))
		got, gotRev := SortedByCreation(rss), SortedByCreationNewestFirst(rss)
		for i := range rss {
			if got[i] != want[i] || gotRev[i] != wantRev[i] {
				t.Fatalf("n=%d: position %d differs from sort.Sort's order", n, i)
			}
			if i > 0 && !olderFirst(want[i-1], want[i]) && !olderFirst(want[i], want[i-1]) {
				ties++
			}
		}
	}
	if ties == 0 {
		t.Fatal("no tie was drawn")
	}
}
