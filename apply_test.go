package deploysync_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestApply checks that Apply stores each kind of action as an apiserver
// would, and refuses actions that do not fit the state.
func TestApply(t *testing.T) {
	base := func() deploysync.State {
		d := testutil.Deployment("foo", 2)
		d.Labels = map[string]string{"team": "blue"}
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2}
		rs := testutil.ReplicaSet("foo-1", 2, testutil.OwnedBy(d))
		rs.Status = appsv1.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
		orphan := testutil.ReplicaSet("foo-orphan", 0, testutil.OwnedBy(d))
		orphan.OwnerReferences = nil
		return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs, orphan}, Now: testutil.Epoch()}
	}
	s := base()
	created := testutil.ReplicaSet("foo-2", 1, testutil.OwnedBy(s.Deployment))
	resized := s.ReplicaSets[0].DeepCopy()
	resized.Spec.Replicas = ptr.To[int32](5)
	resized.Status = appsv1.ReplicaSetStatus{}
	rolledBack := s.Deployment.DeepCopy()
	rolledBack.Spec.Template.Spec.Containers[0].Image = "foo/bar:1"
	rolledBack.Status = appsv1.DeploymentStatus{}
	statusWrite := s.Deployment.DeepCopy()
	statusWrite.Status.ObservedGeneration = 2
	statusWrite.Annotations = map[string]string{deployutil.RevisionAnnotation: "3"}
	statusWrite.Spec.Replicas = ptr.To[int32](9)
	statusWrite.Labels = nil
	d := s.Deployment
	foreignDeleting := s.Deployment.DeepCopy()
	foreignDeleting.DeletionTimestamp = ptr.To(metav1.NewTime(testutil.Epoch()))

	tests := []struct {
		name      string
		state     deploysync.State
		actions   []action.Action
		check     func(t *testing.T, after deploysync.State)
		wantIndex int // index of the failing action, or -1
		reason    string
	}{
		{name: "create", state: s, actions: []action.Action{&action.CreateReplicaSet{ReplicaSet: created}}, wantIndex: -1,
			check: func(t *testing.T, after deploysync.State) {
				if len(after.ReplicaSets) != 3 || after.ReplicaSets[2].Name != "foo-2" || after.ReplicaSets[2] == created {
					t.Errorf("want foo-2 appended as a copy")
				}
			},
			reason: "a create appends a copy of the sent ReplicaSet"},
		{name: "create existing", state: s, actions: []action.Action{&action.Event{}, &action.CreateReplicaSet{ReplicaSet: s.ReplicaSets[0]}}, wantIndex: 1,
			reason: "a name already taken is an AlreadyExists; the plan was made for another state"},
		{name: "update", state: s, actions: []action.Action{&action.UpdateReplicaSet{ReplicaSet: resized}}, wantIndex: -1,
			check: func(t *testing.T, after deploysync.State) {
				got := after.ReplicaSets[0]
				if *got.Spec.Replicas != 5 || got.Status.AvailableReplicas != 2 {
					t.Errorf("replicas %d, available %d: want the sent spec and the stored status", *got.Spec.Replicas, got.Status.AvailableReplicas)
				}
			},
			reason: "an update takes metadata and spec; the status is the server's"},
		{name: "update missing", state: s, actions: []action.Action{&action.UpdateReplicaSet{ReplicaSet: created}}, wantIndex: 0,
			reason: "NotFound"},
		{name: "delete", state: s, actions: []action.Action{&action.DeleteReplicaSet{Name: "foo-orphan"}}, wantIndex: -1,
			check: func(t *testing.T, after deploysync.State) {
				if diff := cmp.Diff([]string{"foo-1"}, rsNames(after.ReplicaSets)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			},
			reason: "a delete removes the ReplicaSet"},
		{name: "delete missing", state: s, actions: []action.Action{&action.DeleteReplicaSet{Name: "foo-9"}}, wantIndex: 0, reason: "NotFound"},
		{name: "adopt", state: s, actions: []action.Action{&action.AdoptReplicaSet{Name: "foo-orphan", OwnerUID: d.UID}}, wantIndex: -1,
			check: func(t *testing.T, after deploysync.State) {
				if ref := metav1.GetControllerOf(after.ReplicaSets[1]); ref == nil || ref.UID != d.UID {
					t.Errorf("want the Deployment as controller, got %v", ref)
				}
			},
			reason: "the adoption patch adds the controller reference"},
		{name: "adopt missing", state: s, actions: []action.Action{&action.AdoptReplicaSet{Name: "foo-9", OwnerUID: d.UID}}, wantIndex: 0, reason: "NotFound"},
		{name: "adopt while deleting", state: deploysync.State{Deployment: foreignDeleting, ReplicaSets: s.ReplicaSets},
			actions: []action.Action{&action.AdoptReplicaSet{Name: "foo-orphan", OwnerUID: d.UID}}, wantIndex: 0,
			reason: "the adoption precondition: not while the Deployment is being deleted"},
		{name: "release", state: s, actions: []action.Action{&action.ReleaseReplicaSet{Name: "foo-1", OwnerUID: d.UID}}, wantIndex: -1,
			check: func(t *testing.T, after deploysync.State) {
				if refs := after.ReplicaSets[0].OwnerReferences; len(refs) != 0 {
					t.Errorf("owner references %v, want none", refs)
				}
			},
			reason: "the release patch removes the owner reference"},
		{name: "update deployment", state: s, actions: []action.Action{&action.UpdateDeployment{Deployment: rolledBack}}, wantIndex: -1,
			check: func(t *testing.T, after deploysync.State) {
				if after.Deployment.Spec.Template.Spec.Containers[0].Image != "foo/bar:1" || after.Deployment.Status.ObservedGeneration != 1 {
					t.Errorf("want the sent spec and the stored status")
				}
			},
			reason: "the main endpoint ignores the status sent"},
		{name: "update status", state: s, actions: []action.Action{&action.UpdateDeploymentStatus{Deployment: statusWrite}}, wantIndex: -1,
			check: func(t *testing.T, after deploysync.State) {
				got := after.Deployment
				if got.Status.ObservedGeneration != 2 || *got.Spec.Replicas != 2 || got.Labels["team"] != "blue" || got.Annotations[deployutil.RevisionAnnotation] != "3" {
					t.Errorf("want the sent status and annotations, the stored spec and labels")
				}
			},
			reason: "the status endpoint keeps spec and labels, and takes annotations"},
		{name: "event", state: s, actions: []action.Action{&action.Event{Type: corev1.EventTypeNormal}}, wantIndex: -1,
			check: func(t *testing.T, after deploysync.State) {
				if after.Deployment != s.Deployment || after.ReplicaSets[0] != s.ReplicaSets[0] {
					t.Errorf("an event changes nothing; untouched objects are shared")
				}
			},
			reason: "events are not stored in the state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.state.Deployment, tt.state.ReplicaSets)
			after, err := deploysync.Apply(tt.state, deploysync.Plan{Actions: tt.actions})
			frozen.Check(t)
			if tt.wantIndex < 0 {
				if err != nil {
					t.Fatalf("Apply: %v (%s)", err, tt.reason)
				}
				if tt.check != nil {
					tt.check(t, after)
				}
				return
			}
			var ae *deploysync.ApplyError
			if !errors.As(err, &ae) || ae.Index != tt.wantIndex || ae.Action != tt.actions[tt.wantIndex] {
				t.Fatalf("Apply = %v, want an ApplyError at action %d (%s)", err, tt.wantIndex, tt.reason)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "action ") || ae.Reason == "" {
				t.Errorf("message %q", msg)
			}
		})
	}
}

