package deploysync_test

import (
	"errors"
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
// lists it): each one is refused by an apps/v1 apiserver (validation, or a
// nil that defaulting fills) or cannot be a snapshot of one, and gets an
// *InputError naming the field, the value and that rule, never a panic and
// never a plan. What an apiserver accepts, Sync accepts: see
// TestFormerlyRefused.
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
		name   string
		mutate func(*deploysync.State)
		field  string
		value  string // a substring of the printed value, "" for a missing field
		rule   string // a substring of the apiserver rule the error names
		reason string
	}{
		{"nil deployment", func(s *deploysync.State) { s.Deployment = nil }, "deployment", "", "not a snapshot",
			"there is nothing to sync"},
		{"nil replicas", func(s *deploysync.State) { s.Deployment.Spec.Replicas = nil }, "spec.replicas", "", "defaulting",
			"upstream dereferences it; an apiserver defaults it to 1"},
		{"negative replicas", func(s *deploysync.State) { s.Deployment.Spec.Replicas = ptr.To[int32](-1) }, "spec.replicas", "-1", "ValidateDeploymentSpec",
			"validation requires replicas ≥ 0"},
		{"nil selector", func(s *deploysync.State) { s.Deployment.Spec.Selector = nil }, "spec.selector", "", "ValidateDeploymentSpec",
			"apps/v1 requires a selector"},
		{"invalid selector", func(s *deploysync.State) {
			s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
		}, "spec.selector", "Near", "ValidateDeploymentSpec", "an operator that does not exist cannot select"},
		{"selector does not match template", func(s *deploysync.State) {
			s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}
		}, "spec.template.metadata.labels", "app=web", "ValidatePodTemplateSpecForReplicaSet", "a Deployment must select its own pods"},
		{"both fenceposts 0", rollingUpdate(is(intstr.FromInt32(0)), is(intstr.FromString("0%"))), "spec.strategy.rollingUpdate.maxUnavailable", "0%", "ValidateRollingUpdateDeployment",
			"a rollout could never make progress; validation forbids it"},
		{"percent with garbage", rollingUpdate(is(intstr.FromString("abc%")), is(intstr.FromInt32(1))), "spec.strategy.rollingUpdate.maxSurge", "abc%", "ValidatePositiveIntOrPercent",
			"a percentage must be digits followed by %"},
		{"string without percent", rollingUpdate(is(intstr.FromString("150")), is(intstr.FromInt32(1))), "spec.strategy.rollingUpdate.maxSurge", "150", "ValidatePositiveIntOrPercent",
			"upstream errors on strings that are not percentages"},
		{"negative maxSurge", rollingUpdate(is(intstr.FromInt32(-2)), is(intstr.FromInt32(1))), "spec.strategy.rollingUpdate.maxSurge", "-2", "ValidatePositiveIntOrPercent",
			"fenceposts are non-negative"},
		{"negative percent", rollingUpdate(is(intstr.FromInt32(1)), is(intstr.FromString("-5%"))), "spec.strategy.rollingUpdate.maxUnavailable", "-5%", "ValidatePositiveIntOrPercent",
			"a negative percentage is not a percentage"},
		{"maxUnavailable above 100%", rollingUpdate(is(intstr.FromInt32(1)), is(intstr.FromString("101%"))), "spec.strategy.rollingUpdate.maxUnavailable", "101%", "IsNotMoreThan100Percent",
			"more than all replicas cannot be unavailable"},
		{"nil maxSurge", rollingUpdate(nil, is(intstr.FromInt32(1))), "spec.strategy.rollingUpdate.maxSurge", "", "defaulting",
			"upstream errors on a nil maxSurge when it sizes the new ReplicaSet; an apiserver defaults it"},
		{"nil rollingUpdate", func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate = nil }, "spec.strategy.rollingUpdate", "", "defaulting",
			"upstream dereferences it"},
		{"unknown strategy", func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = "BlueGreen" }, "spec.strategy.type", "BlueGreen", "ValidateDeploymentStrategy",
			"only Recreate and RollingUpdate exist"},
		{"empty strategy", func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = "" }, "spec.strategy.type", `""`, "ValidateDeploymentStrategy",
			"an apiserver defaults it to RollingUpdate; deployutil.SetDefaults does too"},
		{"recreate with rollingUpdate", func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType },
			"spec.strategy.rollingUpdate", "set", "ValidateDeploymentStrategy", "validation forbids rollingUpdate parameters for Recreate"},
		{"deadline not above minReadySeconds", func(s *deploysync.State) {
			s.Deployment.Spec.MinReadySeconds = 600
		}, "spec.progressDeadlineSeconds", "600", "ValidateDeploymentSpec", "validation requires progressDeadlineSeconds > minReadySeconds"},
		{"negative minReadySeconds", func(s *deploysync.State) { s.Deployment.Spec.MinReadySeconds = -1 }, "spec.minReadySeconds", "-1", "ValidateDeploymentSpec",
			"validation requires ≥ 0"},
		{"negative history limit", func(s *deploysync.State) { s.Deployment.Spec.RevisionHistoryLimit = ptr.To[int32](-1) }, "spec.revisionHistoryLimit", "-1", "ValidateDeploymentSpec",
			"validation requires ≥ 0"},
		{"name too long", func(s *deploysync.State) { s.Deployment.Name = strings.Repeat("a", 254) }, "metadata.name", "aaaa", "ValidateDeploymentName",
			"a name is a DNS subdomain of at most 253 characters (253 itself is fine and the ReplicaSet name is cut to fit)"},
		{"name with capitals", func(s *deploysync.State) { s.Deployment.Name = "Web" }, "metadata.name", "Web", "ValidateDeploymentName",
			"a name is a lowercase DNS subdomain"},
		{"status available above ready", func(s *deploysync.State) {
			s.Deployment.Status = appsv1.DeploymentStatus{Replicas: 3, ReadyReplicas: 1, AvailableReplicas: 2}
		}, "status.availableReplicas", "2", "ValidateDeploymentStatus", "status validation: available ≤ ready"},
		{"negative collision count", func(s *deploysync.State) { s.Deployment.Status.CollisionCount = ptr.To[int32](-1) }, "status.collisionCount", "-1", "ValidateDeploymentStatus",
			"status validation: ≥ 0"},
		{"replicaset nil", func(s *deploysync.State) { s.ReplicaSets = append(s.ReplicaSets, nil) }, "replicaSets", "", "not a snapshot",
			"a nil entry is not a ReplicaSet"},
		{"replicaset nil replicas", func(s *deploysync.State) { s.ReplicaSets[0].Spec.Replicas = nil }, "spec.replicas", "", "defaulting",
			"upstream dereferences it everywhere"},
		{"replicaset negative replicas", func(s *deploysync.State) { s.ReplicaSets[0].Spec.Replicas = ptr.To[int32](-3) }, "spec.replicas", "-3", "ValidateReplicaSetSpec",
			"validation requires ≥ 0"},
		{"two replicasets with one name", func(s *deploysync.State) {
			c := s.ReplicaSets[0].DeepCopy()
			c.UID = "other"
			s.ReplicaSets = append(s.ReplicaSets, c)
		}, "metadata.name", "web-old", "not a snapshot", "names are unique in a namespace"},
		{"two replicasets with one UID", func(s *deploysync.State) {
			c := s.ReplicaSets[0].DeepCopy()
			c.Name = "web-twin"
			s.ReplicaSets = append(s.ReplicaSets, c)
		}, "metadata.uid", "uid-web-old", "not a snapshot", "old and new ReplicaSets are told apart by UID"},
		{"replicaset of another namespace", func(s *deploysync.State) { s.ReplicaSets[0].Namespace = "other" }, "metadata.namespace", "other", "not a snapshot",
			"the state holds one namespace"},
		{"replicaset status ready above replicas", func(s *deploysync.State) { s.ReplicaSets[0].Status.ReadyReplicas = 9 }, "status.readyReplicas", "9", "ValidateReplicaSetStatus",
			"status validation: ready ≤ replicas"},
		{"nil pod", func(s *deploysync.State) {
			uid := s.ReplicaSets[0].UID
			s.Pods[uid] = append(s.Pods[uid], nil)
		}, "pods[uid-web-old][1]", "", "not a snapshot", "a nil entry is not a pod"},
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
			if !strings.Contains(ie.Rule, tt.rule) || !strings.Contains(ie.Error(), ie.Rule) {
				t.Errorf("rule %q, want one naming %q, shown in the message (%v)", ie.Rule, tt.rule, err)
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
