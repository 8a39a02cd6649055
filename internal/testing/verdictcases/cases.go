// Package verdictcases holds the named states on which the tools' ideas of
// "rolled out" disagree: the rows of docs/verdicts.md's table. The verdict
// package renders them (its golden), and conformance/tools runs them
// through the tools' own code.
package verdictcases

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	sc "github.com/deploysync/deploysync/internal/testing/scenarios"
)

// Case is a named Deployment with its ReplicaSets and pods, and why it is
// worth a row.
type Case struct {
	Name        string
	Reason      string
	Deployment  *appsv1.Deployment
	ReplicaSets []*appsv1.ReplicaSet
	Pods        map[types.UID][]*corev1.Pod
}

const minute = time.Minute

func available() appsv1.DeploymentCondition {
	return sc.Cond(appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability.", minute)
}

func unavailable() appsv1.DeploymentCondition {
	return sc.Cond(appsv1.DeploymentAvailable, corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", minute)
}

func progressing(status corev1.ConditionStatus, reason, msg string) appsv1.DeploymentCondition {
	return sc.Cond(appsv1.DeploymentProgressing, status, reason, msg, minute)
}

func complete() appsv1.DeploymentCondition {
	return progressing(corev1.ConditionTrue, "NewReplicaSetAvailable", `ReplicaSet "web-new" has successfully progressed.`)
}

func updating() appsv1.DeploymentCondition {
	return progressing(corev1.ConditionTrue, "ReplicaSetUpdated", `ReplicaSet "web-new" is progressing.`)
}

// newRS is the new ReplicaSet (the Deployment's template, nginx:1).
func newRS(r sc.RS) *appsv1.ReplicaSet {
	r.Name, r.Image, r.Revision, r.Age = "web-new", "nginx:1", "2", minute
	return sc.ReplicaSet(r)
}

// oldRS is the previous revision (nginx:0).
func oldRS(r sc.RS) *appsv1.ReplicaSet {
	r.Name, r.Image, r.Revision, r.Age = "web-old", "nginx:0", "1", time.Hour
	return sc.ReplicaSet(r)
}

// All returns the cases, in the order of docs/verdicts.md's table.
func All() []Case {
	one := func(name, reason string, d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) Case {
		return Case{Name: name, Reason: reason, Deployment: d, ReplicaSets: rss}
	}
	var cases []Case

	cases = append(cases, one("rolled out",
		"every tool agrees on a finished rollout",
		sc.Observed(sc.Deployment(3), 3, 3, 3, available(), complete()),
		newRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 3}),
		oldRS(sc.RS{})))

	{
		d := sc.Observed(sc.Deployment(3), 3, 3, 3, available(), complete())
		d.Status.TerminatingReplicas = ptr.To[int32](2)
		old := oldRS(sc.RS{})
		old.Status.TerminatingReplicas = ptr.To[int32](2)
		c := one("old pods still terminating",
			"kubectl#1628: only strict waits for the pods being deleted",
			d, newRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 3}), old)
		c.Pods = map[types.UID][]*corev1.Pod{old.UID: {
			sc.Pod(old, "web-old-a", corev1.PodRunning, true),
			sc.Pod(old, "web-old-b", corev1.PodRunning, true),
		}}
		cases = append(cases, c)
	}

	{
		d := sc.Observed(sc.Deployment(3), 3, 3, 3, available(),
			progressing(corev1.ConditionUnknown, "DeploymentPaused", "Deployment is paused"))
		d.Spec.Paused = true
		cases = append(cases, one("paused after it finished",
			"kstatus never calls a paused Deployment Current; Helm 4 does not wait for it; Argo CD calls it Suspended",
			d, newRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 3}), oldRS(sc.RS{})))
	}

	{
		d := sc.Observed(sc.Deployment(4), 4, 1, 3, available(),
			progressing(corev1.ConditionUnknown, "DeploymentPaused", "Deployment is paused"))
		d.Spec.Paused = true
		cases = append(cases, one("paused mid-rollout",
			"both Helms call a paused Deployment ready, however far it got",
			d, newRS(sc.RS{Replicas: 1, Current: 1, Ready: 1, Available: 1}), oldRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 3})))
	}

	cases = append(cases, one("last old replica not yet scaled down",
		"Helm 3 asks only for replicas − maxUnavailable ready pods of the new ReplicaSet",
		sc.Observed(sc.Deployment(4), 5, 4, 4, available(), updating()),
		newRS(sc.RS{Replicas: 4, Current: 4, Ready: 3, Available: 3}),
		oldRS(sc.RS{Replicas: 1, Current: 1, Ready: 1, Available: 1})))

	{
		d := sc.Observed(sc.Deployment(3), 3, 3, 0, unavailable(), updating())
		d.Spec.MinReadySeconds = 30
		d.Status.ReadyReplicas = 3
		cases = append(cases, one("ready, not yet available (minReadySeconds)",
			"Helm 3 counts ready pods; the others wait for minReadySeconds",
			d, newRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 0}), oldRS(sc.RS{})))
	}

	cases = append(cases, one("progress deadline exceeded",
		"helm#8660, #10845: Helm 3 ignores the deadline and is ready with 3 of 4 pods; the others fail",
		sc.Observed(sc.Deployment(4), 5, 4, 4, available(),
			progressing(corev1.ConditionFalse, "ProgressDeadlineExceeded", `ReplicaSet "web-new" has timed out progressing.`)),
		newRS(sc.RS{Replicas: 4, Current: 4, Ready: 3, Available: 3}),
		oldRS(sc.RS{Replicas: 1, Current: 1, Ready: 1, Available: 1})))

	{
		d := sc.Observed(sc.Deployment(3), 3, 3, 3, available(), complete())
		d.Generation = 2
		cases = append(cases, one("spec change not yet observed",
			"every tool waits for the controller to see the new generation; Helm 3 and kstatus say so with the numbers",
			d, newRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 3}), oldRS(sc.RS{})))
	}

	{
		rs := newRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 3})
		rs.Generation = 2
		cases = append(cases, one("new ReplicaSet's spec not yet observed",
			"only Helm 3 reads the new ReplicaSet's observedGeneration",
			sc.Observed(sc.Deployment(3), 3, 3, 3, available(), complete()), rs, oldRS(sc.RS{})))
	}

	{
		d := sc.Observed(sc.Deployment(3), 3, 3, 3)
		d.Spec.ProgressDeadlineSeconds = ptr.To[int32](2147483647)
		cases = append(cases, one("no conditions (deadline 2³¹−1)",
			"kstatus also wants Available=True, which this status lacks",
			d, newRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 3})))
	}

	{
		d := sc.Observed(sc.Deployment(3), 3, 3, 3, available(), complete())
		d.DeletionTimestamp = ptr.To(metav1.NewTime(sc.Now.Add(-time.Second)))
		d.Finalizers = []string{"foregroundDeletion"}
		cases = append(cases, one("being deleted",
			"kstatus says Terminating and Argo CD Pending deletion; kubectl and Helm do not look",
			d, newRS(sc.RS{Replicas: 3, Current: 3, Ready: 3, Available: 3})))
	}

	cases = append(cases, one("scaled to 0, no ReplicaSet listed",
		"Helm 3 waits for a ReplicaSet with the template even at 0 replicas (the controller creates one at size 0); the others are done",
		sc.Observed(sc.Deployment(0), 0, 0, 0, available(), complete())))
	return cases
}
