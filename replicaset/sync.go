package replicaset

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
)

// BurstReplicas is the most pods one sync creates or deletes, upstream's
// BurstReplicas, which kube-controller-manager passes to the controller.
const BurstReplicas = 500

// State is what one sync reads.
type State struct {
	// ReplicaSet is the ReplicaSet synced, as read from the cache.
	ReplicaSet *appsv1.ReplicaSet
	// Pods are the pods of the cache, in the cache's order (pods of other
	// namespaces are ignored). Upstream reads them from an informer index
	// whose order is that of a map; give them in the order to decide for.
	Pods []*corev1.Pod
	// ReplicaSets are the ReplicaSets of the cache (ReplicaSet among them or
	// not). Those with the same controller as ReplicaSet are its related
	// ReplicaSets: the pods their selectors match are counted per node to
	// rank the pods to delete.
	ReplicaSets []*appsv1.ReplicaSet
	// Now is the time of the sync: availability is judged and deletion ages
	// are bucketed at Now, and a condition set is stamped with it.
	Now time.Time
	// ExpectationsPending says the controller still waits to observe
	// creates or deletes of an earlier sync: it then neither creates nor
	// deletes, and only writes the status.
	ExpectationsPending bool
	// PodWriteError, when not empty, is the error message of the first pod
	// create or delete of this sync that fails (as the apiserver words it):
	// the status then carries it in a ReplicaFailure condition and the sync
	// returns the error. Empty means every pod write succeeds.
	PodWriteError string
}

// Plan is what one sync does, in the order it does it: claim (adopt,
// release), create or delete, write the status, requeue.
type Plan struct {
	// Adopt and Release are the pod patches of claiming, in list order.
	Adopt, Release []PodPatch
	// Create is the pods created, nil when none.
	Create *Create
	// Delete is the pods deleted, in upstream's deletion order, nil when
	// none.
	Delete []Delete
	// DeleteWhy is why pods are deleted ([action.RuleDeletePods]) when
	// Delete is not empty.
	DeleteWhy action.Reason
	// Status is the status write, nil when the status does not change.
	Status *StatusUpdate
	// Active and Terminating are the claimed active pods and the claimed
	// terminating pods the sync counts; Diff is Active − spec.replicas.
	Active, Terminating, Diff int
	// RequeueAfter is when to look again, 0 for no requeue; RequeueWhy says
	// why.
	RequeueAfter time.Duration
	RequeueWhy   *action.Reason
	// Failed says the sync returns an error (a pod write failed,
	// [State.PodWriteError]): it is retried with backoff, not requeued.
	Failed bool
	// Why says why the plan creates and deletes nothing.
	Why action.Reasons
}

// PodPatch is a strategic merge patch of a pod's owner references, byte
// for byte as upstream sends it.
type PodPatch struct {
	Namespace, Name string
	UID             types.UID
	Patch           []byte
	Why             action.Reason
}

// Create is the pods a sync creates: Count pods, each Pod (generateName
// set, the ReplicaSet's controller reference), in slow-start Batches of 1,
// 2, 4, …: a batch runs its creates concurrently, and a batch with a failed
// create is the last one tried.
type Create struct {
	Count   int
	Batches []int
	Pod     *corev1.Pod
	Why     action.Reason
}

// Delete is one pod a sync deletes, with its place in the deletion order
// and what upstream ranked it by (zero when every pod goes unsorted).
type Delete struct {
	Namespace, Name string
	UID             types.UID
	Position        int
	Rank            Rank
	Why             action.Reason
}

// StatusUpdate is the status write: ReplicaSet is the ReplicaSet as read
// with its new status (observedGeneration included).
type StatusUpdate struct {
	ReplicaSet *appsv1.ReplicaSet
	Why        action.Reasons
}

// String renders the plan, one line per decision.
func (p *Plan) String() string {
	var b strings.Builder
	for _, a := range p.Adopt {
		fmt.Fprintf(&b, "- adopt pod %s: %s\n", a.Name, a.Why)
	}
	for _, a := range p.Release {
		fmt.Fprintf(&b, "- release pod %s: %s\n", a.Name, a.Why)
	}
	if p.Create != nil {
		fmt.Fprintf(&b, "- create %d pods %v: %s\n", p.Create.Count, p.Create.Batches, p.Create.Why)
	}
	if len(p.Delete) > 0 {
		fmt.Fprintf(&b, "- delete %d pods: %s\n", len(p.Delete), p.DeleteWhy)
		for _, d := range p.Delete {
			fmt.Fprintf(&b, "  - %s\n", d.Why)
		}
	}
	if p.Status != nil {
		for _, w := range p.Status.Why {
			fmt.Fprintf(&b, "- update status: %s\n", w)
		}
	}
	if p.RequeueWhy != nil {
		fmt.Fprintf(&b, "- requeue after %s: %s\n", p.RequeueAfter, p.RequeueWhy)
	}
	for _, w := range p.Why {
		fmt.Fprintf(&b, "why: %s\n", w)
	}
	return b.String()
}

