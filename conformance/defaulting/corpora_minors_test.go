package defaulting

import (
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// corporaFiles are the records of each minor's corpora
// (testdata/minors/<minor>) whose inputs hold Deployments, in the order
// corpusDeployments reads them.
var corporaFiles = []string{"scenarios.jsonl.gz", "random.jsonl.gz", "templates.jsonl.gz", "trajectories.jsonl.gz", "kubectl.jsonl.gz"}

// corpusDeployments returns the distinct Deployments of a minor's corpora
// (testdata/minors/<minor>, recorded from that minor's own controller),
// each once, those whose pod template was not seen before first: the
// recorder writes the ReplicaSet and PodTemplate digests of only the
// first recordedOthers inputs, and this way every distinct template of
// the corpora is among them. The order depends only on the files.
func corpusDeployments(t *testing.T, minor string) (ds []*appsv1.Deployment, templates int) {
	t.Helper()
	seen, seenTemplate := map[string]bool{}, map[string]bool{}
	var fresh, rest []*appsv1.Deployment
	eachCorpusRecord(t, minor, func(_ string, r corpusRecord) {
		d := r.Input.Deployment
		if d == nil {
			return
		}
		key := string(mustJSON(t, d))
		if seen[key] {
			return
		}
		seen[key] = true
		if tk := string(mustJSON(t, &d.Spec.Template)); !seenTemplate[tk] {
			seenTemplate[tk] = true
			fresh = append(fresh, d)
		} else {
			rest = append(rest, d)
		}
	})
	return append(fresh, rest...), len(fresh)
}

// TestWriteCorporaInputs writes, when DEPLOYSYNC_DEFAULTING_CORPORA_INPUTS
// names a directory, each minor's corpusDeployments into
// <dir>/corpora-<minor>.jsonl.gz, the inputs hack/record-defaulting.sh
// records with that minor's create path.
func TestWriteCorporaInputs(t *testing.T) {
	dir := os.Getenv("DEPLOYSYNC_DEFAULTING_CORPORA_INPUTS")
	if dir == "" {
		t.Skip("DEPLOYSYNC_DEFAULTING_CORPORA_INPUTS is not set")
	}
	for _, m := range recordedMinors {
		ds, _ := corpusDeployments(t, m)
		writeInputs(t, filepath.Join(dir, "corpora-"+m+".jsonl.gz"), ds)
	}
}

// TestMinorCorpora replays, for every minor, its own create path recorded
// on the Deployments of its own corpora (testdata/defaulting/<minor>.corpora.jsonl.gz,
// written by hack/record-defaulting.sh with that minor's
// k8s.io/kubernetes): every distinct Deployment, and every distinct pod
// template as a PodTemplate and in a ReplicaSet, through defaults of that
// minor must give the recorded JSON (by SHA-256) and pod-template-hash,
// as TestMinorDeployments checks the random ones. TestCorporaObjects
// does the same for 1.37 in process, with the corpora's own ReplicaSets.
func TestMinorCorpora(t *testing.T) {
	for _, m := range recordedMinors {
		ds, templates := corpusDeployments(t, m)
		if templates > recordedOthers {
			t.Fatalf("%s: %d distinct templates, more than the %d inputs whose templates are recorded", m, templates, recordedOthers)
		}
		recs := readRecordFile(t, m, m+".corpora.jsonl.gz")
		if len(recs) != len(ds) {
			t.Fatalf("%s: %d records for %d distinct corpus Deployments: record again with hack/record-defaulting.sh", m, len(recs), len(ds))
		}
		st := &minorStats{}
		for i, d := range ds {
			line := mustJSON(t, d)
			if recs[i].In != sum(line, 8) {
				t.Fatalf("%s #%d: the input is not the one recorded (the corpora changed?): record again with hack/record-defaulting.sh", m, i)
			}
			st.replay(t, m, i, line, recs[i])
		}
		if st.others < templates {
			t.Errorf("%s: the templates of %d inputs compared, want all %d distinct ones", m, st.others, templates)
		}
		t.Logf("%s: %d distinct corpus Deployments (%d distinct templates): %d differences; %d refused; %d compared (JSON and hash); the ReplicaSet and PodTemplate of %d: %d differences",
			m, len(ds), templates, st.diffs, st.refused, st.compared, st.others, st.otherDiffs)
	}
}
