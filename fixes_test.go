package deploysync_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
)

// fxFixNow is the time of the fixes' states.
var fxFixNow = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// fxWeb is the Deployment "web" of the fixes' tests: RollingUpdate with the
// given fenceposts, image of its template as given, revision as given,
// observed and with a status matching its ReplicaSets (filled in by
// fxWebState).
func fxWeb(replicas int32, surge, unavailable intstr.IntOrString, image, revision string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: metav1.NamespaceDefault, UID: "web-uid", Generation: 2,
			Annotations: map[string]string{deployutil.RevisionAnnotation: revision}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1},
	}
}

// fxWebRS is a ReplicaSet of d with d's template but the given image,
// named by its pod-template-hash, created age before fxFixNow, with the
// given size, available pods, revision and replica annotations.
func fxWebRS(d *appsv1.Deployment, image string, age time.Duration, size, available int32, revision, desired, maxReplicas string) *appsv1.ReplicaSet {
	tpl := *d.Spec.Template.DeepCopy()
	tpl.Spec.Containers[0].Image = image
	hash := deployutil.ComputeHash(&tpl, nil)
	tpl.Labels = map[string]string{"app": "web", deployutil.PodTemplateHashLabel: hash}
	name := deployutil.ReplicaSetName(d.Name, hash)
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: d.Namespace, UID: types.UID(name + "-uid"), Generation: 1, Labels: tpl.Labels,
			CreationTimestamp: metav1.NewTime(fxFixNow.Add(-age)),
			Annotations: map[string]string{deployutil.RevisionAnnotation: revision,
				deployutil.DesiredReplicasAnnotation: desired, deployutil.MaxReplicasAnnotation: maxReplicas},
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(size), Selector: &metav1.LabelSelector{MatchLabels: tpl.Labels}, Template: tpl},
		Status: appsv1.ReplicaSetStatus{Replicas: size, FullyLabeledReplicas: size, ReadyReplicas: available, AvailableReplicas: available,
			ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
	}
}

// fxWebState is d with its ReplicaSets at fxFixNow; d's status counts them.
func fxWebState(d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) deploysync.State {
	for _, rs := range rss {
		d.Status.Replicas += rs.Status.Replicas
		d.Status.ReadyReplicas += rs.Status.ReadyReplicas
		d.Status.AvailableReplicas += rs.Status.AvailableReplicas
	}
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: fxFixNow}
}

// fxSizes maps each ReplicaSet of a state to its size.
func fxSizes(s deploysync.State) map[string]int32 {
	out := map[string]int32{}
	for _, rs := range s.ReplicaSets {
		out[rs.Name] = *rs.Spec.Replicas
	}
	return out
}

// fxStaleState is the stale desired-replicas bug: the template changed to nginx:2;
// the only ReplicaSet is the old one (nginx:1) with the 3 replicas the
// Deployment asks for, but its desired-replicas annotation says 2.
func fxStaleState() (deploysync.State, *appsv1.ReplicaSet) {
	d := fxWeb(3, intstr.FromString("25%"), intstr.FromString("25%"), "nginx:2", "1")
	old := fxWebRS(d, "nginx:1", time.Hour, 3, 3, "1", "2", "3")
	return fxWebState(d, old), old
}

// TestSyncFixStaleDesiredReplicas runs the B.7 state through two syncs
// each way. Without the fix both are scaling events that write no
// ReplicaSet: the rollout never starts. With FixStaleDesiredReplicas the
// first sync rewrites the old ReplicaSet's annotations (desired 3, max 3 +
// surge 1) at the same size and with no ScalingReplicaSet event; the second
// is a RollingUpdate that creates the new ReplicaSet with 1 replica (4
// allowed, 3 running).
func TestSyncFixStaleDesiredReplicas(t *testing.T) {
	s, old := fxStaleState()
	newName := deployutil.ReplicaSetName("web", deployutil.ComputeHash(&s.Deployment.Spec.Template, nil))

	t.Run("fix off", func(t *testing.T) {
		cur := s
		for i := 0; i < 2; i++ {
			plan, after := syncAndApply(t, cur)
			if plan.Branch != deploysync.ScalingEvent {
				t.Errorf("sync %d: branch %s, want ScalingEvent (the stale annotation keeps it one)", i, plan.Branch)
			}
			for _, line := range fxSummary(plan.Actions) {
				if !strings.HasPrefix(line, "update deployment status") {
					t.Errorf("sync %d: %q; upstream writes only the status (trace B.7)", i, line)
				}
			}
			if got := after.ReplicaSets[0].Annotations[deployutil.DesiredReplicasAnnotation]; got != "2" {
				t.Errorf("sync %d: desired-replicas %q, want it left at 2", i, got)
			}
			cur = after
		}
	})

	t.Run("fix on", func(t *testing.T) {
		fix := deploysync.WithFixes(deploysync.FixStaleDesiredReplicas)
		plan, after := syncAndApply(t, s, fix)
		if plan.Branch != deploysync.ScalingEvent {
			t.Errorf("first sync: branch %s, want ScalingEvent", plan.Branch)
		}
		want := []string{"update replicaset " + old.Name + " 3", "update deployment status web"}
		if diff := cmp.Diff(want, fxSummary(plan.Actions)); diff != "" {
			t.Errorf("first sync (-want +got):\n%s\n%s", diff, plan)
		}
		for _, a := range plan.Actions {
			if u, ok := a.(*action.UpdateReplicaSet); ok && !strings.Contains(u.Explain(), "StaleDesiredReplicas") {
				t.Errorf("the refresh's reason %q does not name the fix", u.Explain())
			}
		}
		ann := after.ReplicaSets[0].Annotations
		if ann[deployutil.DesiredReplicasAnnotation] != "3" || ann[deployutil.MaxReplicasAnnotation] != "4" || ann[deployutil.RevisionAnnotation] != "1" {
			t.Errorf("annotations after the first sync: %v; want desired 3, max 4, revision 1 kept", ann)
		}

		plan, after = syncAndApply(t, after, fix)
		if plan.Branch != deploysync.RollingUpdate {
			t.Errorf("second sync: branch %s, want RollingUpdate", plan.Branch)
		}
		if diff := cmp.Diff(map[string]int32{old.Name: 3, newName: 1}, fxSizes(after)); diff != "" {
			t.Errorf("second sync: sizes (-want +got):\n%s\n%s", diff, plan)
		}
	})
}