// Reasons returns every reason of the plan, in the order String renders
// them: adoptions, releases, the create, the delete and each deleted pod,
// the status write's, the requeue's, and Why. A tool that explains a plan
// (or checks it, [action.Reason.Check]) reads them here.
func (p *Plan) Reasons() action.Reasons {
	var all action.Reasons
	for _, a := range p.Adopt {
		all = append(all, a.Why)
	}
	for _, a := range p.Release {
		all = append(all, a.Why)
	}
	if p.Create != nil {
		all = append(all, p.Create.Why)
	}
	if len(p.Delete) > 0 {
		all = append(all, p.DeleteWhy)
		for _, d := range p.Delete {
			all = append(all, d.Why)
		}
	}
	if p.Status != nil {
		all = append(all, p.Status.Why...)
	}
	if p.RequeueWhy != nil {
		all = append(all, *p.RequeueWhy)
	}
	return append(all, p.Why...)
}

// Sync returns the plan of one sync of the ReplicaSet controller on state
// (see the package documentation for the order of its decisions). A state
// an apiserver would not hold (no ReplicaSet, no name, namespace or UID, no
// spec.replicas or a negative one, a selector that does not parse, a nil
// pod) is an [*deployutil.InputError]. state is not modified.
func Sync(state State, opts ...Option) (*Plan, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if o.versionErr != nil {
		return nil, o.versionErr
	}
	if err := validate(state); err != nil {
		return nil, err
	}
	rs := state.ReplicaSet
	sel, _ := facts.CompileSelector(rs.Spec.Selector) // validate checked it
	p := &Plan{}
	listed := listPods(rs, state.Pods, o.version)
	active := p.claim(rs, &sel, listed)
	var terminating []*corev1.Pod
	gate := o.gate()
	if gate {
		for _, pod := range listed {
			if isTerminating(pod) && metav1.IsControlledBy(pod, rs) && sel.Matches(pod.Labels) {
				terminating = append(terminating, pod)
			}
		}
	}
	replicas := int(*rs.Spec.Replicas)
	p.Active, p.Terminating, p.Diff = len(active), len(terminating), len(active)-replicas
	manage := rs.DeletionTimestamp == nil && !state.ExpectationsPending
	switch {
	case rs.DeletionTimestamp != nil:
		p.Why = append(p.Why, action.Because(action.RuleBeingDeleted))
	case state.ExpectationsPending:
		p.Why = append(p.Why, action.Because(action.RuleExpectationsPending, action.Num("active", len(active)), action.Num("replicas", replicas)))
	case p.Diff < 0:
		p.create(rs, len(active), replicas)
	case p.Diff > 0:
		p.delete(state, rs, active, replicas)
	default:
		p.Why = append(p.Why, action.Because(action.RuleInSync, action.Num("active", len(active)), action.Num("replicas", replicas)))
	}
	failed := manage && p.Diff != 0 && state.PodWriteError != ""
	p.status(rs, active, terminating, gate, failed, state, o.version)
	if failed {
		p.Failed = true
		p.Why = append(p.Why, action.Because(action.RuleWritesFail, action.Str("message", failureMessage(p.Diff, state.PodWriteError))))
		return p, nil
	}
	if o.version.AtLeast(kversion.V1_34) {
		p.requeue(rs, active, state.Now)
	} else {
		p.requeue133(rs)
	}
	return p, nil
}

