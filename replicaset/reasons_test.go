package replicaset_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/replicaset"
)

// replicaSetRules reads package action's rules of the ReplicaSet
// controller (the second const block of action/rules.go): every one of
// them is a decision Sync makes.
func replicaSetRules(t *testing.T) []action.Rule {
	t.Helper()
	blocks, err := testutil.RuleBlocks(filepath.Join("..", "action", "rules.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || !slices.Contains(blocks[1], string(action.RuleCreatePods)) {
		t.Fatalf("action/rules.go: want the ReplicaSet controller's rules as its second const block; found %d blocks", len(blocks))
	}
	var out []action.Rule
	for _, r := range blocks[1] {
		out = append(out, action.Rule(r))
	}
	return out
}

// readyNoTime makes a pod ready without a ready time: never available
// while minReadySeconds is set, and no time says when it becomes so.
func readyNoTime() podOpt {
	return func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
}

// TestReasonsCheck syncs a range of states (each minor's rules, too few,
// as many and too many pods, orphans and strays, failing writes, pending
// expectations, a ReplicaSet being deleted, minReadySeconds) and checks
// that every reason of every plan passes action.Reason.Check and renders
// as its rule's sentence, that every reason is of a ReplicaSet rule, and
// that the range reaches each ReplicaSet rule.
func TestReasonsCheck(t *testing.T) {
	podSets := map[string]func() []*corev1.Pod{
		"none": func() []*corev1.Pod { return nil },
		"two":  func() []*corev1.Pod { return pods(2) },
		"ready": func() []*corev1.Pod {
			return []*corev1.Pod{mkPod("a", ready(20*time.Second)), mkPod("b", ready(time.Hour))}
		},
		"mixed": func() []*corev1.Pod {
			return []*corev1.Pod{mkPod("a", ready(time.Hour), restarts(2)), mkPod("b", phase(corev1.PodPending), node("")),
				mkPod("c", cost("5")), mkPod("d", readyNoTime())}
		},
		"claims": func() []*corev1.Pod {
			return []*corev1.Pod{mkPod("a"), mkPod("o", orphan()), mkPod("s", labels(map[string]string{"app": "web", "v": "x"})),
				mkPod("stray", labels(map[string]string{"app": "other"})), mkPod("gone", deleting())}
		},
	}
	seen := map[action.Rule]int{}
	for _, version := range []string{"1.33", "1.34", "1.37"} {
		for set, mk := range podSets {
			for _, replicas := range []int32{0, 1, 2, 3} {
				for flags := range 32 {
					rs := newRS(replicas)
					if flags&1 != 0 {
						rs.Spec.MinReadySeconds = 60
					}
					if flags&2 != 0 {
						rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedDelete"}}
					}
					if flags&4 != 0 {
						rs.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
					}
					state := replicaset.State{ReplicaSet: rs, Pods: mk(), ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: t0,
						ExpectationsPending: flags&8 != 0}
					if flags&16 != 0 {
						state.PodWriteError = "quota exceeded"
					}
					name := fmt.Sprintf("%s/%s/%d/%05b", version, set, replicas, flags)
					p, err := replicaset.Sync(state, replicaset.WithKubernetesVersion(version))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for _, r := range p.Reasons() {
						seen[r.Rule]++
						if err := r.Check(); err != nil {
							t.Errorf("%s: %v", name, err)
						}
						if s := r.String(); strings.HasPrefix(s, string(r.Rule)) || strings.Contains(s, "%!") {
							t.Errorf("%s: reason %s does not render as a sentence: %q", name, r.Rule, s)
						}
					}
				}
			}
		}
	}
	for _, rule := range replicaSetRules(t) {
		if seen[rule] == 0 {
			t.Errorf("no plan of the range has a %s reason", rule)
		}
		delete(seen, rule)
	}
	for rule := range seen {
		t.Errorf("a plan has a %s reason, which is no ReplicaSet rule", rule)
	}
}

// TestReplicaSetRuleSentences checks that each ReplicaSet rule has a
// sentence in package action: a reason of it with no values fails Check as
// a known rule with the wrong values (or passes, for a rule without
// values), never as an unknown rule, which would render as its bare name.
func TestReplicaSetRuleSentences(t *testing.T) {
	for _, rule := range replicaSetRules(t) {
		err := action.Because(rule).Check()
		if err != nil && strings.Contains(err.Error(), "unknown rule") {
			t.Errorf("%s has no sentence in package action: %v", rule, err)
		}
	}
}
