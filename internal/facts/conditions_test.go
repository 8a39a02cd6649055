package facts_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

var (
	t0 = time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)
	t1 = t0.Add(time.Minute)
)

func progressingFalse() appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ForSomeReason"}
}

func progressingTrue() appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "BecauseItIs"}
}

func availableTrue() appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "AwesomeController"}
}

func conds(cs ...appsv1.DeploymentCondition) appsv1.DeploymentStatus {
	return appsv1.DeploymentStatus{Conditions: cs}
}

// TestGetCondition restates upstream's TestGetCondition (2 rows).
func TestGetCondition(t *testing.T) {
	tests := []struct {
		name   string
		status appsv1.DeploymentStatus
		typ    appsv1.DeploymentConditionType
		want   *appsv1.DeploymentCondition
		reason string
	}{
		{name: "exists", status: conds(progressingFalse(), availableTrue()), typ: appsv1.DeploymentAvailable, want: ptrTo(availableTrue()),
			reason: "upstream: the Available condition is found"},
		{name: "missing", status: conds(progressingFalse(), availableTrue()), typ: appsv1.DeploymentReplicaFailure, want: nil,
			reason: "upstream: no ReplicaFailure condition, nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			got := deployutil.GetCondition(tt.status, tt.typ)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GetCondition (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if got != nil {
				got.Reason = "changed"
				if tt.status.Conditions[1].Reason == "changed" {
					t.Errorf("GetCondition returned a pointer into the status, not a copy")
				}
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestSetCondition restates upstream's TestSetCondition (3 rows) and adds
// the rules about unchanged and same-status conditions.
func TestSetCondition(t *testing.T) {
	at := func(c appsv1.DeploymentCondition, update, transition time.Time) appsv1.DeploymentCondition {
		c.LastUpdateTime, c.LastTransitionTime = metav1.NewTime(update), metav1.NewTime(transition)
		return c
	}
	withMessage := func(c appsv1.DeploymentCondition, m string) appsv1.DeploymentCondition {
		c.Message = m
		return c
	}
	tests := []struct {
		name   string
		status appsv1.DeploymentStatus
		cond   appsv1.DeploymentCondition
		want   appsv1.DeploymentStatus
		reason string
	}{
		{name: "first time", status: appsv1.DeploymentStatus{}, cond: availableTrue(), want: conds(availableTrue()),
			reason: "upstream: set for the first time"},
		{name: "simple set", status: conds(progressingFalse()), cond: availableTrue(), want: conds(progressingFalse(), availableTrue()),
			reason: "upstream: a new type is appended"},
		{name: "overwrite", status: conds(progressingFalse()), cond: progressingTrue(), want: conds(progressingTrue()),
			reason: "upstream: a new status replaces the condition of that type"},
		{name: "same status and reason", status: conds(at(progressingTrue(), t0, t0)), cond: withMessage(at(progressingTrue(), t1, t1), "new"),
			want:   conds(at(progressingTrue(), t0, t0)),
			reason: "same status and reason: nothing changes, not the message, not the times"},
		{name: "same status, new reason", status: conds(at(progressingTrue(), t0, t0), availableTrue()),
			cond: func() appsv1.DeploymentCondition { c := at(progressingTrue(), t1, t1); c.Reason = "Other"; return c }(),
			want: conds(availableTrue(), func() appsv1.DeploymentCondition {
				c := at(progressingTrue(), t1, t0)
				c.Reason = "Other"
				return c
			}()),
			reason: "same status keeps the old transition time, and the changed condition moves to the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			before := *tt.status.DeepCopy()
			st := tt.status
			facts.SetCondition(&st, tt.cond)
			if diff := cmp.Diff(tt.want, st); diff != "" {
				t.Errorf("SetCondition (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if diff := cmp.Diff(before, tt.status); diff != "" {
				t.Errorf("a status copied by value was modified through the shared slice:\n%s", diff)
			}
		})
	}
}

// TestRemoveCondition restates upstream's TestRemoveCondition (3 rows).
func TestRemoveCondition(t *testing.T) {
	tests := []struct {
		name   string
		status appsv1.DeploymentStatus
		typ    appsv1.DeploymentConditionType
		want   appsv1.DeploymentStatus
		reason string
	}{
		{name: "from empty", status: appsv1.DeploymentStatus{}, typ: appsv1.DeploymentProgressing, want: appsv1.DeploymentStatus{},
			reason: "upstream: nothing to remove"},
		{name: "simple remove", status: conds(progressingFalse()), typ: appsv1.DeploymentProgressing, want: appsv1.DeploymentStatus{},
			reason: "upstream: removing the only condition leaves a nil slice"},
		{name: "nothing matches", status: conds(progressingFalse(), availableTrue()), typ: appsv1.DeploymentReplicaFailure,
			want:   conds(progressingFalse(), availableTrue()),
			reason: "upstream: other types stay, in order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			st := tt.status
			facts.RemoveCondition(&st, tt.typ)
			if diff := cmp.Diff(tt.want, st); diff != "" {
				t.Errorf("RemoveCondition (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}

func TestNewAndReplicaSetCondition(t *testing.T) {
	tests := []struct {
		name   string
		got    appsv1.DeploymentCondition
		want   appsv1.DeploymentCondition
		reason string
	}{
		{name: "NewCondition", got: facts.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, "R", "m", t0),
			want: appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "R", Message: "m",
				LastUpdateTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0)},
			reason: "both times are the time passed in (upstream reads the clock twice)"},
		{name: "ReplicaSetCondition", got: facts.ReplicaSetCondition(appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota", LastTransitionTime: metav1.NewTime(t1)}),
			want: appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota",
				LastUpdateTime: metav1.NewTime(t1), LastTransitionTime: metav1.NewTime(t1)},
			reason: "a ReplicaSet condition's transition time becomes the Deployment condition's update time too"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}
