package deploysync

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
	"github.com/deploysync/deploysync/internal/podindex"
)

// CreateRejectedError is a plan's Err when the apiserver would refuse the
// new ReplicaSet's create because its name is no DNS subdomain: on
// Kubernetes 1.33, whose controller names it "<deployment>-<hash>" uncut, a
// name longer than 253 characters (a Deployment name longer than 242 to 244
// characters, with the hash); on every minor, a Deployment name of 243 or
// more characters with a '.' where the cut falls, which gives
// "<prefix>.-<hash>". The plan holds what upstream does then: the
// Progressing condition becomes False with reason ReplicaSetCreateError
// (when there is a progress deadline) and a Warning event
// ReplicaSetCreateError says why; the sync fails, so the caller requeues
// with rate limiting, and every sync fails the same way until the
// Deployment is renamed — the rollout never starts.
type CreateRejectedError struct {
	// Name is the ReplicaSet name the create sent.
	Name string
	// Message is the apiserver's answer, as its Invalid error reads.
	Message string
}

// Error is the apiserver's answer.
func (e *CreateRejectedError) Error() string { return e.Message }

// newReplicaSetHash is the pod-template-hash the minor's controller gives
// the Deployment's template. The version was checked before the sync
// began and every field of the library's types copies into every older
// layout (the layout tests fill them all), so the error is not expected;
// it fails the sync rather than the process.
func (s *session) newReplicaSetHash() (string, error) {
	d := s.d
	if s.opts.version == kversion.Newest {
		return deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount), nil
	}
	h, err := deployutil.ComputeHashFor(s.opts.version.String(), &d.Spec.Template, d.Status.CollisionCount)
	if err != nil {
		return "", fmt.Errorf("deploysync: hashing the pod template as Kubernetes %s: %w", s.opts.version, err)
	}
	return h, nil
}

// newReplicaSetName is the name the minor's controller gives the new
// ReplicaSet: from 1.34 the Deployment's name is cut so that the whole fits
// 253 characters (pkg/controller/deployment/sync.go,
// generateReplicaSetName, v1.34.4); 1.33 joins them uncut (v1.33.5:
// d.Name + "-" + podTemplateSpecHash).
func (s *session) newReplicaSetName(hash string) string {
	if !s.opts.version.AtLeast(kversion.V1_34) {
		return s.d.Name + "-" + hash
	}
	return deployutil.ReplicaSetName(s.d.Name, hash)
}

// rejectedCreate is the apiserver's refusal of a new ReplicaSet, or nil:
// a name that is not a DNS subdomain. 1.33 sends names longer than 253
// characters (it does not cut the Deployment's name); every minor can send
// a cut name that ends in ".-<hash>" (a Deployment name with a '.' where the
// cut falls), which the apiserver refuses as malformed.
func rejectedCreate(rs *appsv1.ReplicaSet) *CreateRejectedError {
	msgs := apimachineryvalidation.NameIsDNSSubdomain(rs.Name, false)
	if len(msgs) == 0 {
		return nil
	}
	// The apiserver's Invalid error over ValidateObjectMeta's name errors,
	// as apps/v1 ReplicaSet validation returns it.
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), rs.Name, m))
	}
	err := apierrors.NewInvalid(schema.GroupKind{Group: appsv1.GroupName, Kind: "ReplicaSet"}, rs.Name, errs)
	return &CreateRejectedError{Name: rs.Name, Message: err.Error()}
}

// createFailed is upstream's answer to a failed create (other than
// AlreadyExists): the Progressing condition says so when there is a
// progress deadline, a Warning event says so, and the sync fails.
func (s *session) createFailed(err *CreateRejectedError) error {
	d := s.d
	msg := fmt.Sprintf("Failed to create new replica set %q: %v", err.Name, err)
	if facts.HasProgressDeadline(d) {
		facts.SetCondition(&d.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
			action.ReasonReplicaSetCreateError, msg, s.now))
		s.updateStatus(action.Because(action.RuleCreateRefused, action.Str("replicaSet", err.Name), action.Num("length", len(err.Name))))
	}
	s.event(corev1.EventTypeWarning, action.EventReplicaSetCreateError, s.eventMessage(msg),
		action.Because(action.RuleCreateRefusedEvent, action.Str("kubernetesVersion", s.opts.version.String()),
			action.Str("replicaSet", err.Name), action.Num("length", len(err.Name))))
	return err
}

// eventMessage is how the minor's controller records a message it has
// already formatted: up to 1.35 it passes it to Eventf as the format with
// no arguments (pkg/controller/deployment/sync.go and rollback.go, v1.35.4),
// so a '%' in it is read as a verb; from 1.36 it passes "%s" and the
// message (v1.36.3). The messages that go this way (ReplicaSetCreateError,
// the rollback events) hold names, which cannot contain '%', and fixed
// texts: the difference does not show on any state an apiserver holds.
func (s *session) eventMessage(msg string) string {
	if s.opts.version.AtLeast(kversion.V1_36) {
		return msg
	}
	return fmt.Sprintf(msg, []any{}...)
}

// recreatePods is the pod map Recreate consults before it scales up: up to
// 1.35 the pods that match the Deployment's selector grouped by their
// controller's UID (pkg/controller/deployment/deployment_controller.go,
// getPodMapForDeployment, v1.35.4); from 1.36 the pods whose controller
// reference names the ReplicaSet, found in the pod index
// (controller.FilterPodsByOwner, v1.36.3).
func (s *session) recreatePods(rsList []*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
	if !s.opts.version.AtLeast(kversion.V1_36) {
		return podindex.BySelector(s.d, rsList, s.pods)
	}
	return podindex.ByController(rsList, s.pods)
}
