package defaulting

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
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

// updatePair is one update: the stored Deployment, the manifest that
// updates it, and which of updatePairs' kinds it is.
type updatePair struct {
	Old    *appsv1.Deployment `json:"old"`
	Update *appsv1.Deployment `json:"update"`
	kind   string
}

// updatePairs draws n updates (seed 26) of stored accepted Deployments:
// old's manifest again (no change), it with another replica count, another
// annotation or another image, or another Deployment's manifest.
func updatePairs(t *testing.T, n int) []updatePair {
	t.Helper()
	ds, _, _ := acceptedDeployments(n + 1)
	r := rand.New(rand.NewSource(26))
	out := make([]updatePair, n)
	for i := range out {
		old := stored(t, ds[i], r)
		up := ds[i].DeepCopy()
		kind := []string{"same", "replicas", "annotation", "template", "other"}[r.Intn(5)]
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
		out[i] = updatePair{Old: old, Update: up, kind: kind}
	}
	return out
}

// TestDeploymentUpdate compares defaults.DeploymentUpdate with v1.37.2's
// update path (the registry strategy's PrepareForUpdate) on random pairs
// of accepted Deployments: old as stored (with the fields of gates that
// are off still in it, as an object stored while they were on), the
// update either old's manifest again (no change), it with another replica
// count, another annotation, or another template, or another Deployment's
// manifest altogether; and the same update of a ReplicaSet made of each
// (ReplicaSetOf) through defaults.ReplicaSetUpdate and the ReplicaSet
// strategy, and of a core/v1 PodTemplate holding each's template through
// defaults.PodTemplateUpdate and the PodTemplate strategy. The same JSON
// byte for byte, 0 differences.
func TestDeploymentUpdate(t *testing.T) {
	n := acceptedCount(t) / 2
	diffs, bumped, rsBumped, kinds := 0, 0, 0, map[string]int{}
	for i, p := range updatePairs(t, n) {
		old, up, kind := p.Old, p.Update, p.kind
		kinds[kind]++
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
		// The same update of a ReplicaSet made of each.
		oldRS, upRS := ReplicaSetOf(old), ReplicaSetOf(up)
		oursRS, err := defaults.ReplicaSetUpdate("", oldRS, upRS)
		wantRS, uerr := ReplicaSetUpdate(oldRS, upRS)
		if err != nil || uerr != nil {
			diffs++
			t.Errorf("#%d (%s) ReplicaSet: ours %v, upstream %v", i, kind, err, uerr)
			continue
		}
		if wantRS.Generation != oldRS.Generation {
			rsBumped++
		}
		if a, b := mustJSON(t, wantRS), mustJSON(t, oursRS); !bytes.Equal(a, b) {
			diffs++
			if diffs <= 3 {
				t.Errorf("#%d (%s) ReplicaSet: JSON differs\nupstream: %s\nours:     %s", i, kind, a, b)
			}
		}
		oursT, err := defaults.PodTemplateUpdate("", &old.Spec.Template, &up.Spec.Template)
		wantT, uerr := PodTemplateUpdate(&old.Spec.Template, &up.Spec.Template)
		if err != nil || uerr != nil {
			diffs++
			t.Errorf("#%d (%s) PodTemplate: ours %v, upstream %v", i, kind, err, uerr)
			continue
		}
		if a, b := mustJSON(t, wantT), mustJSON(t, oursT); !bytes.Equal(a, b) {
			diffs++
			if diffs <= 3 {
				t.Errorf("#%d (%s) PodTemplate: JSON differs\nupstream: %s\nours:     %s", i, kind, a, b)
			}
		}
	}
	t.Logf("%d updates %v of a Deployment, of a ReplicaSet and of a PodTemplate: %d and %d bumped the generation (Deployment, ReplicaSet); %d differences", n, kinds, bumped, rsBumped, diffs)
}

// recordedUpdates is the number of updates each minor's recording
// testdata/defaulting/<minor>.update.jsonl.gz holds.
const recordedUpdates = 1000

