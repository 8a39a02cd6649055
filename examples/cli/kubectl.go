package cli

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"text/tabwriter"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// RolloutHistory returns what `kubectl rollout history deployment/NAME`
// prints for a Deployment and the ReplicaSets of its namespace: the
// Deployment's name, then one row per revision of the ReplicaSets it
// controls, ascending, with the kubernetes.io/change-cause annotation of
// that revision's ReplicaSet ("<none>" if unset). As kubectl does, a
// ReplicaSet without a revision annotation is revision 0, one whose
// revision does not parse is left out, and of two ReplicaSets with the same
// revision the later in the list wins.
func RolloutHistory(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) string {
	causes := map[int64]string{}
	for _, rs := range rss {
		if !metav1.IsControlledBy(rs, d) {
			continue
		}
		v, ok := rs.Annotations[deployutil.RevisionAnnotation]
		rev := int64(0)
		if ok {
			var err error
			if rev, err = strconv.ParseInt(v, 10, 64); err != nil {
				continue
			}
		}
		causes[rev] = rs.Annotations[deployutil.ChangeCauseAnnotation]
	}
	if len(causes) == 0 {
		return "No rollout history found.\n"
	}
	revs := make([]int64, 0, len(causes))
	for r := range causes {
		revs = append(revs, r)
	}
	sort.Slice(revs, func(i, j int) bool { return revs[i] < revs[j] })
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "deployment.apps/%s \n", d.Name)
	tw := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "REVISION\tCHANGE-CAUSE\n")
	for _, r := range revs {
		cause := causes[r]
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(tw, "%d\t%s\n", r, cause)
	}
	_ = tw.Flush()
	buf.WriteString("\n")
	return buf.String()
}

// RolloutStatus returns what `kubectl rollout status --watch=false
// deployment/NAME` reports for a Deployment as it stands (its status is read,
// not recomputed), by these rules in order:
//
//  1. generation not yet observed: "Waiting for deployment spec update to be
//     observed...";
//  2. Progressing reason ProgressDeadlineExceeded: an error, "deployment
//     %q exceeded its progress deadline";
//  3. fewer updated replicas than spec.replicas: "... N out of M new
//     replicas have been updated...";
//  4. more replicas than updated ones: "... N old replicas are pending
//     termination...";
//  5. fewer available than updated: "... N of M updated replicas are
//     available...";
//  6. otherwise done: "deployment %q successfully rolled out".
func RolloutStatus(d *appsv1.Deployment) (msg string, done bool, err error) {
	s := d.Status
	if d.Generation > s.ObservedGeneration {
		return "Waiting for deployment spec update to be observed...\n", false, nil
	}
	if c := deployutil.GetCondition(s, appsv1.DeploymentProgressing); c != nil && c.Reason == deployutil.ReasonProgressDeadlineExceeded {
		return "", false, fmt.Errorf("deployment %q exceeded its progress deadline", d.Name)
	}
	wait := fmt.Sprintf("Waiting for deployment %q rollout to finish: ", d.Name)
	switch {
	case d.Spec.Replicas != nil && s.UpdatedReplicas < *d.Spec.Replicas:
		return wait + fmt.Sprintf("%d out of %d new replicas have been updated...\n", s.UpdatedReplicas, *d.Spec.Replicas), false, nil
	case s.Replicas > s.UpdatedReplicas:
		return wait + fmt.Sprintf("%d old replicas are pending termination...\n", s.Replicas-s.UpdatedReplicas), false, nil
	case s.AvailableReplicas < s.UpdatedReplicas:
		return wait + fmt.Sprintf("%d of %d updated replicas are available...\n", s.AvailableReplicas, s.UpdatedReplicas), false, nil
	}
	return fmt.Sprintf("deployment %q successfully rolled out\n", d.Name), true, nil
}
