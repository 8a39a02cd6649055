package e2e

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// TestCheckReleased checks checkReleased on the world every flavour
// settles in after the release, and on the one a settle that returned
// before the controller reacted snapshotted (the flaky difference).
func TestCheckReleased(t *testing.T) {
	d := newDeployment(2, "web:1")
	d.Namespace = "ns"
	old := deployutil.ReplicaSetName(dName, deployutil.ComputeHash(&d.Spec.Template, nil))
	next := deployutil.ReplicaSetName(dName, deployutil.ComputeHash(&d.Spec.Template, ptr.To[int32](1)))
	tests := []struct {
		name      string
		collision *int32
		rss       []rsView
		want      []string // substrings of the problems, in order
		reason    string
	}{
		{name: "settled", collision: ptr.To[int32](1),
			rss:    []rsView{{Name: old, Replicas: 2, Image: "web:1"}, {Name: next, Controlled: true, Replicas: 2, Image: "web:1"}},
			reason: "released, collisionCount 1, the new ReplicaSet at full size: nothing wrong"},
		{name: "snapshotted before the controller reacted",
			rss:    []rsView{{Name: old, Controlled: true, Replicas: 2, Image: "web:1"}},
			want:   []string{"collisionCount nil, want 1", "controlled replicaset " + old, "released replicaset " + old + ": controlled true"},
			reason: "the world of a settle that did not wait for the relabel: still controlled, no collision"},
		{name: "new ReplicaSet not at full size", collision: ptr.To[int32](1),
			rss:    []rsView{{Name: old, Replicas: 2, Image: "web:1"}, {Name: next, Controlled: true, Replicas: 1, Image: "web:1"}},
			want:   []string{"controlled replicaset " + next + " has 1 replicas"},
			reason: "a rollout that has not finished"},
		{name: "released ReplicaSet deleted", collision: ptr.To[int32](1),
			rss:    []rsView{{Name: next, Controlled: true, Replicas: 2, Image: "web:1"}},
			want:   []string{"released replicaset " + old + " is gone"},
			reason: "nothing may delete a ReplicaSet the Deployment no longer controls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			stored := d.DeepCopy()
			stored.Status.CollisionCount = tt.collision
			r := &run{t: t, ctx: context.Background(), client: fake.NewClientset(stored), ns: "ns"}
			w := world{Deployment: deploymentView{Image: "web:1"}, ReplicaSets: tt.rss}
			got := checkReleased(r, w)
			if len(got) != len(tt.want) {
				t.Fatalf("problems %q, want %d (%s)", got, len(tt.want), tt.reason)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q (%s)", i, got[i], tt.want[i], tt.reason)
				}
			}
		})
	}
}
