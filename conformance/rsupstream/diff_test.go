package rsupstream

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/replicaset"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// randomInput draws a state from the space an apiserver holds: a
// ReplicaSet (with or without a Deployment controller, being deleted or
// not, any earlier status and ReplicaFailure condition), sibling
// ReplicaSets of the same or another controller, and pods of every phase
// on several nodes, ready or not with ready times, deletion costs (valid,
// and the non-canonical ones an older pod may keep), restarts of
// containers and sidecars, deletion timestamps, owners of this, a sibling
// or another controller, orphans, other namespaces and labels that match
// or do not match. Times are whole seconds, as an apiserver stores them,
// and often equal, to exercise the tie-breaks.
func randomInput(r *rand.Rand) Input {
	pick := func(n int) int { return r.IntN(n) }
	chance := func(p float64) bool { return r.Float64() < p }
	ago := func(max int) metav1.Time {
		if chance(0.3) {
			return metav1.NewTime(t0.Add(-time.Duration(pick(4)*100) * time.Second))
		}
		return metav1.NewTime(t0.Add(-time.Duration(pick(max)) * time.Second))
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", UID: "rs-1", Generation: int64(1 + pick(3))},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(int32(pick(10))), MinReadySeconds: []int32{0, 0, 5, 30, 600}[pick(5)],
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}},
	}
	if chance(0.5) {
		rs.Spec.Template.Labels["tier"] = "x"
	}
	if chance(0.2) {
		rs.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "track", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"canary"}}}
	}
	if chance(0.03) {
		rs.Spec.Replicas = ptr.To(int32(600 + pick(50)))
	}
	dep := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-1", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	if chance(0.8) {
		rs.OwnerReferences = []metav1.OwnerReference{dep}
	}
	if chance(0.05) {
		rs.DeletionTimestamp = ptr.To(ago(100))
		rs.Finalizers = []string{"f"}
	}
	st := &rs.Status
	st.ObservedGeneration = int64(pick(4))
	st.Replicas, st.FullyLabeledReplicas = int32(pick(6)), int32(pick(6))
	st.ReadyReplicas, st.AvailableReplicas = int32(pick(4)), int32(pick(4))
	if chance(0.5) {
		st.TerminatingReplicas = ptr.To(int32(pick(3)))
	}
	if chance(0.3) {
		st.Conditions = append(st.Conditions, appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			Reason: []string{"FailedCreate", "FailedDelete"}[pick(2)], Message: "old", LastTransitionTime: ago(1000)})
	}
	if chance(0.1) {
		st.Conditions = append([]appsv1.ReplicaSetCondition{{Type: "Other", Status: corev1.ConditionFalse}}, st.Conditions...)
	}
	if chance(0.05) {
		st.Conditions = []appsv1.ReplicaSetCondition{}
	}
	in := Input{ReplicaSet: rs, Now: t0, TerminatingReplicas: chance(0.8), ExpectationsPending: chance(0.05), FailMessage: "pods is forbidden: exceeded quota"}

	var siblings []*appsv1.ReplicaSet
	for i := range pick(3) {
		s := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-s" + strconv.Itoa(i), UID: types.UID("rs-s" + strconv.Itoa(i))},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "v": strconv.Itoa(i)}}}}
		if chance(0.2) {
			s.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		}
		switch pick(3) {
		case 0, 1:
			s.OwnerReferences = []metav1.OwnerReference{dep}
		case 2:
			other := dep
			other.Name, other.UID = "api", "d-2"
			s.OwnerReferences = []metav1.OwnerReference{other}
		}
		siblings = append(siblings, s)
	}
	in.ReplicaSets = append(siblings, rs)
	r.Shuffle(len(in.ReplicaSets), func(i, j int) { in.ReplicaSets[i], in.ReplicaSets[j] = in.ReplicaSets[j], in.ReplicaSets[i] })

	n := pick(13)
	if chance(0.2) {
		n = 13 + pick(50) // past insertion sort's 12: pdqsort's own moves
	}
	if *rs.Spec.Replicas > 500 {
		n = pick(3)
	} else if chance(0.02) {
		n = 1300 + pick(200) // past burstReplicas on deletes
	}
	nodes := []string{"", "n1", "n2", "n3", "n4"}[:2+pick(4)]
	for i := range n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p" + strconv.Itoa(i),
			UID: types.UID(fmt.Sprintf("%08x", r.Uint32())), Labels: map[string]string{"app": "web"}, CreationTimestamp: ago(100000)},
			Spec: corev1.PodSpec{NodeName: nodes[pick(len(nodes))], Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		if chance(0.05) {
			p.Namespace = "other"
		}
		if chance(0.6) {
			p.Labels["tier"] = "x"
		}
		switch pick(10) {
		case 0:
			p.Labels["app"] = "other"
		case 1:
			p.Labels["track"] = "canary"
		case 2:
			if len(siblings) > 0 {
				p.Labels["v"] = strconv.Itoa(pick(len(siblings)))
			}
		}
		own := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
		switch k := pick(20); {
		case k < 12:
			p.OwnerReferences = []metav1.OwnerReference{own}
		case k < 15: // orphan, maybe with a non-controller owner
			if chance(0.3) {
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-1"}}
			}
		case k < 18:
			if len(siblings) > 0 {
				s := siblings[pick(len(siblings))]
				own.Name, own.UID = s.Name, s.UID
			} else {
				own.Kind, own.Name, own.UID = "StatefulSet", "db", "ss-1"
			}
			p.OwnerReferences = []metav1.OwnerReference{own}
		case k < 19:
			own.Kind, own.Name, own.UID = "StatefulSet", "db", "ss-1"
			p.OwnerReferences = []metav1.OwnerReference{own}
		default: // a reference with our UID but another name: not indexed under us
			own.Name = "web-old"
			p.OwnerReferences = []metav1.OwnerReference{own}
		}
		p.Status.Phase = []corev1.PodPhase{corev1.PodRunning, corev1.PodRunning, corev1.PodRunning, corev1.PodPending, corev1.PodUnknown, corev1.PodSucceeded, corev1.PodFailed, ""}[pick(8)]
		if chance(0.3) {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
		}
		switch pick(4) {
		case 0, 1:
			c := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ago(3000)}
			if chance(0.05) {
				c.LastTransitionTime = metav1.Time{}
			}
			p.Status.Conditions = append(p.Status.Conditions, c)
		case 2:
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: ago(3000)})
		}
		if chance(0.1) {
			p.DeletionTimestamp = ptr.To(ago(60))
			p.DeletionGracePeriodSeconds = ptr.To[int64](30)
		}
		if chance(0.3) {
			c := []string{"-3", "-1", "0", "1", "2", "5", "2147483647", "-2147483648", "+1", "007", "abc", "2147483648"}[pick(12)]
			p.Annotations = map[string]string{replicaset.DeletionCostAnnotation: c}
		}
		if chance(0.3) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: int32(pick(4))}}
		}
		if chance(0.1) {
			p.Spec.InitContainers = []corev1.Container{{Name: "s", Image: "envoy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "s", RestartCount: int32(pick(4))}}
		}
		in.Pods = append(in.Pods, p)
	}
	if chance(0.1) {
		in.FailCreateAt = 1 + pick(8)
	}
	if chance(0.25) {
		// A status as a previous sync left it, so that this one may have
		// nothing to write (the status is only an input here: upstream
		// judges whether it changes).
		if p, err := replicaset.Sync(replicaset.State{ReplicaSet: rs, Pods: in.Pods, ReplicaSets: in.ReplicaSets, Now: t0},
			replicaset.WithTerminatingReplicas(in.TerminatingReplicas)); err == nil && p.Status != nil {
			rs.Status = p.Status.ReplicaSet.Status
		}
	}
	if chance(0.1) && len(in.Pods) > 0 {
		in.FailDelete = in.Pods[pick(len(in.Pods))].Name
	}
	return in
}

