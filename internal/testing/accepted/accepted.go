// Package accepted holds hand-built states of every class Sync used to
// refuse although an apps/v1 apiserver accepts them: annotations outside
// int32, revisions and collision counts at their limits, sums and products
// that wrap around in upstream's int32 arithmetic, and pods that are not
// their listed ReplicaSet's (States). The conformance suite runs upstream
// beside Sync on each of States (conformance/suite/contract_test.go); the
// root package's TestFormerlyRefused checks values printed by those
// upstream runs. The states Sync refuses are in package badinput.
package accepted

import (
	"math"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	sc "github.com/deploysync/deploysync/internal/testing/scenarios"
)

// Case is a named state with the reason it is in the catalogue.
type Case struct {
	Name   string
	Reason string
	State  deploysync.State
}

func state(d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) deploysync.State {
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: sc.Now}
}

// paused returns a paused Deployment of the given size whose status says
// statusReplicas pods exist, observed.
func paused(replicas int32) *appsv1.Deployment {
	d := sc.Deployment(replicas)
	d.Spec.Paused = true
	return d
}

// newTemplate returns a Deployment whose template (nginx:2) matches no
// ReplicaSet built from nginx:1.
func newTemplate(replicas int32) *appsv1.Deployment {
	d := sc.Deployment(replicas)
	d.Spec.Template = sc.Template("nginx:2")
	return d
}

// podOf returns a running pod listed under uid whose controller reference
// is ref (nil: no controller), in namespace ns.
func podOf(name, ns string, ref *metav1.OwnerReference) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), Labels: map[string]string{"app": "web"}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if ref != nil {
		p.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	return p
}

func rsRef(name string, uid types.UID) *metav1.OwnerReference {
	return &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: uid, Controller: ptr.To(true)}
}

// recreateWithPods is a Recreate Deployment mid-rollout: the old
// ReplicaSet web-old is scaled down and reports no pods, the new template
// has no ReplicaSet yet; pods holds what the caller lists.
func recreateWithPods(pods func(old *appsv1.ReplicaSet) map[types.UID][]*corev1.Pod) deploysync.State {
	d := sc.Recreate(newTemplate(3))
	old := sc.ReplicaSet(sc.RS{Name: "web-old", Image: "nginx:1", Replicas: 0, Revision: "1", Desired: "3", Max: "3", Age: time.Hour})
	s := state(d, old)
	s.Pods = pods(old)
	return s
}

