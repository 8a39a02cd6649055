package defaulting

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/defaults"
	"github.com/deploysync/deploysync/deployutil"
)

// acceptedCount is the number of accepted Deployments compared in
// process: 2,000 by default, DEPLOYSYNC_DEFAULTS_ACCEPTED=n.
func acceptedCount(t *testing.T) int { return envCount(t, "DEPLOYSYNC_DEFAULTS_ACCEPTED", 2000, 0) }

// TestAcceptedDeployments compares defaults.Deployment with upstream's
// create path on Deployments that v1.37.2's full validation accepts (the
// generator's, repaired by upstream's own validation errors; see
// repair_test.go): the library must accept each, give the same JSON byte
// for byte and the pod-template-hash upstream's controller computes over
// the object read back; the ReplicaSet and PodTemplate made from each
// likewise.
func TestAcceptedDeployments(t *testing.T) {
	n := acceptedCount(t)
	ds, _, st := acceptedDeployments(n)
	diffs := 0
	for i, in := range ds {
		before := in.DeepCopy()
		ours, err := defaults.Deployment("", in)
		if !reflect.DeepEqual(in, before) {
			t.Fatalf("#%d: defaults.Deployment modified its argument", i)
		}
		up, valid, uerr := Deployment(in)
		if uerr != nil || !valid {
			t.Fatalf("#%d: the repaired Deployment is not valid upstream (%v)", i, uerr)
		}
		if err != nil {
			diffs++
			t.Errorf("#%d: we refuse (%v) what upstream accepts:\n%s", i, err, mustJSON(t, in))
			continue
		}
		d, _ := compareDeployment(t, i, in, up, ours, diffs < 5)
		diffs += d
	}
	t.Logf("%d accepted Deployments (v1.37.2's validation accepts each) of %d drawn (%d given up; %d repair rounds, %d edits): %d differences",
		len(ds), st.drawn, st.givenUp, st.rounds, st.edits, diffs)
}

// recordedAccepted is the number of accepted Deployments each minor's
// recording testdata/defaulting/<minor>.accepted.jsonl.gz holds.
const recordedAccepted = 3000

// TestWriteAcceptedInputs writes the accepted inputs
// hack/record-defaulting.sh records, when
// DEPLOYSYNC_DEFAULTING_ACCEPTED_INPUTS names the file: the first
// recordedAccepted Deployments of acceptedDeployments, one JSON object a
// line, gzipped.
func TestWriteAcceptedInputs(t *testing.T) {
	path := os.Getenv("DEPLOYSYNC_DEFAULTING_ACCEPTED_INPUTS")
	if path == "" {
		t.Skip("DEPLOYSYNC_DEFAULTING_ACCEPTED_INPUTS is not set")
	}
	ds, _, _ := acceptedDeployments(recordedAccepted)
	writeInputs(t, path, ds)
}

// TestMinorAccepted replays every minor's recorded create path of the
// accepted set (testdata/defaulting/<minor>.accepted.jsonl.gz, written by
// hack/record-defaulting.sh with that minor's k8s.io/kubernetes) on the
// same inputs, drawn and repaired again here: where the minor's full
// validation accepts the Deployment (it was repaired against v1.37.2's;
// an older minor decodes it into its own types first), defaults.Deployment
// of that minor must accept it and give the recorded JSON (by SHA-256)
// and pod-template-hash; the ReplicaSet and PodTemplate of the first
// recordedOthers likewise.
func TestMinorAccepted(t *testing.T) {
	recs := map[string][]minorRecord{}
	for _, m := range recordedMinors {
		recs[m] = readRecordFile(t, m, m+".accepted.jsonl.gz")
		if len(recs[m]) != recordedAccepted {
			t.Fatalf("%s: %d accepted records, want %d", m, len(recs[m]), recordedAccepted)
		}
	}
	ds, _, _ := acceptedDeployments(recordedAccepted)
	for _, m := range recordedMinors {
		var valid, compared, diffs, others, otherDiffs int
		for i, d := range ds {
			rec := recs[m][i]
			line := mustJSON(t, d)
			if rec.In != sum(line, 8) {
				t.Fatalf("%s #%d: the input is not the one recorded (the generator or the repair changed?): record again with hack/record-defaulting.sh", m, i)
			}
			var in appsv1.Deployment
			if err := json.Unmarshal(line, &in); err != nil {
				t.Fatal(err)
			}
			diff := func(format string, args ...any) {
				diffs++
				if diffs <= 3 {
					t.Errorf("%s #%d: "+format+"\ninput: %s", append(append([]any{m, i}, args...), line)...)
				}
			}
			ours, err := defaults.Deployment(m, &in)
			if rec.Err != "" || !rec.Valid {
				if rec.Err != "" && err == nil {
					diff("upstream fails (%s), we default", rec.Err)
				}
				continue
			}
			valid++
			if err != nil {
				diff("we refuse (%v) what upstream accepts", err)
				continue
			}
			compared++
			b := mustJSON(t, ours)
			if sum(Canonical(b), 16) != rec.Out {
				diff("JSON differs from upstream's; ours: %s", b)
				continue
			}
			h, err := deployutil.ComputeHashFor(m, &ours.Spec.Template, nil)
			if err != nil {
				t.Fatal(err)
			}
			if h != rec.Hash {
				diff("pod-template-hash %s upstream (read back), %s ours", rec.Hash, h)
			}
			if i < recordedOthers {
				others++
				rs, tmpl := otherDigests(t, m, &in)
				if rs != rec.ReplicaSet || tmpl != rec.Template {
					otherDiffs++
					if otherDiffs <= 3 {
						t.Errorf("%s #%d: ReplicaSet %s / PodTemplate %s upstream, %s / %s ours", m, i, rec.ReplicaSet, rec.Template, rs, tmpl)
					}
				}
			}
		}
		t.Logf("%s: %d accepted Deployments (by v1.37.2): %d accepted by %s's full validation, %d compared (JSON and hash): %d differences; the ReplicaSet and PodTemplate of %d: %d differences",
			m, len(ds), valid, m, compared, diffs, others, otherDiffs)
	}
}