// ours runs the library on in as upstream's outcome would read it, the
// gate set as in.TerminatingReplicas says.
func ours(in Input) (Outcome, *replicaset.Plan, error) {
	return oursWith(in, replicaset.WithTerminatingReplicas(in.TerminatingReplicas))
}

// oursWith is ours with the options given (in.TerminatingReplicas unread).
func oursWith(in Input, opts ...replicaset.Option) (Outcome, *replicaset.Plan, error) {
	state := replicaset.State{ReplicaSet: in.ReplicaSet, Pods: in.Pods, ReplicaSets: in.ReplicaSets, Now: in.Now, ExpectationsPending: in.ExpectationsPending}
	p, err := replicaset.Sync(state, opts...)
	if err != nil {
		return Outcome{}, nil, err
	}
	// Which injected failure this sync meets, and how many creates run.
	created := 0
	if p.Create != nil {
		created = p.Create.Count
		if in.FailCreateAt >= 1 && in.FailCreateAt <= p.Create.Count {
			state.PodWriteError = in.FailMessage
			tried := 0
			for _, b := range p.Create.Batches {
				tried += b
				if tried >= in.FailCreateAt {
					break
				}
			}
			created = tried - 1
		}
	}
	for _, d := range p.Delete {
		if d.Name == in.FailDelete {
			state.PodWriteError = in.FailMessage
		}
	}
	if state.PodWriteError != "" {
		if p, err = replicaset.Sync(state, opts...); err != nil {
			return Outcome{}, nil, err
		}
	}
	var out Outcome
	for _, a := range p.Adopt {
		out.Adopted = append(out.Adopted, a.Name)
	}
	for _, a := range p.Release {
		out.Released = append(out.Released, a.Name)
	}
	out.Created = created
	if created > 0 {
		out.CreatedPod = p.Create.Pod
	}
	for _, d := range p.Delete {
		out.Deleted = append(out.Deleted, d.Name)
	}
	slices.Sort(out.Deleted)
	if p.Status != nil {
		out.Status = &p.Status.ReplicaSet.Status
	}
	if p.Failed {
		out.Err = state.PodWriteError
		if p.Diff > 0 {
			out.Err = "unable to delete pods: " + out.Err
		}
	}
	if p.RequeueAfter > 0 {
		out.RequeueAfter = ptr.To(p.RequeueAfter)
	}
	return out, p, nil
}

