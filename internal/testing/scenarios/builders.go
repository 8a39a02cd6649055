// Package scenarios holds named states of a Deployment and its ReplicaSets,
// each named for what it shows: the everyday rollouts (a new Deployment, a
// template change, a scaling event, Recreate, rollback, a hash collision),
// the subtle cases of upstream's sync (deadlines at their edges,
// proportional rounding, adoption and release, terminating replicas), and
// its known bugs. The library's golden tests and the conformance
// suite both run them.
package scenarios

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

// Now is the time of every scenario: whole seconds, UTC.
var Now = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// Scenario is a named state with the reason it is worth running.
type Scenario struct {
	Name   string
	Reason string
	State  deploysync.State
	// NoTerminatingReplicas turns the DeploymentReplicaSetTerminatingReplicas
	// feature gate off.
	NoTerminatingReplicas bool
	// LaggingCache runs the scenario with deploysync.WithLaggingCache (and
	// upstream with a lister that has not delivered the sync's writes).
	LaggingCache bool
}

// Options returns the Sync options of the scenario.
func (s Scenario) Options() []deploysync.Option {
	opts := []deploysync.Option{deploysync.WithTerminatingReplicas(!s.NoTerminatingReplicas)}
	if s.LaggingCache {
		opts = append(opts, deploysync.WithLaggingCache())
	}
	return opts
}

// Template returns the pod template of the reference traces with the given
// image; with "nginx:1" its pod-template-hash is 6bcddfc897.
func Template(image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
	}
}

// Deployment returns the Deployment of the reference traces: web in
// default, UID d-uid, selector app=web, image nginx:1, RollingUpdate
// 25%/25%, progress deadline 600s, history limit 10, generation 1 (status
// empty: never synced).
func Deployment(replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "default", UID: "d-uid", Generation: 1, ResourceVersion: "100",
			CreationTimestamp: metav1.NewTime(Now.Add(-time.Hour)),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: Template("nginx:1"),
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr.To(intstr.FromString("25%")),
					MaxUnavailable: ptr.To(intstr.FromString("25%")),
				},
			},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

// Recreate switches d to the Recreate strategy.
func Recreate(d *appsv1.Deployment) *appsv1.Deployment {
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return d
}

// Fenceposts sets d's maxSurge and maxUnavailable.
func Fenceposts(d *appsv1.Deployment, surge, unavailable intstr.IntOrString) *appsv1.Deployment {
	d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}
	return d
}

// RS describes a ReplicaSet for [ReplicaSet].
type RS struct {
	Name     string
	Image    string // template image; the ReplicaSet's template is Template(Image)
	Replicas int32  // spec.replicas
	// Current, Ready and Available are status.replicas, readyReplicas and
	// availableReplicas.
	Current, Ready, Available int32
	Revision                  string // "" = no revision annotation
	Desired, Max              string // replica annotations; "" = absent
	Age                       time.Duration
	Owner                     string // "ours" (default), "orphan", "foreign"
	Labels                    map[string]string
}

// ReplicaSet builds a ReplicaSet of the base Deployment from a description.
// Its hash label is a fake "h-<name>" unless the name carries the real one;
// UIDs are "uid-<name>"; resourceVersions "rv-<name>". Status is synced
// (observedGeneration = generation = 1, terminatingReplicas 0).
func ReplicaSet(r RS) *appsv1.ReplicaSet {
	tpl := Template(r.Image)
	hash := "h-" + r.Name
	labels := map[string]string{"app": "web", deployutil.PodTemplateHashLabel: hash}
	if r.Labels != nil {
		labels = r.Labels
	}
	tpl.Labels = map[string]string{"app": "web", deployutil.PodTemplateHashLabel: hash}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: r.Name, Namespace: "default", UID: types.UID("uid-" + r.Name), ResourceVersion: "rv-" + r.Name,
			Generation: 1, Labels: labels, Annotations: map[string]string{},
			CreationTimestamp: metav1.NewTime(Now.Add(-r.Age)),
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(r.Replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", deployutil.PodTemplateHashLabel: hash}},
			Template: tpl,
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas: r.Current, FullyLabeledReplicas: r.Current, ReadyReplicas: r.Ready, AvailableReplicas: r.Available,
			ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0),
		},
	}
	for k, v := range map[string]string{deployutil.RevisionAnnotation: r.Revision, deployutil.DesiredReplicasAnnotation: r.Desired, deployutil.MaxReplicasAnnotation: r.Max} {
		if v != "" {
			rs.Annotations[k] = v
		}
	}
	switch r.Owner {
	case "", "ours":
		rs.OwnerReferences = []metav1.OwnerReference{deployutil.ControllerRef(Deployment(0))}
	case "foreign":
		rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "other-uid", Controller: ptr.To(true)}}
	}
	return rs
}

// Steady returns a fully available ReplicaSet description of the given size.
func Steady(name, image string, replicas int32, revision string, age time.Duration) RS {
	n := itoa(replicas)
	return RS{Name: name, Image: image, Replicas: replicas, Current: replicas, Ready: replicas, Available: replicas,
		Revision: revision, Desired: n, Max: n, Age: age}
}

// Pod returns a pod controlled by rs in the given phase.
func Pod(rs *appsv1.ReplicaSet, name string, phase corev1.PodPhase, terminating bool) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: rs.Namespace, UID: types.UID("uid-" + name), Labels: rs.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		},
		Spec:   rs.Spec.Template.Spec,
		Status: corev1.PodStatus{Phase: phase},
	}
	if terminating {
		p.DeletionTimestamp = ptr.To(metav1.NewTime(Now.Add(-time.Second)))
	}
	return p
}

// Observed marks d as synced at its generation with the given status counts
// and conditions.
func Observed(d *appsv1.Deployment, replicas, updated, available int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: updated, ReadyReplicas: available,
		AvailableReplicas: available, UnavailableReplicas: max(*d.Spec.Replicas-available, 0), TerminatingReplicas: ptr.To[int32](0),
		Conditions: conds,
	}
	return d
}

// Cond returns a Deployment condition last updated ago before Now.
func Cond(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, msg string, ago time.Duration) appsv1.DeploymentCondition {
	at := metav1.NewTime(Now.Add(-ago))
	return appsv1.DeploymentCondition{Type: t, Status: status, Reason: reason, Message: msg, LastUpdateTime: at, LastTransitionTime: at}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
