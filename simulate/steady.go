package simulate

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
)

// Steady returns the state a Deployment is in an hour after the controller
// rolled out its pod template and every pod became available — the usual
// starting point of a rollout: change the template (or script a [Change])
// and [Run] it.
//
// The Deployment is defaulted with [deployutil.SetDefaults]; it gets a UID
// ("<name>-uid") and generation 1 if it has none. Its one ReplicaSet is built
// as the controller builds it: the defaulted template labelled with its
// pod-template-hash ([deployutil.ComputeHash]), named by
// [deployutil.ReplicaSetName], owned by the Deployment, with the revision
// (the Deployment's revision annotation, or 1), desired-replicas and
// max-replicas annotations and the Deployment's other annotations; every
// replica ready and available. The Deployment's status is observed and
// complete: Available=True, Progressing=True/NewReplicaSetAvailable. The
// argument is not modified; an invalid Deployment is an error.
func Steady(d *appsv1.Deployment, now time.Time) (deploysync.State, error) {
	return steady(kversion.Newest, d, now)
}

// steady is Steady as the controller of minor m builds the ReplicaSet (see
// SteadyFor).
func steady(m kversion.Minor, d *appsv1.Deployment, now time.Time) (deploysync.State, error) {
	d = deployutil.SetDefaults(d)
	if d.UID == "" {
		d.UID = types.UID(d.Name + "-uid")
	}
	if d.Generation == 0 {
		d.Generation = 1
	}
	if err := facts.Validate(d, nil, nil); err != nil {
		return deploysync.State{}, err
	}
	rev := d.Annotations[deployutil.RevisionAnnotation]
	if _, err := strconv.ParseInt(rev, 10, 64); err != nil {
		rev = "1"
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[deployutil.RevisionAnnotation] = rev

	hash, err := deployutil.ComputeHashFor(m.String(), &d.Spec.Template, d.Status.CollisionCount)
	if err != nil {
		return deploysync.State{}, err
	}
	tpl := *d.Spec.Template.DeepCopy()
	tpl.Labels = map[string]string{deployutil.PodTemplateHashLabel: hash}
	for k, v := range d.Spec.Template.Labels {
		tpl.Labels[k] = v
	}
	selector := d.Spec.Selector.DeepCopy()
	if selector.MatchLabels == nil {
		selector.MatchLabels = map[string]string{}
	}
	selector.MatchLabels[deployutil.PodTemplateHashLabel] = hash
	n := *d.Spec.Replicas
	ann, _ := facts.CopyDeploymentAnnotations(d, nil)
	ann[deployutil.RevisionAnnotation] = rev
	ann[deployutil.DesiredReplicasAnnotation] = strconv.Itoa(int(n))
	ann[deployutil.MaxReplicasAnnotation] = strconv.Itoa(int(facts.MaxReplicas(d)))
	zero := int32(0)
	name := deployutil.ReplicaSetName(d.Name, hash)
	if !m.AtLeast(kversion.V1_34) && len(d.Name+"-"+hash) > validation.DNS1123SubdomainMaxLength {
		return deploysync.State{}, fmt.Errorf("simulate: Kubernetes %s cannot create the ReplicaSet of Deployment %q: %q is longer than %d characters", m, d.Name, d.Name+"-"+hash, validation.DNS1123SubdomainMaxLength)
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: d.Namespace, UID: types.UID(name + "-uid"), Generation: 1,
			Labels: tpl.Labels, Annotations: ann,
			CreationTimestamp: metav1.NewTime(now.Add(-time.Hour).Truncate(time.Second)),
			OwnerReferences:   []metav1.OwnerReference{deployutil.ControllerRef(d)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: &n, MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: tpl},
		Status: appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
			ObservedGeneration: 1, TerminatingReplicas: &zero},
	}
	at := metav1.NewTime(now.Add(-time.Hour).Truncate(time.Second))
	term := int32(0)
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
		TerminatingReplicas: &term, CollisionCount: d.Status.CollisionCount,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: deployutil.ReasonMinimumReplicasAvailable,
				Message: "Deployment has minimum availability.", LastUpdateTime: at, LastTransitionTime: at},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: deployutil.ReasonNewReplicaSetAvailable,
				Message: fmt.Sprintf("ReplicaSet %q has successfully progressed.", name), LastUpdateTime: at, LastTransitionTime: at},
		},
	}
	if !facts.HasProgressDeadline(d) {
		d.Status.Conditions = d.Status.Conditions[:1]
	}
	if !m.TerminatingReplicasByDefault() {
		// The DeploymentReplicaSetTerminatingReplicas gate is off by
		// default: neither controller reports terminating replicas.
		d.Status.TerminatingReplicas, rs.Status.TerminatingReplicas = nil, nil
	}
	return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: now}, nil
}