func states() int {
	if v := os.Getenv("DEPLOYSYNC_RS_STATES"); v != "" {
		n, _ := strconv.Atoi(v)
		return n
	}
	if os.Getenv("DEPLOYSYNC_LONG") == "1" {
		return 1_000_000
	}
	return 20_000
}

// TestRandomStates compares upstream's syncReplicaSet with replicaset.Sync
// on random states (seeds 1..N, DEPLOYSYNC_RS_STATES=n or DEPLOYSYNC_LONG=1
// for a million): the pods adopted and released (in order), the number of
// pods created and the pod sent, the pods deleted, the status written, the
// error and the requeue.
func TestRandomStates(t *testing.T) {
	n := states()
	diffs := 0
	seen := map[string]int{}
	for seed := 1; seed <= n; seed++ {
		in := randomInput(rand.New(rand.NewPCG(uint64(seed), 27)))
		want, err := Run(in)
		if err != nil {
			t.Fatalf("seed %d: upstream: %v", seed, err)
		}
		got, plan, err := ours(in)
		if err != nil {
			t.Fatalf("seed %d: Sync: %v", seed, err)
		}
		count(seen, in, plan)
		if d := cmp.Diff(want, got, cmp.Comparer(func(a, b *corev1.Pod) bool { return equality.Semantic.DeepEqual(a, b) })); d != "" {
			diffs++
			if diffs <= 3 {
				y, _ := yaml.Marshal(in)
				t.Errorf("seed %d: upstream (-) and replicaset (+) differ:\n%s\nplan:\n%s\ninput:\n%s", seed, d, plan, y)
			}
		}
	}
	t.Logf("%d random states, %d differences; cases: %v", n, diffs, seen)
	if n >= 2000 {
		for _, c := range cases {
			if seen[c] == 0 {
				t.Errorf("no state exercised %q: the generator lost a case", c)
			}
		}
	}
}

var cases = []string{"ranked delete", "unsorted delete", "burst delete", "create", "burst create", "create fails", "delete fails",
	"adopt", "release", "status write", "no status write", "requeue", "failure set", "failure kept", "failure cleared",
	"rs deleting", "expectations pending", "terminating", "deletion cost", "many pods"}

// count notes which decisions a state exercised, for the case list above.
func count(seen map[string]int, in Input, p *replicaset.Plan) {
	note := func(c string, ok bool) {
		if ok {
			seen[c]++
		}
	}
	note("ranked delete", len(p.Delete) > 0 && len(p.Delete) < p.Active)
	note("unsorted delete", len(p.Delete) > 0 && len(p.Delete) == p.Active)
	note("burst delete", len(p.Delete) == replicaset.BurstReplicas)
	note("create", p.Create != nil)
	note("burst create", p.Create != nil && p.Create.Count == replicaset.BurstReplicas)
	note("create fails", p.Failed && p.Create != nil)
	note("delete fails", p.Failed && len(p.Delete) > 0)
	note("adopt", len(p.Adopt) > 0)
	note("release", len(p.Release) > 0)
	note("status write", p.Status != nil)
	note("no status write", p.Status == nil)
	note("requeue", p.RequeueAfter > 0)
	if p.Status != nil {
		for _, w := range p.Status.Why {
			note("failure set", w.Rule == action.RuleFailureSet)
			note("failure kept", w.Rule == action.RuleFailureKept)
			note("failure cleared", w.Rule == action.RuleFailureCleared)
		}
	}
	note("rs deleting", in.ReplicaSet.DeletionTimestamp != nil)
	note("expectations pending", in.ExpectationsPending)
	note("terminating", p.Terminating > 0)
	cost := false
	for _, d := range p.Delete {
		cost = cost || d.Rank.Cost != 0
	}
	note("deletion cost", cost)
	note("many pods", p.Active > 12 && len(p.Delete) > 0 && len(p.Delete) < p.Active)
}

// TestInputOrderDecides shows that upstream's choice of pods depends on
// the order its cache lists them (the sort is not a total order), so the
// comparison above, which hands both sides the same order, is one that can
// fail: the library given the pods reversed deletes other pods than
// upstream on some states.
func TestInputOrderDecides(t *testing.T) {
	differ := 0
	for seed := 1; seed <= 2000 && differ == 0; seed++ {
		in := randomInput(rand.New(rand.NewPCG(uint64(seed), 27)))
		in.FailCreateAt, in.FailDelete = 0, ""
		want, err := Run(in)
		if err != nil {
			t.Fatal(err)
		}
		rev := in
		rev.Pods = slices.Clone(in.Pods)
		slices.Reverse(rev.Pods)
		got, _, err := ours(rev)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(want.Deleted, got.Deleted) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("reversing the pods never changed which pods go: the order-dependence the package documents is not exercised")
	}
}

func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}
