package deploysync_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/scenarios"
	"github.com/deploysync/deploysync/internal/testutil"
)

// TestBadInputCatalogue is the catalogue of inputs Sync refuses (the README
// lists it): each one gets an *InputError naming the field and the value,
// never a panic and never a plan.
func TestBadInputCatalogue(t *testing.T) {
	base := func() deploysync.State {
		d := scenarios.Deployment(4)
		d.Spec.Template = scenarios.Template("nginx:2")
		old := scenarios.ReplicaSet(scenarios.Steady("web-old", "nginx:1", 4, "1", 0))
		s := deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}, Now: scenarios.Now}
		s.Pods = map[types.UID][]*corev1.Pod{old.UID: {scenarios.Pod(old, "p", corev1.PodRunning, false)}}
		return s
	}
	rollingUpdate := func(surge, unavailable *intstr.IntOrString) func(*deploysync.State) {
		return func(s *deploysync.State) {
			s.Deployment.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: surge, MaxUnavailable: unavailable}
		}
	}
	is := func(v intstr.IntOrString) *intstr.IntOrString { return &v }
	tests := []struct {
		name     string
		mutate   func(*deploysync.State)
		field    string
		value    string // a substring of the printed value, "" for a missing field
		overflow bool
		reason   string
	}{
		{"nil deployment", func(s *deploysync.State) { s.Deployment = nil }, "deployment", "", false,
			"there is nothing to sync"},
		{"nil replicas", func(s *deploysync.State) { s.Deployment.Spec.Replicas = nil }, "spec.replicas", "", false,
			"upstream dereferences it; an apiserver defaults it to 1"},
		{"negative replicas", func(s *deploysync.State) { s.Deployment.Spec.Replicas = ptr.To[int32](-1) }, "spec.replicas", "-1", false,
			"validation requires replicas ≥ 0"},
		{"nil selector", func(s *deploysync.State) { s.Deployment.Spec.Selector = nil }, "spec.selector", "", false,
			"apps/v1 requires a selector"},
		{"invalid selector", func(s *deploysync.State) {
			s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
		}, "spec.selector", "Near", false, "an operator that does not exist cannot select"},
		{"selector does not match template", func(s *deploysync.State) {
			s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}
		}, "spec.template.metadata.labels", "app=web", false, "a Deployment must select its own pods"},
		{"both fenceposts 0", rollingUpdate(is(intstr.FromInt32(0)), is(intstr.FromString("0%"))), "spec.strategy.rollingUpdate.maxUnavailable", "0%", false,
			"a rollout could never make progress; validation forbids it"},
		{"percent with garbage", rollingUpdate(is(intstr.FromString("abc%")), is(intstr.FromInt32(1))), "spec.strategy.rollingUpdate.maxSurge", "abc%", false,
			"a percentage must be digits followed by %"},
		{"string without percent", rollingUpdate(is(intstr.FromString("150")), is(intstr.FromInt32(1))), "spec.strategy.rollingUpdate.maxSurge", "150", false,
			"upstream errors on strings that are not percentages"},
		{"negative maxSurge", rollingUpdate(is(intstr.FromInt32(-2)), is(intstr.FromInt32(1))), "spec.strategy.rollingUpdate.maxSurge", "-2", false,
			"fenceposts are non-negative"},
		{"negative percent", rollingUpdate(is(intstr.FromInt32(1)), is(intstr.FromString("-5%"))), "spec.strategy.rollingUpdate.maxUnavailable", "-5%", false,
			"a negative percentage is not a percentage"},
		{"maxUnavailable above 100%", rollingUpdate(is(intstr.FromInt32(1)), is(intstr.FromString("101%"))), "spec.strategy.rollingUpdate.maxUnavailable", "101%", false,
			"more than all replicas cannot be unavailable"},
		{"nil maxSurge", rollingUpdate(nil, is(intstr.FromInt32(1))), "spec.strategy.rollingUpdate.maxSurge", "", false,
			"upstream errors on a nil maxSurge when it sizes the new ReplicaSet; an apiserver defaults it"},
		{"nil rollingUpdate", func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate = nil }, "spec.strategy.rollingUpdate", "", false,
			"upstream dereferences it"},
		{"unknown strategy", func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = "BlueGreen" }, "spec.strategy.type", "BlueGreen", false,
			"only Recreate and RollingUpdate exist"},
		{"empty strategy", func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = "" }, "spec.strategy.type", `""`, false,
			"an apiserver defaults it to RollingUpdate; deployutil.SetDefaults does too"},
		{"recreate with rollingUpdate", func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType },
			"spec.strategy.rollingUpdate", "set", false, "validation forbids rollingUpdate parameters for Recreate"},
		{"deadline not above minReadySeconds", func(s *deploysync.State) {
			s.Deployment.Spec.MinReadySeconds = 600
		}, "spec.progressDeadlineSeconds", "600", false, "validation requires progressDeadlineSeconds > minReadySeconds"},
		{"negative minReadySeconds", func(s *deploysync.State) { s.Deployment.Spec.MinReadySeconds = -1 }, "spec.minReadySeconds", "-1", false,
			"validation requires ≥ 0"},
		{"negative history limit", func(s *deploysync.State) { s.Deployment.Spec.RevisionHistoryLimit = ptr.To[int32](-1) }, "spec.revisionHistoryLimit", "-1", false,
			"validation requires ≥ 0"},
		{"name too long", func(s *deploysync.State) { s.Deployment.Name = strings.Repeat("a", 254) }, "metadata.name", "aaaa", false,
			"a name is a DNS subdomain of at most 253 characters (253 itself is fine and the ReplicaSet name is cut to fit)"},
		{"name with capitals", func(s *deploysync.State) { s.Deployment.Name = "Web" }, "metadata.name", "Web", false,
			"a name is a lowercase DNS subdomain"},
		{"status available above ready", func(s *deploysync.State) {
			s.Deployment.Status = appsv1.DeploymentStatus{Replicas: 3, ReadyReplicas: 1, AvailableReplicas: 2}
		}, "status.availableReplicas", "2", false, "status validation: available ≤ ready"},
		{"negative collision count", func(s *deploysync.State) { s.Deployment.Status.CollisionCount = ptr.To[int32](-1) }, "status.collisionCount", "-1", false,
			"status validation: ≥ 0"},
		{"collision count at the limit", func(s *deploysync.State) { s.Deployment.Status.CollisionCount = ptr.To[int32](math.MaxInt32) }, "status.collisionCount", "2147483647", true,
			"one more collision would wrap around in upstream"},
		{"replicas near MaxInt32 with 100% surge", func(s *deploysync.State) {
			s.Deployment.Spec.Replicas = ptr.To[int32](math.MaxInt32 - 10)
			rollingUpdate(is(intstr.FromString("100%")), is(intstr.FromInt32(1)))(s)
		}, "spec.strategy.rollingUpdate.maxSurge", "100%", true, "replicas + maxSurge would wrap around in upstream's int32"},
		{"replicaset nil", func(s *deploysync.State) { s.ReplicaSets = append(s.ReplicaSets, nil) }, "replicaSets", "", false,
			"a nil entry is not a ReplicaSet"},
		{"replicaset nil replicas", func(s *deploysync.State) { s.ReplicaSets[0].Spec.Replicas = nil }, "spec.replicas", "", false,
			"upstream dereferences it everywhere"},
		{"replicaset negative replicas", func(s *deploysync.State) { s.ReplicaSets[0].Spec.Replicas = ptr.To[int32](-3) }, "spec.replicas", "-3", false,
			"validation requires ≥ 0"},
		{"two replicasets with one name", func(s *deploysync.State) {
			c := s.ReplicaSets[0].DeepCopy()
			c.UID = "other"
			s.ReplicaSets = append(s.ReplicaSets, c)
		}, "metadata.name", "web-old", false, "names are unique in a namespace"},
		{"two replicasets with one UID", func(s *deploysync.State) {
			c := s.ReplicaSets[0].DeepCopy()
			c.Name = "web-twin"
			s.ReplicaSets = append(s.ReplicaSets, c)
		}, "metadata.uid", "uid-web-old", false, "old and new ReplicaSets are told apart by UID"},
		{"replicaset of another namespace", func(s *deploysync.State) { s.ReplicaSets[0].Namespace = "other" }, "metadata.namespace", "other", false,
			"the state holds one namespace"},
		{"replicaset status ready above replicas", func(s *deploysync.State) { s.ReplicaSets[0].Status.ReadyReplicas = 9 }, "status.readyReplicas", "9", false,
			"status validation: ready ≤ replicas"},
		{"garbage revision near int64 max", func(s *deploysync.State) {
			s.ReplicaSets[0].Annotations[deployutil.RevisionAnnotation] = "9223372036854775807"
		}, "metadata.annotations[deployment.kubernetes.io/revision]", "9223372036854775807", true, "the next revision would wrap around"},
		{"huge desired-replicas", func(s *deploysync.State) {
			s.ReplicaSets[0].Annotations[deployutil.DesiredReplicasAnnotation] = "4294967299"
		}, "metadata.annotations[deployment.kubernetes.io/desired-replicas]", "4294967299", true, "upstream's IsSaturated would truncate it to 3"},
		{"replica sums overflow", func(s *deploysync.State) {
			for i := 0; i < 3; i++ {
				rs := scenarios.ReplicaSet(scenarios.RS{Name: "big-" + string(rune('a'+i)), Image: "nginx:0", Replicas: math.MaxInt32 / 2})
				s.ReplicaSets = append(s.ReplicaSets, rs)
			}
		}, "spec.replicas", "", true, "the sum of the ReplicaSets' sizes would wrap around"},
		{"pods of an unknown replicaset", func(s *deploysync.State) {
			s.Pods["nobody"] = []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "stray"}}}
		}, "pods[nobody]", "nobody", false, "pods are keyed by the UID of a ReplicaSet in the state"},
		{"pod whose owner is missing", func(s *deploysync.State) {
			uid := s.ReplicaSets[0].UID
			s.Pods[uid] = append(s.Pods[uid], &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "default"}})
		}, "metadata.ownerReferences", "no controller", false, "a pod listed under a ReplicaSet must be controlled by it"},
		{"nil pod", func(s *deploysync.State) {
			uid := s.ReplicaSets[0].UID
			s.Pods[uid] = append(s.Pods[uid], nil)
		}, "pods[uid-web-old][1]", "", false, "a nil entry is not a pod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			s := base()
			tt.mutate(&s)
			frozen := testutil.Freeze(t, s.ReplicaSets, s.Pods)
			if s.Deployment != nil {
				frozen = testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
			}
			plan, err := deploysync.Sync(s)
			frozen.Check(t)
			if err == nil {
				t.Fatalf("Sync accepted it and planned:\n%s", plan)
			}
			var ie *deployutil.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not an *InputError: %v", err, err)
			}
			if !errors.Is(err, deployutil.ErrInvalidInput) {
				t.Errorf("errors.Is(err, ErrInvalidInput) is false: %v", err)
			}
			if got := errors.Is(err, deployutil.ErrOverflow); got != tt.overflow {
				t.Errorf("errors.Is(err, ErrOverflow) = %v, want %v: %v", got, tt.overflow, err)
			}
			if ie.Field != tt.field {
				t.Errorf("field %q, want %q (%v)", ie.Field, tt.field, err)
			}
			if tt.value != "" && !strings.Contains(ie.Error(), tt.value) {
				t.Errorf("error %q does not show the value %q", ie.Error(), tt.value)
			}
			if len(plan.Actions) != 0 {
				t.Errorf("a refused state still got actions")
			}
		})
	}
	if len(tests) < 25 {
		t.Errorf("the catalogue has %d entries; the README promises at least 25", len(tests))
	}
}

