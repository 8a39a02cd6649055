package kubectl

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// RolloutStatus returns the message `kubectl rollout status
// deployment/NAME` prints for the Deployment d as read, and whether kubectl
// stops there because the rollout is done. With revision > 0 the caller
// waits for that revision (kubectl's --revision flag). The rules, in
// kubectl's order:
//
//  1. revision > 0 and d's deployment.kubernetes.io/revision annotation does
//     not parse: an error, "cannot get the revision of deployment %q: ...";
//     it parses to another number: an error, "desired revision (N) is
//     different from the running revision (M)" (a missing annotation is
//     revision 0).
//  2. metadata.generation above status.observedGeneration: "Waiting for
//     deployment spec update to be observed...".
//  3. a Progressing condition with reason ProgressDeadlineExceeded: an
//     error, "deployment %q exceeded its progress deadline".
//  4. status.updatedReplicas below spec.replicas: "Waiting for deployment %q
//     rollout to finish: U out of R new replicas have been updated...".
//  5. status.replicas above status.updatedReplicas: "... N old replicas are
//     pending termination..." (N = replicas − updated).
//  6. status.availableReplicas below status.updatedReplicas: "... A of U
//     updated replicas are available...".
//  7. otherwise done: "deployment %q successfully rolled out".
//
// Every message ends with a newline, as kubectl prints it. kubectl treats an
// error as the end of its wait and exits non-zero with it; the message is
// then empty and done false.
//
// Nothing here counts pods that are still terminating: rule 5 counts
// replicas of old ReplicaSets the controller has not yet scaled away, not
// pods still shutting down. See [RolloutStatusWithTerminating].
func RolloutStatus(d *appsv1.Deployment, revision int64) (message string, done bool, err error) {
	if revision > 0 {
		running, err := deployutil.Revision(d)
		if err != nil {
			return "", false, fmt.Errorf("cannot get the revision of deployment %q: %v", d.Name, err)
		}
		if running != revision {
			return "", false, fmt.Errorf("desired revision (%d) is different from the running revision (%d)", revision, running)
		}
	}
	s := d.Status
	if d.Generation > s.ObservedGeneration {
		return "Waiting for deployment spec update to be observed...\n", false, nil
	}
	// kubectl takes the first Progressing condition, as deployutil does.
	if c := deployutil.GetCondition(s, appsv1.DeploymentProgressing); c != nil && c.Reason == deployutil.ReasonProgressDeadlineExceeded {
		return "", false, fmt.Errorf("deployment %q exceeded its progress deadline", d.Name)
	}
	switch {
	case d.Spec.Replicas != nil && s.UpdatedReplicas < *d.Spec.Replicas:
		return waiting(d, "%d out of %d new replicas have been updated...\n", s.UpdatedReplicas, *d.Spec.Replicas), false, nil
	case s.Replicas > s.UpdatedReplicas:
		return waiting(d, "%d old replicas are pending termination...\n", s.Replicas-s.UpdatedReplicas), false, nil
	case s.AvailableReplicas < s.UpdatedReplicas:
		return waiting(d, "%d of %d updated replicas are available...\n", s.AvailableReplicas, s.UpdatedReplicas), false, nil
	}
	return fmt.Sprintf("deployment %q successfully rolled out\n", d.Name), true, nil
}

// RolloutStatusWithTerminating is [RolloutStatus] for callers that need "no
// old pods left", not only "every replica is updated and available". It
// differs from RolloutStatus, and so from kubectl, in one rule applied after
// all of RolloutStatus's:
//
//   - RolloutStatus says done but status.terminatingReplicas is above 0:
//     not done, "Waiting for deployment %q rollout to finish: N terminating
//     replicas are still shutting down...". These are pods with a deletion
//     timestamp that have not yet stopped — old pods a rollout or scale-down
//     removed, which may still serve traffic or hold resources.
//   - status.terminatingReplicas is nil: the controller does not report the
//     count (the DeploymentReplicaSetTerminatingReplicas feature gate is off,
//     or the controller predates it), so nobody can know. The verdict is
//     done, as RolloutStatus's, and the message says it: "deployment %q
//     successfully rolled out (terminating replicas not reported)". Waiting
//     for a count that never comes would never end; a caller that must be
//     sure has to list the pods itself.
//
// Every other message, verdict and error is RolloutStatus's.
func RolloutStatusWithTerminating(d *appsv1.Deployment, revision int64) (message string, done bool, err error) {
	message, done, err = RolloutStatus(d, revision)
	if err != nil || !done {
		return message, done, err
	}
	t := d.Status.TerminatingReplicas
	switch {
	case t == nil:
		return fmt.Sprintf("deployment %q successfully rolled out (terminating replicas not reported)\n", d.Name), true, nil
	case *t > 0:
		return waiting(d, "%d terminating replicas are still shutting down...\n", *t), false, nil
	}
	return message, true, nil
}

func waiting(d *appsv1.Deployment, format string, args ...any) string {
	return fmt.Sprintf("Waiting for deployment %q rollout to finish: ", d.Name) + fmt.Sprintf(format, args...)
}