// States returns the catalogue's states, in a fixed order.
func States() []Case {
	var out []Case
	add := func(name, reason string, s deploysync.State) {
		out = append(out, Case{Name: name, Reason: reason, State: s})
	}

	// desired-replicas annotations outside int32 and other non-canonical
	// integers: IsSaturated reads them with Atoi and int32(...), the scaling
	// event check with ParseUint(…, 32).
	for _, v := range []string{"2147483648", "4294967296", "-1", "4294967299", "+5", "007", " 5", "-2147483649"} {
		d := paused(3)
		newRS := sc.ReplicaSet(sc.RS{Name: "web-new", Image: "nginx:1", Replicas: 3, Current: 3, Ready: 3, Available: 3, Revision: "2", Desired: v, Max: "4", Age: time.Minute})
		old := sc.ReplicaSet(sc.RS{Name: "web-old", Image: "nginx:0", Replicas: 2, Current: 2, Ready: 2, Available: 2, Revision: "1", Desired: "3", Max: "4", Age: time.Hour})
		add("paused, new desired-replicas "+v,
			"a paused sync with two active ReplicaSets: IsSaturated reads the new one's annotation with Atoi and keeps its low 32 bits",
			state(d, newRS, old))
		d = sc.Deployment(5)
		old = sc.ReplicaSet(sc.RS{Name: "web-old", Image: "nginx:0", Replicas: 5, Current: 5, Ready: 5, Available: 5, Revision: "1", Desired: v, Max: "6", Age: time.Hour})
		add("rollout, old desired-replicas "+v,
			"the scaling-event check reads an active ReplicaSet's annotation with ParseUint (32 bits, at most 2³¹−1) and ignores what it refuses",
			state(d, old))
	}
	{
		d := paused(3)
		newRS := sc.ReplicaSet(sc.RS{Name: "web-new", Image: "nginx:1", Replicas: 3, Current: 3, Ready: 3, Available: 3, Revision: "2", Desired: "4294967299", Max: "4", Age: time.Minute})
		old := sc.ReplicaSet(sc.RS{Name: "web-old", Image: "nginx:0", Replicas: 2, Current: 2, Ready: 2, Available: 2, Revision: "1", Desired: "3", Max: "4", Age: time.Hour})
		add("paused, saturated through truncation",
			"desired-replicas 4294967299 reads as 3 in IsSaturated: the new ReplicaSet is saturated and the old one goes to 0",
			state(d, newRS, old))
	}

	// Revisions at the int64 limit.
	{
		d := newTemplate(3)
		old := sc.ReplicaSet(sc.Steady("web-old", "nginx:1", 3, "9223372036854775807", time.Hour))
		add("revision 2⁶³−1, new template",
			"MaxRevision+1 wraps to −2⁶³: the new ReplicaSet gets no revision (0 < −2⁶³ is false) and the Deployment records \"-9223372036854775808\"",
			state(d, old))
		d = sc.Deployment(3)
		newRS := sc.ReplicaSet(sc.Steady("web-new", "nginx:1", 3, "5", time.Minute))
		old = sc.ReplicaSet(sc.RS{Name: "web-old", Image: "nginx:0", Revision: "9223372036854775807", Age: time.Hour})
		add("revision 2⁶³−1 on an old ReplicaSet, new one exists",
			"the existing new ReplicaSet keeps revision 5: 5 < −2⁶³ is false",
			state(d, newRS, old))
	}

	// collisionCount 2³¹−1 with a hash collision.
	{
		d := newTemplate(3)
		d.Status.CollisionCount = ptr.To[int32](math.MaxInt32)
		hash := deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
		taken := sc.ReplicaSet(sc.RS{Name: deployutil.ReplicaSetName(d.Name, hash), Image: "busybox", Owner: "foreign", Labels: map[string]string{"app": "other"}})
		old := sc.ReplicaSet(sc.Steady("web-old", "nginx:1", 3, "1", time.Hour))
		add("collisionCount 2³¹−1 and a collision",
			"*CollisionCount++ wraps to −2³¹ in the status write, and the sync fails with the collision",
			state(d, old, taken))
	}

	// replicas + maxSurge above 2³¹−1.
	{
		d := sc.Fenceposts(newTemplate(math.MaxInt32), intstr.FromInt32(1), intstr.FromInt32(0))
		old := sc.ReplicaSet(sc.Steady("web-old", "nginx:1", math.MaxInt32, "1", time.Hour))
		add("replicas 2³¹−1 with maxSurge 1",
			"replicas + maxSurge wraps to −2³¹: no room to create pods, and the max-replicas annotation says -2147483648",
			state(d, old))
		d = sc.Fenceposts(sc.Deployment(math.MaxInt32), intstr.FromString("100%"), intstr.FromInt32(1))
		newRS := sc.ReplicaSet(sc.Steady("web-new", "nginx:1", 10, "2", time.Minute))
		old = sc.ReplicaSet(sc.Steady("web-old", "nginx:0", 10, "1", time.Hour))
		add("replicas 2³¹−1 with maxSurge 100%",
			"a surge of 2³¹−1 itself: replicas + maxSurge wraps to −2",
			state(d, newRS, old))
		d = sc.Fenceposts(newTemplate(100), intstr.FromString("4294967296%"), intstr.FromInt32(0))
		old = sc.ReplicaSet(sc.Steady("web-old", "nginx:1", 100, "1", time.Hour))
		add("maxSurge 4294967296% of 100",
			"the scaled surge 4294967296 is not 0, so maxUnavailable stays 0; converted to int32 the surge is 0 too: a rollout with no room either way",
			state(d, old))
		d = sc.Fenceposts(newTemplate(10), intstr.FromString("99999999999999999999%"), intstr.FromInt32(1))
		old = sc.ReplicaSet(sc.Steady("web-old", "nginx:1", 10, "1", time.Hour))
		add("maxSurge beyond int",
			"the apiserver accepts any digits before %; upstream's Atoi refuses them when it sizes the new ReplicaSet, and the sync fails",
			state(d, old))
	}

	// Sums of ReplicaSet counts above 2³¹−1.
	{
		d := newTemplate(10)
		a := sc.ReplicaSet(sc.Steady("web-a", "nginx:1", 1500000000, "1", 2*time.Hour))
		b := sc.ReplicaSet(sc.Steady("web-b", "nginx:0", 1500000000, "2", time.Hour))
		add("spec, status, ready and available sums wrap",
			"two ReplicaSets of 1.5e9: every sum wraps negative, the new ReplicaSet's size and the status are upstream's nonsense",
			state(d, a, b))
		d = sc.Deployment(10)
		newRS := sc.ReplicaSet(sc.Steady("web-new", "nginx:1", 10, "3", time.Minute))
		a = sc.ReplicaSet(sc.Steady("web-a", "nginx:0", 2000000000, "1", 2*time.Hour))
		b = sc.ReplicaSet(sc.Steady("web-b", "nginx:2", 2000000000, "2", time.Hour))
		add("old ReplicaSets' sum wraps in the rolling step",
			"the room to scale down and the available total wrap in int32",
			state(d, newRS, a, b))
		d = sc.Deployment(10)
		newRS = sc.ReplicaSet(sc.Steady("web-new", "nginx:1", 10, "3", time.Minute))
		newRS.Status.TerminatingReplicas = ptr.To[int32](math.MaxInt32)
		a = sc.ReplicaSet(sc.Steady("web-a", "nginx:0", 0, "1", time.Hour))
		a.Status.TerminatingReplicas = ptr.To[int32](5)
		add("terminating sum wraps",
			"status.terminatingReplicas sums to 2³¹+4, which wraps to −2147483644",
			state(d, newRS, a))
	}

	// Proportional scaling whose product exceeds 2³¹−1.
	{
		d := paused(100000)
		d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		newRS := sc.ReplicaSet(sc.RS{Name: "web-new", Image: "nginx:1", Replicas: 25000, Current: 25000, Ready: 25000, Available: 25000, Revision: "2", Desired: "50000", Max: "50000", Age: time.Minute})
		old := sc.ReplicaSet(sc.RS{Name: "web-old", Image: "nginx:0", Replicas: 25000, Current: 25000, Ready: 25000, Available: 25000, Revision: "1", Desired: "50000", Max: "50000", Age: time.Hour})
		add("proportional product wraps, scaling up",
			"25000 × 100000 wraps to −1794967296 in int32 before the division: the old ReplicaSet's share is negative and the new one takes the leftover",
			state(d, newRS, old))
		d = sc.Deployment(50000)
		d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		newRS = sc.ReplicaSet(sc.RS{Name: "web-new", Image: "nginx:1", Replicas: 50000, Current: 50000, Ready: 50000, Available: 50000, Revision: "2", Desired: "40000", Max: "40000", Age: time.Minute})
		old = sc.ReplicaSet(sc.RS{Name: "web-old", Image: "nginx:0", Replicas: 50000, Current: 50000, Ready: 50000, Available: 50000, Revision: "1", Desired: "40000", Max: "40000", Age: time.Hour})
		add("proportional product wraps, scaling event",
			"50000 × 50000 wraps to −1794967296: shares go negative",
			state(d, newRS, old))
	}

	// Pods that are not their listed ReplicaSet's.
	add("pods keyed by an unknown UID", "upstream's pod map holds the pods of the claimed ReplicaSets only: a running pod of an unknown ReplicaSet does not hold the rollout",
		recreateWithPods(func(*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
			return map[types.UID][]*corev1.Pod{"nobody": {podOf("stray", "default", rsRef("gone", "nobody"))}}
		}))
	add("pods with foreign controllers", "listed under the old ReplicaSet but without a controller, or controlled by a Deployment, another ReplicaSet name or UID, or in another namespace: none is one of its pods",
		recreateWithPods(func(old *appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
			return map[types.UID][]*corev1.Pod{old.UID: {
				podOf("no-controller", "default", nil),
				podOf("deployment-owned", "default", &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: old.Name, UID: old.UID, Controller: ptr.To(true)}),
				podOf("other-name", "default", rsRef("web-other", old.UID)),
				podOf("other-uid", "default", rsRef(old.Name, "uid-other")),
				podOf("other-namespace", "elsewhere", rsRef(old.Name, old.UID)),
			}}
		}))
	add("a pod listed under the wrong key", "upstream finds pods by controller reference, not by the caller's grouping: a running pod of web-old listed under another UID holds the rollout",
		recreateWithPods(func(old *appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
			return map[types.UID][]*corev1.Pod{"nobody": {podOf("misfiled", "default", rsRef(old.Name, old.UID))}}
		}))
	return out
}