// fxUnhealthyState is the scale-down of kubernetes/kubernetes#119536 in
// numbers: spec.replicas went 10 → 6 (maxSurge 2, maxUnavailable 0) while
// three ReplicaSets hold 4 each: the oldest (nginx:1) all available, the
// middle one (nginx:2, a broken release) none available, the new one
// (nginx:3) all available.
func fxUnhealthyState() (s deploysync.State, v1, v2, v3 *appsv1.ReplicaSet) {
	d := fxWeb(6, intstr.FromInt32(2), intstr.FromInt32(0), "nginx:3", "3")
	v1 = fxWebRS(d, "nginx:1", 3*time.Hour, 4, 4, "1", "10", "12")
	v2 = fxWebRS(d, "nginx:2", 2*time.Hour, 4, 0, "2", "10", "12")
	v3 = fxWebRS(d, "nginx:3", time.Hour, 4, 4, "3", "10", "12")
	return fxWebState(d, v1, v2, v3), v1, v2, v3
}

// TestSyncFixUnhealthyFirst syncs the scale-down 12 → 8 (replicas +
// maxSurge) once each way. Upstream (its proportional scale)
// takes one replica from each ReplicaSet and the leftover from the oldest:
// 2, 3, 3 — three of the eight available pods go and three unavailable
// ones stay. With FixUnhealthyFirst the broken ReplicaSet gives up its 4
// unavailable replicas and nothing else is needed: 4, 0, 4. Every active
// ReplicaSet is written either way (its annotations say 10/12, now 6/8).
func TestSyncFixUnhealthyFirst(t *testing.T) {
	s, v1, v2, v3 := fxUnhealthyState()
	tests := []struct {
		name   string
		opts   []deploysync.Option
		want   map[string]int32
		events []string
		reason string
	}{
		{name: "fix off", want: map[string]int32{v1.Name: 2, v2.Name: 3, v3.Name: 3},
			events: []string{
				"event Normal ScalingReplicaSet Scaled down replica set " + v1.Name + " from 4 to 2",
				"event Normal ScalingReplicaSet Scaled down replica set " + v2.Name + " from 4 to 3",
				"event Normal ScalingReplicaSet Scaled down replica set " + v3.Name + " from 4 to 3",
			},
			reason: "upstream: round(4 × 8/12) = 3 for each, the leftover 1 from the first visited (largest, oldest on ties)"},
		{name: "fix on", opts: []deploysync.Option{deploysync.WithFixes(deploysync.FixUnhealthyFirst)},
			want:   map[string]int32{v1.Name: 4, v2.Name: 0, v3.Name: 4},
			events: []string{"event Normal ScalingReplicaSet Scaled down replica set " + v2.Name + " from 4 to 0"},
			reason: "the 4 unavailable replicas of the broken old ReplicaSet cover the whole scale-down of 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, after := syncAndApply(t, s, tt.opts...)
			if plan.Branch != deploysync.ScalingEvent {
				t.Errorf("branch %s, want ScalingEvent", plan.Branch)
			}
			if diff := cmp.Diff(tt.want, fxSizes(after)); diff != "" {
				t.Errorf("sizes (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			var events []string
			updates := 0
			for _, line := range fxSummary(plan.Actions) {
				switch {
				case strings.HasPrefix(line, "event "):
					events = append(events, line)
				case strings.HasPrefix(line, "update replicaset "):
					updates++
				}
			}
			if diff := cmp.Diff(tt.events, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if updates != 3 {
				t.Errorf("%d ReplicaSet updates, want all 3 (annotations 10/12 become 6/8)", updates)
			}
			for _, rs := range after.ReplicaSets {
				if rs.Annotations[deployutil.DesiredReplicasAnnotation] != "6" || rs.Annotations[deployutil.MaxReplicasAnnotation] != "8" {
					t.Errorf("%s annotations %v, want desired 6, max 8", rs.Name, rs.Annotations)
				}
			}
		})
	}
}

// TestSyncUnknownFix checks that Sync refuses a Fix it does not know,
// naming it and the known ones, and returns no plan; the known ones are
// accepted.
func TestSyncUnknownFix(t *testing.T) {
	s, _ := fxStaleState()
	plan, err := deploysync.Sync(s, deploysync.WithFixes(deploysync.FixUnhealthyFirst, "NoSuchFix"))
	if err == nil {
		t.Fatalf("Sync with an unknown fix: no error, plan %s", plan)
	}
	if !strings.Contains(err.Error(), `"NoSuchFix"`) || !strings.Contains(err.Error(), string(deploysync.FixStaleDesiredReplicas)) {
		t.Errorf("error %q should name the unknown fix and the known ones", err)
	}
	if len(plan.Actions) != 0 {
		t.Errorf("plan with %d actions alongside the error", len(plan.Actions))
	}
	if _, err := deploysync.Sync(s, deploysync.WithFixes(deploysync.Fixes()...)); err != nil {
		t.Errorf("Sync with every known fix: %v", err)
	}
}
