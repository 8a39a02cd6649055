package deploysync_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestScenarioTranscripts runs every named scenario through Sync and Apply
// and compares a readable transcript with testdata/scenarios/<name>.golden.
// The conformance module runs the same scenarios against upstream's
// controller; these files pin the plans (reasons included) between those
// runs and show them for review.
func TestScenarioTranscripts(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range scenarios.All() {
		t.Run(sc.Name, func(t *testing.T) {
			if sc.Reason == "" {
				t.Fatal("reason must be provided")
			}
			if seen[sc.Name] {
				t.Fatalf("duplicate scenario name %q", sc.Name)
			}
			seen[sc.Name] = true
			got := transcript(t, sc)
			testutil.Golden(t, filepath.Join("testdata", "scenarios", fileName(sc.Name)+".golden"), got)
		})
	}
}

// fileName is the golden file's name for a scenario. It keeps to the
// characters a Go module zip accepts in a path (an apostrophe is not one:
// `go get` of the published module would fail to create its zip).
func fileName(name string) string {
	r := strings.NewReplacer(" ", "-", "/", "-", ".", "_", "'", "")
	return r.Replace(strings.ToLower(name))
}

func transcript(t *testing.T, sc scenarios.Scenario) string {
	t.Helper()
	s := sc.State
	frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
	plan, err := deploysync.Sync(s, sc.Options()...)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	after, err := deploysync.Apply(s, plan)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	frozen.Check(t)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n# %s\n\n", sc.Name, sc.Reason)
	b.WriteString(plan.String())
	b.WriteString("\n\n# after Apply\n")
	writeDeployment(&b, after.Deployment)
	rss := append([]*appsv1.ReplicaSet(nil), after.ReplicaSets...)
	sort.Slice(rss, func(i, j int) bool { return rss[i].Name < rss[j].Name })
	for _, rs := range rss {
		writeReplicaSet(&b, rs)
	}
	return b.String()
}

func writeDeployment(b *strings.Builder, d *appsv1.Deployment) {
	s := d.Status
	fmt.Fprintf(b, "deployment %s annotations=%s\n", d.Name, annotations(d.Annotations))
	fmt.Fprintf(b, "  status og=%d replicas=%d updated=%d ready=%d available=%d unavailable=%d terminating=%s collisions=%s\n",
		s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas,
		ptrString(s.TerminatingReplicas), ptrString(s.CollisionCount))
	for _, c := range s.Conditions {
		fmt.Fprintf(b, "  condition %s=%s %s %q updated=%s transitioned=%s\n", c.Type, c.Status, c.Reason, c.Message,
			c.LastUpdateTime.UTC().Format("15:04:05"), c.LastTransitionTime.UTC().Format("15:04:05"))
	}
}

func writeReplicaSet(b *strings.Builder, rs *appsv1.ReplicaSet) {
	owner := "orphan"
	for _, r := range rs.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			owner = string(r.UID)
		}
	}
	fmt.Fprintf(b, "replicaset %s replicas=%d minReady=%d owner=%s annotations=%s\n", rs.Name, *rs.Spec.Replicas, rs.Spec.MinReadySeconds, owner, annotations(rs.Annotations))
}

func annotations(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strings.TrimPrefix(k, "deployment.kubernetes.io/") + "=" + m[k]
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func ptrString(p *int32) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}
