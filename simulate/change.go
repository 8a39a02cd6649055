package simulate

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/deployutil"
)

// Change is a scripted edit of the Deployment during a run, as a user's
// kubectl command makes it. The apiserver's share follows: the Deployment's
// metadata.generation goes up when the edit changes its spec or annotations.
//
// A change is made at the first step at or after At, before that step's
// sync; changes due at the same step are made in the order given.
type Change struct {
	// At is when the change is made, measured from the start of the run.
	// Tick N of a run is At N × tick.
	At time.Duration
	// Description says what the change is; the timeline shows it.
	Description string
	// Edit modifies the Deployment (a copy the run owns). An error ends the
	// run with that error.
	Edit func(d *appsv1.Deployment) error
}

// SetImage changes the image of the named container of the pod template at
// At, as `kubectl set image` does.
func SetImage(at time.Duration, container, image string) Change {
	return Change{At: at, Description: fmt.Sprintf("set image %s=%s", container, image), Edit: func(d *appsv1.Deployment) error {
		cs := d.Spec.Template.Spec.Containers
		for i := range cs {
			if cs[i].Name == container {
				cs[i].Image = image
				return nil
			}
		}
		return fmt.Errorf("set image: the pod template has no container %q", container)
	}}
}

// Annotate sets the annotation key=value of the Deployment (its metadata,
// not the pod template's) at At, as `kubectl annotate --overwrite` does.
// Any change of the Deployment is an event for the controller: it syncs
// the Deployment at once, even one it had given up retrying.
func Annotate(at time.Duration, key, value string) Change {
	return Change{At: at, Description: fmt.Sprintf("annotate %s=%s", key, value), Edit: func(d *appsv1.Deployment) error {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[key] = value
		return nil
	}}
}

// SetReplicas sets spec.replicas at At, as `kubectl scale` does.
func SetReplicas(at time.Duration, replicas int32) Change {
	return Change{At: at, Description: fmt.Sprintf("scale to %d", replicas), Edit: func(d *appsv1.Deployment) error {
		if replicas < 0 {
			return fmt.Errorf("scale: replicas %d must not be negative", replicas)
		}
		d.Spec.Replicas = &replicas
		return nil
	}}
}

// Pause sets spec.paused at At, as `kubectl rollout pause` does.
func Pause(at time.Duration) Change {
	return Change{At: at, Description: "pause", Edit: func(d *appsv1.Deployment) error {
		d.Spec.Paused = true
		return nil
	}}
}

// Resume clears spec.paused at At, as `kubectl rollout resume` does.
func Resume(at time.Duration) Change {
	return Change{At: at, Description: "resume", Edit: func(d *appsv1.Deployment) error {
		d.Spec.Paused = false
		return nil
	}}
}

// RollbackTo sets the deprecated rollback annotation
// (deprecated.deployment.rollback.to) at At: the controller replaces the pod
// template by that revision's and clears the annotation. Revision 0 means the
// previous revision.
func RollbackTo(at time.Duration, revision int64) Change {
	return Change{At: at, Description: fmt.Sprintf("rollback to revision %d (annotation)", revision), Edit: func(d *appsv1.Deployment) error {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[deployutil.RollbackToAnnotation] = strconv.FormatInt(revision, 10)
		return nil
	}}
}

// SetFenceposts sets the RollingUpdate strategy's maxSurge and
// maxUnavailable at At.
func SetFenceposts(at time.Duration, maxSurge, maxUnavailable intstr.IntOrString) Change {
	return Change{At: at, Description: fmt.Sprintf("set maxSurge=%s maxUnavailable=%s", maxSurge.String(), maxUnavailable.String()),
		Edit: func(d *appsv1.Deployment) error {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable}}
			return nil
		}}
}