// TestNameAtTheLimit checks the edge the catalogue's "name too long" entry
// stops at: a Deployment name of 253 characters is valid, and its new
// ReplicaSet's name is cut so that name, dash and hash fit in 253.
func TestNameAtTheLimit(t *testing.T) {
	d := scenarios.Deployment(2)
	d.Name = strings.Repeat("a", 253)
	plan, err := deploysync.Sync(deploysync.State{Deployment: d, Now: scenarios.Now})
	if err != nil {
		t.Fatal(err)
	}
	hash := deployutil.ComputeHash(&d.Spec.Template, nil)
	want := strings.Repeat("a", 253-1-len(hash)) + "-" + hash
	create, ok := plan.Actions[0].(*action.CreateReplicaSet)
	if !ok {
		t.Fatalf("first action %s, want a create", plan.Actions[0])
	}
	if create.ReplicaSet.Name != want || len(create.ReplicaSet.Name) != 253 {
		t.Errorf("ReplicaSet name %q (%d characters), want %q", create.ReplicaSet.Name, len(create.ReplicaSet.Name), want)
	}
	if got := create.ReplicaSet.Labels[deployutil.PodTemplateHashLabel]; got != hash {
		t.Errorf("hash label %q, want the whole hash %q", got, hash)
	}
}
