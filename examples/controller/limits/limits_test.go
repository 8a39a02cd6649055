package limits

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/execute"
)

// user is a Deployment as its user wrote it: RollingUpdate 25%/1, not
// paused, a deadline of 600s.
func user() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Annotations: map[string]string{Annotation: "30%", "team": "a"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](10),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

func mustDisguise(t *testing.T, d *appsv1.Deployment) *appsv1.Deployment {
	t.Helper()
	out, err := Disguise(d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLimit(t *testing.T) {
	tests := []struct {
		name   string
		ann    map[string]string
		want   *intstr.IntOrString
		ok     bool
		reason string
	}{
		{name: "none", reason: "no annotation: no limit, the Deployment is kube-controller-manager's"},
		{name: "percent", ann: map[string]string{Annotation: "30%"}, want: ptr.To(intstr.FromString("30%")), ok: true,
			reason: "a percentage is passed as a string, resolved by Sync against spec.replicas"},
		{name: "int", ann: map[string]string{Annotation: "3"}, want: ptr.To(intstr.FromInt32(3)), ok: true,
			reason: "digits are an integer, as intstr.Parse reads them"},
		{name: "bad", ann: map[string]string{Annotation: "x%"}, want: ptr.To(intstr.FromString("x%")), ok: true,
			reason: "a value Sync cannot read is passed on; Sync's *LimitError names it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Limit(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: tt.ann}})
			if ok != tt.ok || !cmp.Equal(got.MaxUpdated, tt.want) {
				t.Errorf("Limit = %v, %v; want %v, %v (%s)", got.MaxUpdated, ok, tt.want, tt.ok, tt.reason)
			}
		})
	}
}

// TestDisguise checks the disguise, the stash and the way back.
func TestDisguise(t *testing.T) {
	paused := user()
	paused.Spec.Paused = true
	noDeadlineUser := user()
	noDeadlineUser.Spec.ProgressDeadlineSeconds = nil
	tests := []struct {
		name   string
		in     *appsv1.Deployment
		reason string
	}{
		{name: "rolling", in: user(), reason: "the usual case: a RollingUpdate Deployment, running"},
		{name: "paused", in: paused, reason: "the user's own pause is stashed and comes back"},
		{name: "no deadline", in: noDeadlineUser, reason: "a nil progressDeadlineSeconds (only a client can send it; the apiserver defaults it) stays nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in.DeepCopy()
			d := mustDisguise(t, in)
			if !cmp.Equal(in, tt.in) {
				t.Errorf("Disguise changed its input (%s)", tt.reason)
			}
			if !Disguised(d) || !d.Spec.Paused || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType ||
				d.Spec.Strategy.RollingUpdate != nil || *d.Spec.ProgressDeadlineSeconds != math.MaxInt32 {
				t.Errorf("disguise = paused %v strategy %+v deadline %v, want paused Recreate MaxInt32 (%s)",
					d.Spec.Paused, d.Spec.Strategy, d.Spec.ProgressDeadlineSeconds, tt.reason)
			}
			if d.Annotations["team"] != "a" || d.Annotations[Annotation] != "30%" {
				t.Errorf("annotations %v lost the user's (%s)", d.Annotations, tt.reason)
			}
			view, err := View(d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.in.Spec, view.Spec); diff != "" {
				t.Errorf("View's spec differs from the user's (-user +view) (%s):\n%s", tt.reason, diff)
			}
			if view.Annotations[StashAnnotation] == "" {
				t.Errorf("View dropped the stash: its annotations must be the disguised Deployment's, which kube-controller-manager copies to the new ReplicaSet (%s)", tt.reason)
			}
			back, err := Restore(d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.in, back); diff != "" {
				t.Errorf("Restore is not the user's Deployment (-user +restored) (%s):\n%s", tt.reason, diff)
			}
			again := mustDisguise(t, d)
			if diff := cmp.Diff(d, again); diff != "" {
				t.Errorf("disguising twice changed it (-once +twice) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestDisguiseAgain checks what a disguise that someone took off in part
// stashes: the fields that differ from the disguise are the user's.
func TestDisguiseAgain(t *testing.T) {
	tests := []struct {
		name   string
		change func(d *appsv1.Deployment)
		want   func(s *Stash)
		reason string
	}{
		{name: "resumed", change: func(d *appsv1.Deployment) { d.Spec.Paused = false }, want: func(s *Stash) { s.Paused = false },
			reason: "kubectl rollout resume on a disguised Deployment means the user's paused is false"},
		{name: "strategy", change: func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(2))}}
		}, want: func(s *Stash) {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(2))}
		}, reason: "a RollingUpdate patched onto the disguise is the user's new strategy"},
		{name: "deadline", change: func(d *appsv1.Deployment) { d.Spec.ProgressDeadlineSeconds = ptr.To[int32](60) },
			want: func(s *Stash) { s.ProgressDeadlineSeconds = ptr.To[int32](60) }, reason: "a deadline set on the disguise is the user's"},
		{name: "untouched", change: func(*appsv1.Deployment) {}, want: func(*Stash) {},
			reason: "the disguise's own values are not the user's: the stash stays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := user()
			u.Spec.Paused = true // so that a resume shows
			d := mustDisguise(t, u)
			tt.change(d)
			got, _, err := Stashed(mustDisguise(t, d))
			if err != nil {
				t.Fatal(err)
			}
			want := Stash{Strategy: u.Spec.Strategy, Paused: true, ProgressDeadlineSeconds: u.Spec.ProgressDeadlineSeconds}
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stash (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestDisguised(t *testing.T) {
	d := mustDisguise(t, user())
	noStash := d.DeepCopy()
	delete(noStash.Annotations, StashAnnotation)
	deadline := d.DeepCopy()
	deadline.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	tests := []struct {
		name   string
		in     *appsv1.Deployment
		want   bool
		reason string
	}{
		{name: "disguised", in: d, want: true, reason: "stash, paused, Recreate, no deadline"},
		{name: "user's", in: user(), reason: "a RollingUpdate Deployment is what kube-controller-manager rolls out"},
		{name: "no stash", in: noStash, reason: "without the stash there is nothing to restore: disguise it again from what it is"},
		{name: "deadline", in: deadline, reason: "with a deadline, kube-controller-manager's checkPausedConditions writes DeploymentPaused over our Progressing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Disguised(tt.in); got != tt.want {
				t.Errorf("Disguised = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func TestStashedBad(t *testing.T) {
	d := user()
	d.Annotations[StashAnnotation] = "{"
	_, ok, err := Stashed(d)
	if !ok || err == nil || !strings.Contains(err.Error(), StashAnnotation) || !strings.Contains(err.Error(), "ns/web") {
		t.Errorf("Stashed of a broken stash = %v, %v; want an error naming the annotation and the Deployment", ok, err)
	}
	if _, err := View(user()); err == nil {
		t.Errorf("View of a Deployment with no stash: no error")
	}
}

func TestKCMAvailable(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(t0.Add(time.Hour))
	prog := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "RolloutLimited", LastUpdateTime: t0, LastTransitionTime: t0}
	avail := func(s corev1.ConditionStatus, reason, msg string, upd, tr metav1.Time) appsv1.DeploymentCondition {
		return appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: s, Reason: reason, Message: msg, LastUpdateTime: upd, LastTransitionTime: tr}
	}
	const yes, no = "Deployment has minimum availability.", "Deployment does not have minimum availability."
	tests := []struct {
		name      string
		available int32
		replicas  int32
		in, want  []appsv1.DeploymentCondition
		reason    string
	}{
		{name: "all available, kept", available: 10, replicas: 10,
			in:     []appsv1.DeploymentCondition{avail(corev1.ConditionTrue, "MinimumReplicasAvailable", yes, t0, t0), prog},
			want:   []appsv1.DeploymentCondition{avail(corev1.ConditionTrue, "MinimumReplicasAvailable", yes, t0, t0), prog},
			reason: "kube-controller-manager leaves a condition of the same status and reason as it is, times and place included"},
		{name: "one short", available: 9, replicas: 10,
			in:     []appsv1.DeploymentCondition{avail(corev1.ConditionTrue, "MinimumReplicasAvailable", yes, t0, t0), prog},
			want:   []appsv1.DeploymentCondition{prog, avail(corev1.ConditionFalse, "MinimumReplicasUnavailable", no, now, now)},
			reason: "9 of 10 is not available for a Recreate Deployment (maxUnavailable 0), though deploysync says True for maxUnavailable 1; the new condition goes last, as SetDeploymentCondition appends it"},
		{name: "back", available: 10, replicas: 10,
			in:     []appsv1.DeploymentCondition{avail(corev1.ConditionFalse, "MinimumReplicasUnavailable", no, t0, t0), prog},
			want:   []appsv1.DeploymentCondition{prog, avail(corev1.ConditionTrue, "MinimumReplicasAvailable", yes, now, now)},
			reason: "every replica available again: True, a transition now"},
		{name: "reason only", available: 10, replicas: 10,
			in:     []appsv1.DeploymentCondition{avail(corev1.ConditionTrue, "Other", "x", t0, t0)},
			want:   []appsv1.DeploymentCondition{avail(corev1.ConditionTrue, "MinimumReplicasAvailable", yes, now, t0)},
			reason: "same status, another reason: replaced, keeping lastTransitionTime"},
		{name: "none yet", available: 0, replicas: 0, in: []appsv1.DeploymentCondition{prog},
			want:   []appsv1.DeploymentCondition{prog, avail(corev1.ConditionTrue, "MinimumReplicasAvailable", yes, now, now)},
			reason: "no condition yet: added; 0 of 0 replicas is available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := appsv1.DeploymentStatus{AvailableReplicas: tt.available, Conditions: tt.in}
			in := append([]appsv1.DeploymentCondition(nil), tt.in...)
			KCMAvailable(&st, tt.replicas, now)
			if diff := cmp.Diff(tt.want, st.Conditions); diff != "" {
				t.Errorf("conditions (-want +got) (%s):\n%s", tt.reason, diff)
			}
			if !cmp.Equal(in, tt.in) {
				t.Errorf("the input's conditions were changed in place (%s)", tt.reason)
			}
		})
	}
}

// recorder is an execute.Client that keeps what it is asked to write.
type recorder struct {
	execute.Client
	updates, statuses []*appsv1.Deployment
}

func (r *recorder) UpdateDeployment(_ context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	r.updates = append(r.updates, d)
	return d, nil
}

func (r *recorder) UpdateDeploymentStatus(_ context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	r.statuses = append(r.statuses, d)
	return d, nil
}

// TestClient checks that no write of a view leaves without its disguise.
func TestClient(t *testing.T) {
	view, err := View(mustDisguise(t, user()))
	if err != nil {
		t.Fatal(err)
	}
	view.Status.AvailableReplicas = 9
	view.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"}}
	frozen := view.DeepCopy()
	rec := &recorder{}
	c := Client{Client: rec, Now: time.Now}
	if _, err := c.UpdateDeployment(context.Background(), view); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateDeploymentStatus(context.Background(), view); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(view, frozen) {
		t.Errorf("the Client changed the plan's Deployment")
	}
	for _, d := range append(rec.updates, rec.statuses...) {
		if !Disguised(d) {
			t.Errorf("a write left without the disguise: paused %v strategy %+v", d.Spec.Paused, d.Spec.Strategy)
		}
	}
	if c := rec.statuses[0].Status.Conditions; len(c) != 1 || c[0].Status != corev1.ConditionFalse {
		t.Errorf("status written with Available %+v; want False: 9 of 10 available is unavailable for kube-controller-manager's Recreate", c)
	}
}
