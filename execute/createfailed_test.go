package execute_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/execute"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

// TestResolveCreateFailed holds the answer to a failed create to upstream's
// getNewReplicaSet (v1.37.2 pkg/controller/deployment/sync.go, the create's
// error switch): the namespace-terminating cause returns the error alone;
// any other error sets Progressing False, ReplicaSetCreateError, "Failed to
// create new replica set %q: %v" when there is a progress deadline, writes
// the status, records a Warning event with the same message, and fails.
func TestResolveCreateFailed(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	gr := schema.GroupResource{Group: "apps", Resource: "replicasets"}
	quota := apierrors.NewForbidden(gr, "web-1", errors.New(`exceeded quota: q, requested: count/replicasets.apps=1`))
	terminating := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
		Message: "namespace ns is being terminated", Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}}}}
	noDeadline := scenarios.Deployment(3)
	noDeadline.Spec.ProgressDeadlineSeconds = nil
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		err    error
		status bool
		event  bool
		reason string
	}{
		{name: "quota", d: scenarios.Deployment(3), err: quota, status: true, event: true,
			reason: "any refusal but AlreadyExists: the condition, the status write, the Warning event"},
		{name: "timeout", d: scenarios.Deployment(3), err: apierrors.NewTimeoutError("injected", 1), status: true, event: true,
			reason: "an error whose outcome is unknown is answered the same way: upstream does not tell them apart"},
		{name: "no progress deadline", d: noDeadline, err: quota, event: true,
			reason: "without a progress deadline upstream sets no condition and writes no status, but still records the event"},
		{name: "namespace terminating", d: scenarios.Deployment(3), err: terminating,
			reason: "a terminating namespace refuses every create: no write, the error alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.d.DeepCopy()
			p, err := execute.ResolveCreateFailed(tt.d, "web-1", tt.err, now)
			if err != nil {
				t.Fatal(err)
			}
			msg := fmt.Sprintf("Failed to create new replica set %q: %v", "web-1", tt.err)
			var status, event bool
			for _, a := range p.Actions {
				switch a := a.(type) {
				case *action.UpdateDeploymentStatus:
					status = true
					c := deployutil.GetCondition(a.Deployment.Status, appsv1.DeploymentProgressing)
					if c == nil || c.Status != corev1.ConditionFalse || c.Reason != deployutil.ReasonReplicaSetCreateError || c.Message != msg ||
						!c.LastUpdateTime.Time.Equal(now) || !c.LastTransitionTime.Time.Equal(now) {
						t.Errorf("condition %+v, want Progressing False %s %q at %v (%s)", c, deployutil.ReasonReplicaSetCreateError, msg, now, tt.reason)
					}
				case *action.Event:
					event = true
					if a.Type != corev1.EventTypeWarning || a.Reason != deployutil.EventReplicaSetCreateError || a.Message != msg {
						t.Errorf("event %s %s %q, want Warning %s %q (%s)", a.Type, a.Reason, a.Message, deployutil.EventReplicaSetCreateError, msg, tt.reason)
					}
				default:
					t.Errorf("unexpected action %s (%s)", a, tt.reason)
				}
				for _, r := range a.Reasons() {
					if e := r.Check(); e != nil {
						t.Errorf("%s: reason: %v", a, e)
					}
				}
			}
			if status != tt.status || event != tt.event {
				t.Errorf("status write %v, event %v; want %v, %v (%s)", status, event, tt.status, tt.event, tt.reason)
			}
			var rejected *deploysync.CreateRejectedError
			switch {
			case tt.event && (!errors.As(p.Err, &rejected) || rejected.Name != "web-1" || rejected.Message != tt.err.Error()):
				t.Errorf("Err = %v, want a CreateRejectedError of web-1 with the client's message (%s)", p.Err, tt.reason)
			case !tt.event && !errors.Is(p.Err, tt.err):
				t.Errorf("Err = %v, want the client's error (%s)", p.Err, tt.reason)
			}
			if !equality.Semantic.DeepEqual(before, tt.d) {
				t.Errorf("the Deployment passed in was modified")
			}
		})
	}
	if _, err := execute.ResolveCreateFailed(nil, "web-1", quota, now); err == nil {
		t.Errorf("a nil Deployment is not refused")
	}
}
