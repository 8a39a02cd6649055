package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/replicaset"
	"github.com/deploysync/deploysync/simulate"
)

// Which pods a scale-down deletes, named from a live snapshot (issue 27:
// "which pods to delete"; kubernetes/kubernetes#111443 asks it). A steady
// Deployment's 8 pods are given ranks a user's cluster holds — one not
// ready, deletion costs, ready ages in different logarithmic buckets, two
// pods ready at the same instant — and the simulator, run on the
// cluster's own objects with a scale to 3, names the 5 pods
// kube-controller-manager's ReplicaSet controller will delete. Where the
// simulator marks a deletion tied (simulate.Deletion.Tied) the cluster may
// delete another pod of the tie, and only the count per tie is compared.

// deletionPlan is one pod's rank as the test sets it: not ready, or ready
// age ago (inside a logarithmic bucket with room: 2^32 ns is 4.3 s, 2^33
// 8.6 s, ..., so the stamp's whole second and the time between the two
// worlds' rankings do not move it), with a deletion cost.
type deletionPlan struct {
	unready bool
	age     time.Duration
	cost    string
}

var deletionPlans = []deletionPlan{
	{unready: true},                      // first: not ready before ready
	{age: 400 * time.Second, cost: "-5"}, // then the lower cost
	{age: 5 * time.Second},               // then the most recently ready
	{age: 12 * time.Second},
	{age: 50 * time.Second}, // ready with the next at the same second: a tie when created in one second too
	{age: 50 * time.Second},
	{age: 200 * time.Second},
	{age: 25 * time.Second, cost: "10"}, // the highest cost goes last
}

func testDeletions(t *testing.T, cfg *restclient.Config) {
	ctx := context.Background()
	client := clientFor(t, cfg, "deletions")
	ns := fmt.Sprintf("deletions-%d", nsCounter.Add(1))
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	// Deleted pods stay terminating for the rest of the test.
	_, stopDrv := startPodDriver(t, client, ns, 200*time.Millisecond, 10*time.Minute)
	t.Cleanup(stopDrv)
	t.Cleanup(startReplicaSetControllerWith(t, cfg, ns, 1))
	t.Cleanup(startUpstreamDeploymentController(t, cfg, ns))

	d := newDeployment(int32(len(deletionPlans)), "nginx:1.27")
	d.Namespace = ns
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	waitSimReal(t, client, ns, "the steady state", simulate.Complete, 2*time.Minute)

	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != len(deletionPlans) {
		t.Fatalf("listing the pods: %d, %v", len(pods.Items), err)
	}
	names := make([]string, len(pods.Items))
	for i := range pods.Items {
		names[i] = pods.Items[i].Name
	}
	sort.Strings(names)
	now := time.Now()
	for i, name := range names {
		rankPod(t, client, ns, name, deletionPlans[i], now)
	}
	// The cluster's objects once the ReplicaSet's status counts the
	// unready pod, as kubectl deploysync simulate deploy/web reads them.
	state := liveSnapshot(t, client, ns, time.Now().Truncate(time.Millisecond), int32(len(deletionPlans)-1))
	tl, err := simulate.Run(state, simulate.WithChanges(simulate.SetReplicas(0, 3)))
	if err != nil {
		t.Fatalf("simulate.Run: %v", err)
	}
	var predicted []simulate.Deletion
	for _, st := range tl.Steps {
		predicted = append(predicted, st.Deleted...)
	}

	if err := retryUpdate(ctx, client, ns, func(d *appsv1.Deployment) error { d.Spec.Replicas = ptr.To[int32](3); return nil }); err != nil {
		t.Fatalf("scaling to 3: %v", err)
	}
	var deleted []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the ReplicaSet controller deleted %v, not 5 pods, in 30 s", deleted)
		}
		ps, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing pods: %v", err)
		}
		deleted = deleted[:0]
		for i := range ps.Items {
			if ps.Items[i].DeletionTimestamp != nil {
				deleted = append(deleted, ps.Items[i].Name)
			}
		}
		if len(deleted) >= 5 {
			break
		}
	}
	sort.Strings(deleted)
	verdict, problems := compareDeletions(predicted, deleted, state.Pods, state.Now)
	t.Logf("scale 8 → 3 from the live snapshot: simulator %s; cluster deleted %s: %s",
		describeDeletions(predicted), strings.Join(deleted, ", "), verdict)
	for _, p := range problems {
		t.Error(p)
	}
}

