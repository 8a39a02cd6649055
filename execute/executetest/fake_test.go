package executetest

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/facts"
)

func objects() (*appsv1.Deployment, *appsv1.ReplicaSet) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "d-uid", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](3)}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", UID: "rs-uid"},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1)}, Status: appsv1.ReplicaSetStatus{Replicas: 1}}
	return d, rs
}

// TestFake checks the server behaviours the Fake models, one call per row
// after the given setup calls.
func TestFake(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		faults []Fault
		// call makes the calls and returns the last one's error.
		call   func(f *Fake) error
		errIs  func(error) bool // nil: success
		check  func(t *testing.T, f *Fake)
		reason string
	}{
		{
			name: "update with the stored resourceVersion",
			call: func(f *Fake) error {
				rs := f.State("ns", "web").ReplicaSets[0]
				rs.Spec.Replicas = ptr.To[int32](2)
				rs.Status.Replicas = 9
				_, err := f.UpdateReplicaSet(ctx, rs)
				return err
			},
			check: func(t *testing.T, f *Fake) {
				rs := f.State("ns", "web").ReplicaSets[0]
				if *rs.Spec.Replicas != 2 || rs.Status.Replicas != 1 || rs.ResourceVersion != "3" {
					t.Errorf("stored replicas %d, status %d, resourceVersion %s; want 2, the stored 1, and 3", *rs.Spec.Replicas, rs.Status.Replicas, rs.ResourceVersion)
				}
			},
			reason: "an update takes metadata and spec, keeps the stored status, and bumps the resourceVersion (the objects got 1 and 2)",
		},
		{
			name: "update with a stale resourceVersion",
			call: func(f *Fake) error {
				rs := f.State("ns", "web").ReplicaSets[0]
				rs.ResourceVersion = "1"
				_, err := f.UpdateReplicaSet(ctx, rs)
				return err
			},
			errIs:  apierrors.IsConflict,
			reason: "another resourceVersion than the stored one is a 409, as the apiserver's optimistic concurrency",
		},
		{
			name: "status update keeps spec and labels",
			call: func(f *Fake) error {
				d := f.State("ns", "web").Deployment
				d.Spec.Replicas = ptr.To[int32](7)
				d.Labels = nil
				d.Annotations = map[string]string{"a": "b"}
				d.Status.Replicas = 5
				_, err := f.UpdateDeploymentStatus(ctx, d)
				return err
			},
			check: func(t *testing.T, f *Fake) {
				d := f.State("ns", "web").Deployment
				if *d.Spec.Replicas != 3 || d.Labels["app"] != "web" || d.Annotations["a"] != "b" || d.Status.Replicas != 5 {
					t.Errorf("stored %+v", d)
				}
			},
			reason: "the status endpoint keeps the stored spec and labels and takes status and the rest of the metadata (upstream's deploymentStatusStrategy)",
		},
		{
			name: "create of a taken name",
			call: func(f *Fake) error {
				_, rs := objects()
				_, err := f.CreateReplicaSet(ctx, rs)
				return err
			},
			errIs:  apierrors.IsAlreadyExists,
			reason: "a name is taken once",
		},
		{
			name:  "delete with another UID",
			call:  func(f *Fake) error { return f.DeleteReplicaSet(ctx, "ns", "web-1", "other") },
			errIs: apierrors.IsConflict,
			check: func(t *testing.T, f *Fake) {
				if len(f.State("ns", "web").ReplicaSets) != 1 {
					t.Error("the ReplicaSet was deleted")
				}
			},
			reason: "the UID precondition of a delete fails with 409",
		},
		{
			name: "adoption patch with another uid",
			call: func(f *Fake) error {
				d, _ := objects()
				_, err := f.PatchReplicaSet(ctx, "ns", "web-1", types.StrategicMergePatchType, facts.AdoptPatch(d, "other"))
				return err
			},
			errIs:  apierrors.IsInvalid,
			reason: "the patch's metadata.uid is not the stored one: Invalid, as the apiserver answers (and upstream ignores for a release)",
		},
		{
			name: "adoption then release",
			call: func(f *Fake) error {
				d, _ := objects()
				f.replicaSets["ns/web-1"].OwnerReferences = nil
				if _, err := f.PatchReplicaSet(ctx, "ns", "web-1", types.StrategicMergePatchType, facts.AdoptPatch(d, "rs-uid")); err != nil {
					return err
				}
				if ref := metav1.GetControllerOf(f.State("ns", "web").ReplicaSets[0]); ref == nil || ref.UID != "d-uid" {
					t.Errorf("after the adoption the controller is %v", ref)
				}
				_, err := f.PatchReplicaSet(ctx, "ns", "web-1", types.StrategicMergePatchType, facts.ReleasePatch("rs-uid", "d-uid"))
				return err
			},
			check: func(t *testing.T, f *Fake) {
				if refs := f.State("ns", "web").ReplicaSets[0].OwnerReferences; len(refs) != 0 {
					t.Errorf("after the release the owner references are %v", refs)
				}
			},
			reason: "the library's adoption and release patches add and remove the controller reference",
		},
		{
			name:   "fault on the Nth write counts every write method",
			faults: []Fault{{N: 2, Kind: Conflict}},
			call: func(f *Fake) error {
				if _, err := f.GetDeployment(ctx, "ns", "web"); err != nil {
					return err
				}
				rs := f.State("ns", "web").ReplicaSets[0]
				if _, err := f.UpdateReplicaSet(ctx, rs); err != nil {
					return err
				}
				_, err := f.UpdateDeploymentStatus(ctx, f.State("ns", "web").Deployment)
				return err
			},
			errIs:  apierrors.IsConflict,
			reason: "the read is not a write; the ReplicaSet update is write 1, the status write 2",
		},
		{
			name:   "fault on the Nth call of one method",
			faults: []Fault{{Call: "UpdateReplicaSet", N: 2, Kind: InternalError}},
			call: func(f *Fake) error {
				for range 2 {
					if _, err := f.UpdateReplicaSet(ctx, f.State("ns", "web").ReplicaSets[0]); err != nil {
						return err
					}
				}
				return nil
			},
			errIs: apierrors.IsInternalError,
			check: func(t *testing.T, f *Fake) {
				if rv := f.State("ns", "web").ReplicaSets[0].ResourceVersion; rv != "3" {
					t.Errorf("resourceVersion %s, want 3: the failed write must not happen", rv)
				}
			},
			reason: "only the second update fails, and does not write",
		},
		{
			name:   "timeout after the write",
			faults: []Fault{{Call: "UpdateReplicaSet", N: 1, Kind: TimeoutAfterWrite}},
			call: func(f *Fake) error {
				rs := f.State("ns", "web").ReplicaSets[0]
				rs.Spec.Replicas = ptr.To[int32](4)
				out, err := f.UpdateReplicaSet(ctx, rs)
				if out != nil {
					t.Errorf("answered %v with the timeout, want nil as a client does", out)
				}
				return err
			},
			errIs: apierrors.IsTimeout,
			check: func(t *testing.T, f *Fake) {
				if n := *f.State("ns", "web").ReplicaSets[0].Spec.Replicas; n != 4 {
					t.Errorf("stored replicas %d, want 4: the write took effect", n)
				}
			},
			reason: "the write is stored, the answer is a 504 Timeout",
		},
		{
			name:   "NotFound fault",
			faults: []Fault{{Call: "GetDeployment", N: 1, Kind: NotFound}},
			call: func(f *Fake) error {
				_, err := f.GetDeployment(ctx, "ns", "web")
				return err
			},
			errIs:  apierrors.IsNotFound,
			reason: "a read can be made to miss the object",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			d, rs := objects()
			f := New([]*appsv1.Deployment{d}, []*appsv1.ReplicaSet{rs}, tt.faults...)
			err := tt.call(f)
			if tt.errIs == nil && err != nil || tt.errIs != nil && !tt.errIs(err) {
				t.Errorf("error = %v (%s)", err, tt.reason)
			}
			if tt.check != nil {
				tt.check(t, f)
			}
		})
	}
}
