package defaulting

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/defaults"
)

// stored returns d as a store may hold it: defaulted and converted by
// v1.37.2 but with no field dropped (as an apiserver whose gates were on
// stored it), with a generation and a status.
func stored(t *testing.T, d *appsv1.Deployment, r *rand.Rand) *appsv1.Deployment {
	t.Helper()
	obj := d.DeepCopy()
	legacyscheme.Scheme.Default(obj)
	obj.Generation = int64(1 + r.Intn(9))
	obj.Status = appsv1.DeploymentStatus{ObservedGeneration: obj.Generation - 1, Replicas: int32(1 + r.Intn(5)), UpdatedReplicas: 1}
	obj.APIVersion, obj.Kind = "apps/v1", "Deployment"
	return obj
}

// TestDeploymentUpdate compares defaults.DeploymentUpdate with v1.37.2's
// update path (the registry strategy's PrepareForUpdate) on random pairs
// of accepted Deployments: old as stored (with the fields of gates that
// are off still in it, as an object stored while they were on), the
// update either old's manifest again (no change), it with another replica
// count, another annotation, or another template, or another Deployment's
// manifest altogether. The same JSON byte for byte, 0 differences.
func TestDeploymentUpdate(t *testing.T) {
	n := acceptedCount(t) / 2
	ds, _, _ := acceptedDeployments(n + 1)
	r := rand.New(rand.NewSource(26))
	diffs, bumped, kinds := 0, 0, map[string]int{}
	for i := 0; i < n; i++ {
		old := stored(t, ds[i], r)
		up := ds[i].DeepCopy()
		kind := []string{"same", "replicas", "annotation", "template", "other"}[r.Intn(5)]
		kinds[kind]++
		switch kind {
		case "replicas":
			up.Spec.Replicas = ptr.To[int32](int32(r.Intn(7)))
		case "annotation":
			if up.Annotations == nil {
				up.Annotations = map[string]string{}
			}
			up.Annotations["example.com/note"] = fmt.Sprint(i)
		case "template":
			up.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
		case "other":
			up = ds[i+1].DeepCopy()
			up.Name = ds[i].Name
		}
		before := up.DeepCopy()
		ours, err := defaults.DeploymentUpdate("", old, up)
		if !bytes.Equal(mustJSON(t, up), mustJSON(t, before)) {
			t.Fatalf("#%d: DeploymentUpdate modified its argument", i)
		}
		want, uerr := DeploymentUpdate(old, up)
		if err != nil || uerr != nil {
			diffs++
			t.Errorf("#%d (%s): ours %v, upstream %v", i, kind, err, uerr)
			continue
		}
		if want.Generation != old.Generation {
			bumped++
		}
		if a, b := mustJSON(t, want), mustJSON(t, ours); !bytes.Equal(a, b) {
			diffs++
			if diffs <= 3 {
				t.Errorf("#%d (%s): JSON differs\nold:      %s\nupdate:   %s\nupstream: %s\nours:     %s", i, kind, mustJSON(t, old), mustJSON(t, up), a, b)
			}
		}
	}
	t.Logf("%d updates %v: %d bumped the generation; %d differences", n, kinds, bumped, diffs)
}
