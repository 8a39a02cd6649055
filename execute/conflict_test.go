package execute_test

import (
	"errors"
	"math"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/execute"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

func TestResolveAlreadyExists(t *testing.T) {
	ours := func() *appsv1.ReplicaSet {
		return scenarios.ReplicaSet(scenarios.Steady("web-x", "nginx:1", 1, "1", 0))
	}
	tests := []struct {
		name      string
		existing  func() *appsv1.ReplicaSet
		collision *int32
		wantOurs  bool
		wantCount int32
		reason    string
	}{
		{name: "ours", existing: ours, wantOurs: true,
			reason: "controlled by the Deployment with its template: upstream carries on with it"},
		{name: "other template", existing: func() *appsv1.ReplicaSet {
			rs := ours()
			rs.Spec.Template = scenarios.Template("nginx:2")
			return rs
		}, wantCount: 1, reason: "same owner, other template: a collision; nil collisionCount becomes 1"},
		{name: "orphan", existing: func() *appsv1.ReplicaSet {
			rs := ours()
			rs.OwnerReferences = nil
			return rs
		}, collision: ptr.To[int32](4), wantCount: 5, reason: "not controlled by the Deployment: a collision; 4 becomes 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			d := scenarios.Deployment(3)
			d.Status.CollisionCount = tt.collision
			rs := tt.existing()
			frozen := testutil.Freeze(t, d, rs)
			p, err := execute.ResolveAlreadyExists(d, rs)
			frozen.Check(t)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantOurs {
				if len(p.Actions) != 0 || p.Err != nil || !p.Requeue {
					t.Fatalf("want an empty plan asking for a requeue, got %s", p)
				}
				return
			}
			var hc *deploysync.HashCollisionError
			if !errors.As(p.Err, &hc) || hc.CollisionCount != tt.wantCount || hc.Name != rs.Name {
				t.Fatalf("Err = %v, want a HashCollisionError with count %d", p.Err, tt.wantCount)
			}
			st, ok := p.Actions[0].(*action.UpdateDeploymentStatus)
			if len(p.Actions) != 1 || !ok || *st.Deployment.Status.CollisionCount != tt.wantCount {
				t.Fatalf("want one status update with collisionCount %d, got %s", tt.wantCount, p)
			}
		})
	}
	if _, err := execute.ResolveAlreadyExists(nil, nil); err == nil {
		t.Error("nil arguments accepted")
	}
	d := scenarios.Deployment(3)
	d.Status.CollisionCount = ptr.To[int32](math.MaxInt32)
	foreign := scenarios.ReplicaSet(scenarios.RS{Name: "web-x", Image: "busybox", Owner: "foreign"})
	// Upstream increments the int32 in place: 2³¹−1 + 1 is −2³¹ in its
	// status write (conformance/suite/contract_test.go runs upstream on it).
	p, err := execute.ResolveAlreadyExists(d, foreign)
	var hc *deploysync.HashCollisionError
	if err != nil || !errors.As(p.Err, &hc) || hc.CollisionCount != math.MinInt32 {
		t.Fatalf("a collision at collisionCount 2^31-1 gave %v, %v; want collisionCount -2147483648", p, err)
	}
	if st, ok := p.Actions[0].(*action.UpdateDeploymentStatus); !ok || *st.Deployment.Status.CollisionCount != math.MinInt32 {
		t.Errorf("want a status update with collisionCount -2147483648, got %s", p)
	}
}
