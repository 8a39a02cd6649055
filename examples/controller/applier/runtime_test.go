package applier

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/execute"
)

// TestRuntimeMatchesInMemoryApply performs real plans of deploysync.Sync
// with execute.Plan through the controller-runtime implementation, on
// controller-runtime's fake client (which refuses stale resourceVersions
// and keeps status and spec apart, as the apiserver's subresources do), and
// checks that it ends where deploysync.Apply says the plan leads, with the
// plan's events recorded.
func TestRuntimeMatchesInMemoryApply(t *testing.T) {
	tests := []struct {
		name   string
		state  func() deploysync.State
		want   []string
		reason string
	}{
		{name: "new Deployment", state: func() deploysync.State { return deploysync.State{Deployment: deployment()} },
			want: []string{"create", "event", "status"}, reason: "create, event, status: Create and Status().Update"},
		{name: "adopt, then scale", state: func() deploysync.State {
			d := deployment()
			return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{replicaSet(d, "nginx:1", 1, "", orphan)}}
		}, want: []string{"adopt", "update-rs", "event", "status"},
			reason: "a strategic merge patch, then an update of the same ReplicaSet carrying the patch's resourceVersion"},
		{name: "release", state: func() deploysync.State {
			d := deployment(complete)
			stray := replicaSet(d, "nginx:0", 0, "1", func(rs *appsv1.ReplicaSet) { rs.Labels = map[string]string{"app": "other"} })
			return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{replicaSet(d, "nginx:1", 3, "2"), stray}}
		}, want: []string{"release"}, reason: "the release patch deletes the owner reference by UID"},
		{name: "history cleanup", state: func() deploysync.State {
			d := deployment(complete, func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](0) })
			return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{
				replicaSet(d, "nginx:0", 0, "1"), replicaSet(d, "nginx:1", 3, "2"),
			}}
		}, want: []string{"delete"}, reason: "a delete with the UID precondition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			st := tt.state()
			st.Now = now
			plan, err := deploysync.Sync(st)
			if err != nil {
				t.Fatal(err)
			}
			if got := kinds(plan); !cmp.Equal(got, tt.want) {
				t.Fatalf("plan kinds = %v, want %v (%s)", got, tt.want, tt.reason)
			}
			want, err := deploysync.Apply(st, plan)
			if err != nil {
				t.Fatal(err)
			}
			objs := []client.Object{st.Deployment.DeepCopy()}
			for _, rs := range st.ReplicaSets {
				objs = append(objs, rs.DeepCopy())
			}
			c := ctrlfake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(objs...).
				WithStatusSubresource(&appsv1.Deployment{}, &appsv1.ReplicaSet{}).Build()
			rec := record.NewFakeRecorder(10)
			res, err := execute.Plan(context.Background(), &Runtime{Client: c, APIReader: c, Recorder: rec}, st, plan)
			if err != nil {
				t.Fatalf("execute.Plan: %v (%s)", err, tt.reason)
			}
			if len(res.Done) != len(plan.Actions) {
				t.Errorf("%d of %d actions done", len(res.Done), len(plan.Actions))
			}
			var ds appsv1.DeploymentList
			var rss appsv1.ReplicaSetList
			if err := c.List(context.Background(), &ds); err != nil || len(ds.Items) != 1 {
				t.Fatalf("listing deployments: %v (%d)", err, len(ds.Items))
			}
			if err := c.List(context.Background(), &rss); err != nil {
				t.Fatal(err)
			}
			got := deploysync.State{Deployment: &ds.Items[0]}
			for i := range rss.Items {
				got.ReplicaSets = append(got.ReplicaSets, &rss.Items[i])
			}
			// controller-runtime's fake Status().Update stores only the
			// status; the apiserver's status strategy keeps the sent
			// metadata but labels (pkg/registry/apps/deployment), so the
			// revision annotation travels with it there. The client-go
			// test above compares the annotations; this one cannot.
			w, g := summarize(want), summarize(got)
			w.DeploymentAnnotations, g.DeploymentAnnotations = nil, nil
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("fake client's state differs from deploysync.Apply (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(planEvents(plan), recorded(rec)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
