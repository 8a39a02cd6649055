package kubectl_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/kubectl"
)

// deployment is "web" at generation 2 with 3 replicas and the given status
// counts (replicas, updated, available); observed generation 2, revision 4.
func statusDeployment(replicas, updated, available int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 2,
			Annotations: map[string]string{deployutil.RevisionAnnotation: "4"}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](3)},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: replicas, UpdatedReplicas: updated,
			AvailableReplicas: available, TerminatingReplicas: ptr.To[int32](0)},
	}
}

func with(d *appsv1.Deployment, f func(*appsv1.Deployment)) *appsv1.Deployment {
	f(d)
	return d
}

func progressing(reason string) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: reason}
}

func TestRolloutStatus(t *testing.T) {
	const wait = `Waiting for deployment "web" rollout to finish: `
	tests := []struct {
		name     string
		d        *appsv1.Deployment
		revision int64
		wantMsg  string
		wantDone bool
		wantErr  string
		reason   string
	}{
		{name: "done", d: statusDeployment(3, 3, 3), wantMsg: "deployment \"web\" successfully rolled out\n", wantDone: true,
			reason: "every replica is updated and available, and no old one is left"},
		{name: "spec not observed", d: with(statusDeployment(3, 3, 3), func(d *appsv1.Deployment) { d.Generation = 3 }),
			wantMsg: "Waiting for deployment spec update to be observed...\n",
			reason:  "the controller has not seen the latest spec: its counts say nothing yet"},
		{name: "deadline not checked before observed", d: with(statusDeployment(3, 3, 3), func(d *appsv1.Deployment) {
			d.Generation = 3
			d.Status.Conditions = []appsv1.DeploymentCondition{progressing(deployutil.ReasonProgressDeadlineExceeded)}
		}), wantMsg: "Waiting for deployment spec update to be observed...\n",
			reason: "kubectl looks at conditions only once the generation is observed"},
		{name: "deadline exceeded", d: with(statusDeployment(3, 1, 1), func(d *appsv1.Deployment) {
			d.Status.Conditions = []appsv1.DeploymentCondition{progressing(deployutil.ReasonProgressDeadlineExceeded)}
		}), wantErr: `deployment "web" exceeded its progress deadline`,
			reason: "ProgressDeadlineExceeded ends the wait with an error, before any count"},
		{name: "other progressing reason", d: with(statusDeployment(3, 3, 3), func(d *appsv1.Deployment) {
			d.Status.Conditions = []appsv1.DeploymentCondition{progressing(deployutil.ReasonReplicaSetUpdated)}
		}), wantMsg: "deployment \"web\" successfully rolled out\n", wantDone: true,
			reason: "only the deadline reason matters"},
		{name: "updating", d: statusDeployment(4, 1, 1), wantMsg: wait + "1 out of 3 new replicas have been updated...\n",
			reason: "fewer updated replicas than spec.replicas"},
		{name: "old pending", d: statusDeployment(5, 3, 3), wantMsg: wait + "2 old replicas are pending termination...\n",
			reason: "all updated, but 2 replicas of old ReplicaSets remain"},
		{name: "available", d: statusDeployment(3, 3, 1), wantMsg: wait + "1 of 3 updated replicas are available...\n",
			reason: "all updated, no old ones, not all available"},
		{name: "nil replicas", d: with(statusDeployment(0, 0, 0), func(d *appsv1.Deployment) { d.Spec.Replicas = nil }),
			wantMsg: "deployment \"web\" successfully rolled out\n", wantDone: true,
			reason: "kubectl skips the updated count when spec.replicas is nil"},
		{name: "revision matches", d: statusDeployment(3, 3, 3), revision: 4, wantMsg: "deployment \"web\" successfully rolled out\n", wantDone: true,
			reason: "--revision=4 on revision 4"},
		{name: "revision differs", d: statusDeployment(3, 3, 3), revision: 5, wantErr: "desired revision (5) is different from the running revision (4)",
			reason: "--revision is checked first, and a mismatch is an error"},
		{name: "revision missing", d: with(statusDeployment(3, 3, 3), func(d *appsv1.Deployment) { d.Annotations = nil }), revision: 1,
			wantErr: "desired revision (1) is different from the running revision (0)", reason: "a missing annotation is revision 0"},
		{name: "revision garbage", d: with(statusDeployment(3, 3, 3), func(d *appsv1.Deployment) { d.Annotations[deployutil.RevisionAnnotation] = "x" }), revision: 1,
			wantErr: `cannot get the revision of deployment "web": strconv.ParseInt: parsing "x": invalid syntax`,
			reason:  "an annotation that does not parse is an error only when a revision is asked"},
		{name: "revision garbage not asked", d: with(statusDeployment(3, 3, 3), func(d *appsv1.Deployment) { d.Annotations[deployutil.RevisionAnnotation] = "x" }),
			wantMsg: "deployment \"web\" successfully rolled out\n", wantDone: true, reason: "revision 0 means any revision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d)
			msg, done, err := kubectl.RolloutStatus(tt.d, tt.revision)
			frozen.Check(t)
			if gotErr := errString(err); gotErr != tt.wantErr || msg != tt.wantMsg || done != tt.wantDone {
				t.Errorf("RolloutStatus = %q, %v, %q; want %q, %v, %q (%s)", msg, done, gotErr, tt.wantMsg, tt.wantDone, tt.wantErr, tt.reason)
			}
		})
	}
}

func TestRolloutStatusWithTerminating(t *testing.T) {
	tests := []struct {
		name        string
		terminating *int32
		d           *appsv1.Deployment
		wantMsg     string
		wantDone    bool
		reason      string
	}{
		{name: "none terminating", terminating: ptr.To[int32](0), d: statusDeployment(3, 3, 3),
			wantMsg: "deployment \"web\" successfully rolled out\n", wantDone: true, reason: "kubectl's verdict stands"},
		{name: "two terminating", terminating: ptr.To[int32](2), d: statusDeployment(3, 3, 3),
			wantMsg: "Waiting for deployment \"web\" rollout to finish: 2 terminating replicas are still shutting down...\n",
			reason:  "kubectl says done, but two pods are still shutting down"},
		{name: "unknown", terminating: nil, d: statusDeployment(3, 3, 3),
			wantMsg: "deployment \"web\" successfully rolled out (terminating replicas not reported)\n", wantDone: true,
			reason: "the controller does not report the count: done, and the message says it is unknown"},
		{name: "not done anyway", terminating: ptr.To[int32](2), d: statusDeployment(3, 3, 1),
			wantMsg: "Waiting for deployment \"web\" rollout to finish: 1 of 3 updated replicas are available...\n",
			reason:  "kubectl's waiting message comes first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			tt.d.Status.TerminatingReplicas = tt.terminating
			frozen := testutil.Freeze(t, tt.d)
			msg, done, err := kubectl.RolloutStatusWithTerminating(tt.d, 0)
			frozen.Check(t)
			if err != nil || msg != tt.wantMsg || done != tt.wantDone {
				t.Errorf("RolloutStatusWithTerminating = %q, %v, %v; want %q, %v (%s)", msg, done, err, tt.wantMsg, tt.wantDone, tt.reason)
			}
		})
	}
}