func rsNames(rss []*appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}

// TestApplyLookup: Apply finds a plan's ReplicaSets by a scan in small states
// and by an index in large ones; both give the same result for the same
// writes (an update, a delete, a create, and a create that collides).
func TestApplyLookup(t *testing.T) {
	for _, n := range []int{3, 40} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			d := testutil.Deployment("foo", 2)
			var rss []*appsv1.ReplicaSet
			for i := range n {
				rss = append(rss, testutil.ReplicaSet("foo-"+strconv.Itoa(i), 1, testutil.OwnedBy(d)))
			}
			s := deploysync.State{Deployment: d, ReplicaSets: rss, Now: testutil.Epoch()}
			resized := rss[n-1].DeepCopy()
			resized.Spec.Replicas = ptr.To[int32](7)
			created := testutil.ReplicaSet("foo-new", 2, testutil.OwnedBy(d))
			resizedNew := created.DeepCopy()
			resizedNew.Spec.Replicas = ptr.To[int32](3)
			p := deploysync.Plan{Actions: []action.Action{
				&action.UpdateReplicaSet{ReplicaSet: resized},
				&action.DeleteReplicaSet{Name: rss[1].Name},
				&action.CreateReplicaSet{ReplicaSet: created},
				&action.UpdateReplicaSet{ReplicaSet: resizedNew},
			}}
			after, err := deploysync.Apply(s, p)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, rs := range after.ReplicaSets {
				got = append(got, rs.Name+"="+strconv.Itoa(int(*rs.Spec.Replicas)))
			}
			want := []string{"foo-0=1"}
			for i := 2; i < n-1; i++ {
				want = append(want, "foo-"+strconv.Itoa(i)+"=1")
			}
			want = append(want, "foo-"+strconv.Itoa(n-1)+"=7", "foo-new=3")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ReplicaSets after (-want +got):\n%s", diff)
			}
			p.Actions = append(p.Actions, &action.CreateReplicaSet{ReplicaSet: created}, &action.DeleteReplicaSet{Name: rss[1].Name})
			var aerr *deploysync.ApplyError
			if _, err := deploysync.Apply(s, p); !errors.As(err, &aerr) || aerr.Index != 4 {
				t.Errorf("a second create of foo-new: want an ApplyError at action 4, got %v", err)
			}
		})
	}
}
