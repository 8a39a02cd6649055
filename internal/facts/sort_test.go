package facts_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestOrderings checks upstream's ReplicaSet orderings
// (pkg/controller ReplicaSetsByCreationTimestamp, BySizeOlder, BySizeNewer,
// and deployment/util ReplicaSetsByRevision), ties included: creation times
// have one-second resolution, so equal times are ordered by name.
func TestOrderings(t *testing.T) {
	base := time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC)
	rs := func(name string, size int32, age int, revision string) *appsv1.ReplicaSet {
		r := testutil.TemplateReplicaSet(testutil.ImageDeployment("x"), name, "", metav1.NewTime(base.Add(time.Duration(age)*time.Hour)))
		r.Spec.Replicas = ptr.To(size)
		if revision != "" {
			r.Annotations = map[string]string{deployutil.RevisionAnnotation: revision}
		}
		return r
	}
	// a and b were created in the same second; c later; d last.
	a, b, c, d := rs("a", 2, 0, "3"), rs("b", 2, 0, "1"), rs("c", 5, 1, "x"), rs("d", 2, 2, "2")
	in := []*appsv1.ReplicaSet{d, c, b, a}
	tests := []struct {
		name   string
		sort   func([]*appsv1.ReplicaSet) []*appsv1.ReplicaSet
		in     []*appsv1.ReplicaSet
		want   []string
		reason string
	}{
		{name: "by creation", sort: facts.SortedByCreation, in: in, want: []string{"a", "b", "c", "d"},
			reason: "oldest first; a and b tie on time and go by name"},
		{name: "newest first", sort: facts.SortedByCreationNewestFirst, in: in, want: []string{"d", "c", "b", "a"},
			reason: "the exact reverse, so tied names go descending (upstream's sort.Reverse)"},
		{name: "by size, older first", sort: facts.SortedBySizeOlder, in: in, want: []string{"c", "a", "b", "d"},
			reason: "largest first; among the 2s oldest first, a before b by name"},
		{name: "by size, newer first", sort: facts.SortedBySizeNewer, in: in, want: []string{"c", "d", "b", "a"},
			reason: "largest first; among the 2s newest first, and b before a: the tie-break is reversed, names descending"},
		{name: "by revision", sort: facts.SortedByRevision, in: []*appsv1.ReplicaSet{a, b, d}, want: []string{"b", "d", "a"},
			reason: "revisions 1, 2, 3"},
		{name: "by revision, equal", sort: facts.SortedByRevision, in: []*appsv1.ReplicaSet{rs("n", 0, 1, "1"), rs("m", 0, 2, "1")}, want: []string{"n", "m"},
			reason: "equal revisions fall back to creation order"},
		{name: "by revision, missing", sort: facts.SortedByRevision, in: []*appsv1.ReplicaSet{d, rs("none", 0, 3, "")}, want: []string{"none", "d"},
			reason: "a missing revision is revision 0"},
		{name: "by revision, unparseable", sort: facts.SortedByRevision, in: []*appsv1.ReplicaSet{c, b}, want: []string{"b", "c"},
			reason: "a revision that does not parse compares by creation time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.in)
			order := names(tt.in)
			got := tt.sort(tt.in)
			frozen.Check(t)
			if diff := cmp.Diff(order, names(tt.in)); diff != "" {
				t.Errorf("the argument was reordered:\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, names(got)); diff != "" {
				t.Errorf("(-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}
