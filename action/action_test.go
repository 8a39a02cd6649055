package action_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"

	// The module's -update flag: go test ./... -update passes it to every
	// test binary, and this package has no golden to rewrite.
	_ "github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestString checks the one-line rendering of every action: verb, object,
// detail, then the reason after a colon.
func TestString(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1"}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](2)}}
	unsized := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-2"}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Status: appsv1.DeploymentStatus{
		Replicas: 4, UpdatedReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 1, UnavailableReplicas: 3}}
	w := action.Reasons{action.Because(action.RuleNote, action.Str("text", "w"))}
	tests := []struct {
		name   string
		a      action.Action
		want   string
		reason string
	}{
		{name: "create", a: &action.CreateReplicaSet{ReplicaSet: rs, Why: w}, want: "create replicaset web-1 replicas=2: w", reason: "the size is shown"},
		{name: "update", a: &action.UpdateReplicaSet{ReplicaSet: unsized, Why: w}, want: "update replicaset web-2 replicas=0: w", reason: "a nil size shows as 0"},
		{name: "delete", a: &action.DeleteReplicaSet{Name: "web-1", Why: w}, want: "delete replicaset web-1: w", reason: "no detail"},
		{name: "adopt", a: &action.AdoptReplicaSet{Name: "web-1", Why: w}, want: "adopt replicaset web-1: w", reason: "no detail"},
		{name: "release", a: &action.ReleaseReplicaSet{Name: "web-1"}, want: "release replicaset web-1", reason: "no reason, no colon"},
		{name: "update deployment", a: &action.UpdateDeployment{Deployment: d, Why: w}, want: "update deployment web: w", reason: "no detail"},
		{name: "update status", a: &action.UpdateDeploymentStatus{Deployment: d, Why: w},
			want: "update deployment status web replicas=4 updated=3 ready=2 available=1 unavailable=3: w", reason: "the counts are shown"},
		{name: "event", a: &action.Event{Type: "Warning", Reason: "SelectingAll", Message: "m", Why: w}, want: `event Warning SelectingAll "m": w`,
			reason: "the message is quoted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			if got := tt.a.String(); got != tt.want {
				t.Errorf("String() = %q, want %q (%s)", got, tt.want, tt.reason)
			}
			if got, want := tt.a.Explain(), map[bool]string{true: "", false: "w"}[tt.name == "release"]; got != want {
				t.Errorf("Explain() = %q, want %q", got, want)
			}
			if got, want := len(tt.a.Reasons()), map[bool]int{true: 0, false: 1}[tt.name == "release"]; got != want || want == 1 && tt.a.Reasons()[0].Rule != action.RuleNote {
				t.Errorf("Reasons() = %v, want the row's Why", tt.a.Reasons())
			}
		})
	}
}
