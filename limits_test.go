package deploysync_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/simulate"
)

func maxUpdated(v intstr.IntOrString) deploysync.Option {
	return deploysync.WithLimits(deploysync.Limits{MaxUpdated: &v})
}

func TestLimitErrors(t *testing.T) {
	tests := []struct {
		name    string
		value   intstr.IntOrString
		wantErr bool
		reason  string
	}{
		{name: "negative int", value: intstr.FromInt32(-1), wantErr: true, reason: "no ReplicaSet can hold fewer than 0 replicas"},
		{name: "negative percent", value: intstr.FromString("-5%"), wantErr: true, reason: "a percentage is digits and %, as the apiserver reads maxSurge"},
		{name: "no percent sign", value: intstr.FromString("30"), wantErr: true, reason: "a string must be a percentage, as intstr's scaling requires"},
		{name: "not a number", value: intstr.FromString("x%"), wantErr: true, reason: "the digits must be digits"},
		{name: "empty", value: intstr.FromString(""), wantErr: true, reason: "an empty string is no percentage"},
		{name: "zero", value: intstr.FromInt32(0), reason: "0 is a limit: no pod of the new template"},
		{name: "percent above 100", value: intstr.FromString("250%"), reason: "above 100% the limit does not bind, but it is readable"},
	}
	s := heldState(t, 0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			_, err := deploysync.Sync(s, maxUpdated(tt.value))
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Sync: %v", err)
				}
				return
			}
			var le *deploysync.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T), want a *LimitError", err, err)
			}
			if le.Option != "WithLimits" || le.Field != "MaxUpdated" || le.Value != tt.value {
				t.Errorf("error names %s %s %v, want WithLimits MaxUpdated %v", le.Option, le.Field, le.Value, tt.value)
			}
			if !strings.Contains(err.Error(), "WithLimits: MaxUpdated") || !strings.Contains(err.Error(), tt.value.String()) {
				t.Errorf("message %q does not name the option and the value", err)
			}
			if errors.Is(err, deploysync.ErrInvalidInput) {
				t.Errorf("a bad option is not bad input of the state: %v", err)
			}
		})
	}
}