// listPods returns the pods upstream reads, each either controlled by rs
// (its controller reference's UID is rs's) or an orphan. From 1.34 it is
// FilterPodsByOwner: the pods whose controller reference names rs (kind,
// name, UID), then the orphans of its namespace, each in the given order;
// 1.33 lists the whole namespace in the given order, and ignores the pods
// of other controllers as claiming does.
func listPods(rs *appsv1.ReplicaSet, pods []*corev1.Pod, m kversion.Minor) []*corev1.Pod {
	var owned, orphans []*corev1.Pod
	for _, pod := range pods {
		if pod.Namespace != rs.Namespace {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(pod)
		switch {
		case ref == nil && m.AtLeast(kversion.V1_34):
			orphans = append(orphans, pod)
		case ref == nil:
			owned = append(owned, pod)
		case ref.UID == rs.UID && (!m.AtLeast(kversion.V1_34) || ref.Kind == "ReplicaSet" && ref.Name == rs.Name):
			owned = append(owned, pod)
		}
	}
	return append(owned, orphans...)
}

// claim keeps the active pods, adopts the matching orphans and releases the
// controlled pods that no longer match (upstream's claimPods on the active
// pods), and returns the claimed pods in list order.
func (p *Plan) claim(rs *appsv1.ReplicaSet, sel *facts.Selector, listed []*corev1.Pod) []*corev1.Pod {
	var claimed []*corev1.Pod
	deleting := rs.DeletionTimestamp != nil
	for _, pod := range listed {
		if !isActive(pod) {
			continue
		}
		if metav1.GetControllerOfNoCopy(pod) == nil {
			p.adopt(rs, sel, pod, &claimed)
			continue
		}
		if sel.Matches(pod.Labels) {
			claimed = append(claimed, pod)
		} else if !deleting {
			p.Release = append(p.Release, PodPatch{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
				Patch: facts.ReleasePatch(pod.UID, rs.UID),
				Why:   action.Because(action.RuleReleasePod, action.Str("pod", pod.Name), action.Str("replicaSet", rs.Name))})
		}
	}
	return claimed
}

// adopt adopts an active orphan whose labels match, unless rs is being
// deleted.
func (p *Plan) adopt(rs *appsv1.ReplicaSet, sel *facts.Selector, pod *corev1.Pod, claimed *[]*corev1.Pod) {
	if rs.DeletionTimestamp != nil || !sel.Matches(pod.Labels) {
		return
	}
	p.Adopt = append(p.Adopt, PodPatch{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
		Patch: adoptPatch(rs, pod.UID),
		Why:   action.Because(action.RuleAdoptPod, action.Str("pod", pod.Name), action.Str("replicaSet", rs.Name))})
	*claimed = append(*claimed, pod)
}

// create plans the creates of a sync with too few pods.
func (p *Plan) create(rs *appsv1.ReplicaSet, active, replicas int) {
	n := min(replicas-active, BurstReplicas)
	batches := slowStart(n)
	p.Create = &Create{Count: n, Batches: batches, Pod: podFromTemplate(rs),
		Why: action.Because(action.RuleCreatePods, action.Str("replicaSet", rs.Name), action.Num("active", active),
			action.Num("replicas", replicas), action.Num("create", n), action.Num("burst", BurstReplicas),
			action.Str("batches", fmt.Sprint(batches)))}
}

// slowStart returns upstream's batch sizes for n creates: 1, then each
// batch twice the last, the last batch what remains.
func slowStart(n int) []int {
	var out []int
	for size := min(n, 1); size > 0; {
		out = append(out, size)
		n -= size
		size = min(2*size, n)
	}
	return out
}

// delete plans the deletes of a sync with too many pods: the first of the
// deletion order, or every pod unsorted when all go.
func (p *Plan) delete(state State, rs *appsv1.ReplicaSet, active []*corev1.Pod, replicas int) {
	n := min(len(active)-replicas, BurstReplicas)
	p.DeleteWhy = action.Because(action.RuleDeletePods, action.Str("replicaSet", rs.Name), action.Num("active", len(active)),
		action.Num("replicas", replicas), action.Num("delete", n), action.Num("burst", BurstReplicas))
	if n >= len(active) {
		for i, pod := range active[:n] {
			p.Delete = append(p.Delete, Delete{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Position: i + 1,
				Why: action.Because(action.RuleDeleteAll, action.Str("pod", pod.Name), action.Num("position", i+1), action.Num("of", len(active)))})
		}
		return
	}
	order, ranks := DeletionOrder(active, relatedOnNode(rs, state), state.Now)
	for i, pod := range order[:n] {
		r := ranks[i]
		ready := "not ready"
		if r.Ready {
			ready = "ready"
		}
		p.Delete = append(p.Delete, Delete{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Position: i + 1, Rank: r,
			Why: action.Because(action.RuleDeleteRanked, action.Str("pod", pod.Name), action.Num("position", i+1), action.Num("of", len(order)),
				action.Str("node", r.Node), action.Num("onNode", r.OnNode), action.Str("phase", phaseText(r.Phase)),
				action.Str("ready", ready), action.Num("cost", r.Cost), action.Num("restarts", r.Restarts))})
	}
}

func phaseText(p corev1.PodPhase) string {
	if p == "" {
		return `""`
	}
	return string(p)
}

// relatedOnNode counts, per node, the active pods matched by the selector
// of a ReplicaSet with the same controller as rs (rs included), each pod
// once (by UID), in the namespace of the ReplicaSet that matches it, as
// upstream's getIndirectlyRelatedPods and getPodsRankedByRelatedPodsOnSameNode.
// A ReplicaSet without a controller has no related pods.
func relatedOnNode(rs *appsv1.ReplicaSet, state State) map[string]int {
	ref := metav1.GetControllerOfNoCopy(rs)
	if ref == nil {
		return nil
	}
	related := []*appsv1.ReplicaSet{rs}
	for _, r := range state.ReplicaSets {
		if r == nil || r.Namespace == rs.Namespace && r.Name == rs.Name {
			continue
		}
		if c := metav1.GetControllerOfNoCopy(r); c != nil && c.UID == ref.UID {
			related = append(related, r)
		}
	}
	seen := map[types.UID]bool{}
	onNode := map[string]int{}
	for _, r := range related {
		sel, err := facts.CompileSelector(r.Spec.Selector)
		if err != nil {
			continue // upstream: an invalid selector matches no pods
		}
		for _, pod := range state.Pods {
			if pod.Namespace != r.Namespace || !sel.Matches(pod.Labels) || seen[pod.UID] {
				continue
			}
			seen[pod.UID] = true
			if isActive(pod) {
				onNode[pod.Spec.NodeName]++
			}
		}
	}
	return onNode
}

func isActive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil
}

func isTerminating(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp != nil
}

// readyCondition is the pod's first Ready condition, nil when it has none.
func readyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