// rankPod gives the pod the plan's readiness (Ready and ContainersReady,
// their time age before now, in whole seconds as a kubelet writes it) and
// deletion cost.
func rankPod(t *testing.T, client kubernetes.Interface, ns, name string, p deletionPlan, now time.Time) {
	t.Helper()
	ctx := context.Background()
	if p.cost != "" {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, replicaset.DeletionCostAnnotation, p.cost)
		if _, err := client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("annotating pod %s: %v", name, err)
		}
	}
	status, stamp := "True", metav1.NewTime(now.Add(-p.age)).UTC().Format(time.RFC3339)
	if p.unready {
		status, stamp = "False", metav1.NewTime(now).UTC().Format(time.RFC3339)
	}
	patch := fmt.Sprintf(`{"status":{"conditions":[`+
		`{"type":"ContainersReady","status":%q,"lastTransitionTime":%q},`+
		`{"type":"Ready","status":%q,"lastTransitionTime":%q}]}}`, status, stamp, status, stamp)
	if _, err := client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("setting pod %s's readiness: %v", name, err)
	}
}

// compareDeletions holds the cluster's deleted pods to the simulator's:
// each deletion the simulator does not mark tied names a pod the cluster
// deleted; for the tied ones, the cluster deleted as many pods of each tie
// (the pods upstream's own comparison cannot tell from that pod) as the
// simulator did. pods are the snapshot's, by ReplicaSet UID; now is the
// snapshot's time.
func compareDeletions(predicted []simulate.Deletion, deleted []string, pods map[types.UID][]*corev1.Pod, now time.Time) (string, []string) {
	var problems []string
	real := map[string]bool{}
	for _, name := range deleted {
		real[name] = true
	}
	if len(deleted) != len(predicted) {
		problems = append(problems, fmt.Sprintf("the cluster deleted %d pods, the simulator %d", len(deleted), len(predicted)))
	}
	var all []*corev1.Pod
	for _, ps := range pods {
		all = append(all, ps...)
	}
	exact, tied, same := 0, 0, 0
	ties := map[string][2]int{} // a tie's pods, by name → the simulator's count, the cluster's
	for _, p := range predicted {
		if p.Unsettled > 0 {
			// The pods' ready ages are buckets apart but for the tie: no
			// circle, so every untied choice is settled.
			problems = append(problems, fmt.Sprintf("the simulator marks %s unsettled (%d kept not ranked after it), though the pods' ready ages are buckets apart", p.Pod, p.Unsettled))
		}
		if p.Tied == 0 {
			if !real[p.Pod] {
				problems = append(problems, fmt.Sprintf("the simulator deleted %s (%s, not tied) and the cluster did not", p.Pod, p.Why))
			} else {
				exact++
			}
			continue
		}
		tied++
		if real[p.Pod] {
			same++
		}
		class := strings.Join(upstreamTies(all, p.Pod, now), ",")
		c := ties[class]
		c[0]++
		ties[class] = c
	}
	for class, c := range ties {
		for _, name := range strings.Split(class, ",") {
			if real[name] {
				c[1]++
			}
		}
		if c[0] != c[1] {
			problems = append(problems, fmt.Sprintf("tie %s: the simulator deleted %d of its pods, the cluster %d", class, c[0], c[1]))
		}
	}
	verdict := fmt.Sprintf("%d named exactly, %d of a tie counted (%d the simulator's own pod)", exact, tied, same)
	if len(problems) > 0 {
		verdict += ", differs"
	} else {
		verdict += ", the same"
	}
	return verdict, problems
}

// upstreamTies returns, sorted, the names of the pods of all that
// kube-controller-manager's own comparison (pkg/controller's
// ActivePodsWithRanks, each pod ranked by its node's count as simOnNode
// counts it) orders neither before nor after the pod named, at now: the
// pod itself and those tied with it.
func upstreamTies(all []*corev1.Pod, name string, now time.Time) []string {
	i := slices.IndexFunc(all, func(q *corev1.Pod) bool { return q.Name == name })
	if i < 0 {
		return nil
	}
	p, onNode := all[i], simOnNode(all)
	var out []string
	for _, q := range all {
		pair := controller.ActivePodsWithRanks{Pods: []*corev1.Pod{p, q},
			Rank: []int{onNode[p.Spec.NodeName], onNode[q.Spec.NodeName]}, Now: metav1.NewTime(now)}
		if !pair.Less(0, 1) && !pair.Less(1, 0) {
			out = append(out, q.Name)
		}
	}
	sort.Strings(out)
	return out
}

func describeDeletions(ds []simulate.Deletion) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("#%d %s (%s", d.Position, d.Pod, d.Why)
		if d.Tied > 0 {
			parts[i] += fmt.Sprintf("; tied with %d kept", d.Tied)
		}
		if d.Unsettled > 0 {
			parts[i] += fmt.Sprintf("; %d kept not ranked after it", d.Unsettled)
		}
		parts[i] += ")"
	}
	return strings.Join(parts, ", ")
}
