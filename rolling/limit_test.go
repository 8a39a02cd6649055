package rolling_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/rolling"
)

// TestLimitStep: 10 replicas, maxSurge 3, maxUnavailable 2, one old
// ReplicaSet (foo-v1) and the new one (foo-v2), limit 3 unless said.
func TestLimitStep(t *testing.T) {
	type rs struct{ spec, avail int32 }
	tests := []struct {
		name     string
		max      int32
		old, new rs
		want     map[string]int32 // ReplicaSet → size written; nil: no write
		named    bool             // the reason names the limit
		reason   string
	}{
		{name: "grow to the limit", old: rs{10, 10}, new: rs{0, 0}, want: map[string]int32{"foo-v2": 3},
			reason: "maxSurge room is 13 − 10 = 3 and the limit is 3: both allow 3; maxSurge decided"},
		{name: "limit stops growth", max: 2, old: rs{10, 10}, new: rs{0, 0}, want: map[string]int32{"foo-v2": 2}, named: true,
			reason: "maxSurge would allow 3, the limit 2 holds it"},
		{name: "old shrinks to replicas − limit", old: rs{10, 10}, new: rs{3, 3}, want: map[string]int32{"foo-v1": 7}, named: true,
			reason: "13 available, 8 must stay: upstream would take 5 from foo-v1; the limit keeps 10 − 3 = 7"},
		{name: "old shrink within maxUnavailable", old: rs{10, 10}, new: rs{3, 0}, want: map[string]int32{"foo-v1": 8},
			reason: "10 available, 8 must stay: 2 may go, fewer than the 3 the limit allows; maxUnavailable decided"},
		{name: "held", old: rs{7, 7}, new: rs{3, 3}, want: nil,
			reason: "the new ReplicaSet is at the limit and the old one at 10 − 3: nothing to do"},
		{name: "lowered: old grows back", old: rs{2, 2}, new: rs{8, 8}, want: map[string]int32{"foo-v1": 5}, named: true,
			reason: "the old side needs 10 − 3 = 7 and has 2; maxSurge room is 13 − 10 = 3"},
		{name: "lowered: new shrinks", old: rs{5, 2}, new: rs{8, 8}, want: map[string]int32{"foo-v2": 6}, named: true,
			reason: "no surge room (13 pods); 10 available, 8 must stay: 2 of foo-v2's 5 above the limit go"},
		{name: "lowered: unavailable new replicas go first", old: rs{5, 5}, new: rs{8, 4}, want: map[string]int32{"foo-v2": 3}, named: true,
			reason: "5 above the limit: foo-v2's 4 unavailable replicas go at no cost, then 9 available − 8 that must stay = 1 available one"},
		{name: "lowered: availability holds the rest", old: rs{5, 4}, new: rs{8, 4}, want: map[string]int32{"foo-v2": 4}, named: true,
			reason: "8 available and 8 must stay: only foo-v2's 4 unavailable replicas go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			max := tt.max
			if max == 0 {
				max = 3
			}
			d := testutil.Deployment("foo", 10, testutil.Fenceposts(3, 2))
			old, nw := testutil.ReplicaSet("foo-v1", tt.old.spec, testutil.Status(tt.old.spec, tt.old.avail, tt.old.avail)), testutil.ReplicaSet("foo-v2", tt.new.spec, testutil.Status(tt.new.spec, tt.new.avail, tt.new.avail))
			old.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
			nw.Annotations = map[string]string{"deployment.kubernetes.io/revision": "2"}
			l := rolling.Limit{Max: max, Name: "maxUpdated 30%"}
			scales, err := rolling.LimitStep(d, []*appsv1.ReplicaSet{old, nw}, []*appsv1.ReplicaSet{old}, nw, l)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int32{}
			for _, s := range scales {
				got[s.To.Name] = *s.To.Spec.Replicas
				if named := strings.Contains(s.Why.String(), "maxUpdated 30%"); named != tt.named {
					t.Errorf("reason %q names the limit: %v, want %v", s.Why, named, tt.named)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("wrote %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("wrote %v, want %v", got, tt.want)
				}
			}
		})
	}
}