// TestWriteUpdateInputs writes, when DEPLOYSYNC_DEFAULTING_UPDATE_INPUTS
// names the file, the first recordedUpdates of updatePairs, one
// {"old": …, "update": …} a line, gzipped: the inputs
// hack/record-defaulting.sh records with each minor's update path.
func TestWriteUpdateInputs(t *testing.T) {
	path := os.Getenv("DEPLOYSYNC_DEFAULTING_UPDATE_INPUTS")
	if path == "" {
		t.Skip("DEPLOYSYNC_DEFAULTING_UPDATE_INPUTS is not set")
	}
	writeLines(t, path, updateLines(t))
}

// updateLines returns the recorded updates' input lines.
func updateLines(t *testing.T) [][]byte {
	t.Helper()
	pairs := updatePairs(t, recordedUpdates)
	lines := make([][]byte, len(pairs))
	for i := range pairs {
		lines[i] = mustJSON(t, &pairs[i])
	}
	return lines
}

// TestMinorUpdates replays every minor's recorded update path
// (testdata/defaulting/<minor>.update.jsonl.gz, written by
// hack/record-defaulting.sh with that minor's k8s.io/kubernetes: the
// stored object and the manifest decoded into that minor's types, the
// stored generation kept, the strategy's PrepareForUpdate) on the same
// updates, drawn again here. The stored objects hold the fields of every
// gate (as a store written while the gates were on), so each minor's
// checks of which disabled fields the stored template uses are compared:
// defaults.DeploymentUpdate of that minor must give the recorded JSON (by
// SHA-256 of its canonical form), and refuse where upstream fails.
func TestMinorUpdates(t *testing.T) {
	lines := updateLines(t)
	for _, m := range recordedMinors {
		recs := readRecordFile(t, m, m+".update.jsonl.gz")
		if len(recs) != len(lines) {
			t.Fatalf("%s: %d update records, want %d: record again with hack/record-defaulting.sh", m, len(recs), len(lines))
		}
		var diffs, refused, compared int
		for i, line := range lines {
			rec := recs[i]
			if rec.In != sum(line, 8) {
				t.Fatalf("%s #%d: the input is not the one recorded (the pairs changed?): record again with hack/record-defaulting.sh", m, i)
			}
			var p updatePair
			if err := json.Unmarshal(line, &p); err != nil {
				t.Fatal(err)
			}
			ours, err := defaults.DeploymentUpdate(m, p.Old, p.Update)
			switch {
			case rec.Err != "":
				refused++
				if err == nil {
					diffs++
					t.Errorf("%s #%d: upstream fails (%s), we default\ninput: %s", m, i, rec.Err, line)
				}
			case err != nil:
				diffs++
				t.Errorf("%s #%d: we refuse (%v) what upstream stores\ninput: %s", m, i, err, line)
			default:
				compared++
				if b := mustJSON(t, ours); sum(Canonical(b), 16) != rec.Out {
					diffs++
					if diffs <= 3 {
						t.Errorf("%s #%d: JSON differs from upstream's; ours: %s\ninput: %s", m, i, b, line)
					}
				}
				rs, err := defaults.ReplicaSetUpdate(m, ReplicaSetOf(p.Old), ReplicaSetOf(p.Update))
				got := "error: "
				if err == nil {
					got = sum(Canonical(mustJSON(t, rs)), 16)
				}
				if strings.HasPrefix(rec.ReplicaSet, "error: ") != (err != nil) || (err == nil && got != rec.ReplicaSet) {
					diffs++
					if diffs <= 3 {
						t.Errorf("%s #%d ReplicaSet: upstream %s, ours %s (%v)\ninput: %s", m, i, rec.ReplicaSet, got, err, line)
					}
				}
				tmpl, err := defaults.PodTemplateUpdate(m, &p.Old.Spec.Template, &p.Update.Spec.Template)
				got = "error: "
				if err == nil {
					got = sum(Canonical(mustJSON(t, tmpl)), 16)
				}
				if strings.HasPrefix(rec.Template, "error: ") != (err != nil) || (err == nil && got != rec.Template) {
					diffs++
					if diffs <= 3 {
						t.Errorf("%s #%d PodTemplate: upstream %s, ours %s (%v)\ninput: %s", m, i, rec.Template, got, err, line)
					}
				}
			}
		}
		t.Logf("%s: %d recorded updates: %d differences; %d refused by both; %d compared", m, len(lines), diffs, refused, compared)
	}
}