// TestUnboundLimitsAreUpstream: a limit that does not bind leaves every
// plan as Sync without the option decides it, on generated states.
func TestUnboundLimitsAreUpstream(t *testing.T) {
	unbound := []struct {
		name string
		opt  deploysync.Option
	}{
		{"zero Limits", deploysync.WithLimits(deploysync.Limits{})},
		{"100%", maxUpdated(intstr.FromString("100%"))},
		{"int32 max", maxUpdated(intstr.FromInt32(1<<31 - 1))},
	}
	const n = 3000
	compared, boundDiffers := 0, 0
	for seed := uint64(0); seed < n; seed++ {
		c := randstate.Valid(randstate.NewRand(seed))
		want, err := deploysync.Sync(c.State, c.Options()...)
		if err != nil {
			continue
		}
		compared++
		for _, u := range unbound {
			got, err := deploysync.Sync(c.State, append(c.Options(), u.opt)...)
			if err != nil {
				t.Fatalf("seed %d, %s: %v", seed, u.name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, %s: plan differs from upstream's\ngot:\n%v\nwant:\n%v", seed, u.name, got, want)
			}
		}
		// The comparison can tell: a limit of 0 changes some plans.
		if got, err := deploysync.Sync(c.State, append(c.Options(), maxUpdated(intstr.FromInt32(0)))...); err == nil && !reflect.DeepEqual(got, want) {
			boundDiffers++
		}
	}
	if compared < n/2 {
		t.Fatalf("only %d of %d states compared", compared, n)
	}
	if boundDiffers == 0 {
		t.Fatalf("a limit of 0 changed none of %d plans: the comparison cannot fail", compared)
	}
	t.Logf("%d states compared; a limit of 0 changed %d of their plans", compared, boundDiffers)
}

// heldState is 10 replicas rolled from nginx:1.27 to 1.28 and held at
// updated new replicas, all available, the status observed, the
// Progressing condition as the given reason left it at the start.
func heldState(t *testing.T, updated int32) deploysync.State {
	t.Helper()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(10)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	s, err := simulate.Steady(d, limitStart)
	if err != nil {
		t.Fatal(err)
	}
	// Roll by hand: the old ReplicaSet keeps 10 − updated, the new one
	// (created by a sync) gets updated, all available.
	s.Deployment = s.Deployment.DeepCopy()
	s.Deployment.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	s.Deployment.Generation++
	p, err := deploysync.Sync(s, maxUpdated(intstr.FromInt32(0)))
	if err != nil {
		t.Fatal(err)
	}
	if s, err = deploysync.Apply(s, p); err != nil {
		t.Fatal(err)
	}
	for i, rs := range s.ReplicaSets {
		rs = rs.DeepCopy()
		n := 10 - updated
		if deployutil.EqualIgnoreHash(&rs.Spec.Template, &s.Deployment.Spec.Template) {
			n = updated
		}
		rs.Spec.Replicas = ptr.To(n)
		rs.Status = appsv1.ReplicaSetStatus{Replicas: n, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: rs.Generation}
		s.ReplicaSets[i] = rs
	}
	return s
}

var limitStart = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func progressing(st appsv1.DeploymentStatus) appsv1.DeploymentCondition {
	if c := deployutil.GetCondition(st, appsv1.DeploymentProgressing); c != nil {
		return *c
	}
	return appsv1.DeploymentCondition{}
}

// TestHold follows a held rollout across syncs: it holds with
// RolloutLimited past the deadline, with no write and no requeue, and
// restarts the deadline when the limit moves.
func TestHold(t *testing.T) {
	limit := maxUpdated(intstr.FromString("30%"))
	s := heldState(t, 3)
	p, err := deploysync.Sync(s, limit)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = deploysync.Apply(s, p); err != nil {
		t.Fatal(err)
	}
	c := progressing(s.Deployment.Status)
	if c.Reason != deployutil.ReasonRolloutLimited || c.Status != corev1.ConditionTrue || !c.LastUpdateTime.Time.Equal(s.Now) {
		t.Fatalf("held: Progressing %s/%s at %v, want True/RolloutLimited at %v\n%v", c.Status, c.Reason, c.LastUpdateTime, s.Now, p)
	}
	if want := `ReplicaSet "` + s.ReplicaSets[1].Name + `" is held at maxUpdated 30% (3 of 10 replicas).`; c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	for _, a := range p.Actions {
		if u, ok := a.(*action.UpdateReplicaSet); ok {
			t.Errorf("held, yet a ReplicaSet is written: %v", u)
		}
	}
	// An hour later, the deadline (600s) long past: nothing to do.
	s.Now = s.Now.Add(time.Hour)
	p, err = deploysync.Sync(s, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 0 || p.Requeue || p.RequeueAfter != 0 {
		t.Fatalf("held an hour: want an empty plan without requeue, got\n%v", p)
	}
	// Without the option the condition is upstream's to judge: past the
	// deadline, it times out.
	p, err = deploysync.Sync(s)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := deploysync.Apply(s, p); progressing(got.Deployment.Status).Reason != deployutil.ReasonProgressDeadlineExceeded {
		t.Errorf("without WithLimits a stale RolloutLimited is judged as upstream does (timed out); got\n%v", p)
	}
	// The limit raised: the new ReplicaSet grows and the deadline restarts now.
	transitioned := c.LastTransitionTime
	p, err = deploysync.Sync(s, maxUpdated(intstr.FromString("60%")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := deploysync.Apply(s, p)
	if err != nil {
		t.Fatal(err)
	}
	c = progressing(got.Deployment.Status)
	if c.Reason != deployutil.ReasonReplicaSetUpdated || !c.LastUpdateTime.Time.Equal(s.Now) || !c.LastTransitionTime.Equal(&transitioned) {
		t.Errorf("raised: Progressing %s updated %v transitioned %v, want ReplicaSetUpdated updated now %v, transition kept %v\n%v",
			c.Reason, c.LastUpdateTime, c.LastTransitionTime, s.Now, transitioned, p)
	}
	if !strings.Contains(p.String(), "scale up new ReplicaSet") {
		t.Errorf("raised: the new ReplicaSet should grow\n%v", p)
	}
}
