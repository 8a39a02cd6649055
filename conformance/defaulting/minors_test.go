package defaulting

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/defaults"
	"github.com/deploysync/deploysync/deployutil"
)

// minorRecord is one line of a minor's recording (defaulting/record's
// Record).
type minorRecord struct {
	In    string `json:"in"`
	Out   string `json:"out"`
	Valid bool   `json:"valid"`
	Err   string `json:"err"`
	Hash  string `json:"hash"`

	ReplicaSet string `json:"rs"`
	Template   string `json:"tmpl"`
}

// recordedOthers is the number of inputs whose ReplicaSet and PodTemplate
// each recording holds too.
const recordedOthers = 2000

// recordedMinors are the minors recorded under testdata/defaulting.
var recordedMinors = []string{"1.33", "1.34", "1.35", "1.36", "1.37"}

// recordedCount is the number of Deployments each minor's recording holds.
const recordedCount = 20000

// TestWriteMinorInputs writes the inputs hack/record-defaulting.sh
// records, when DEPLOYSYNC_DEFAULTING_INPUTS names the file: the first
// recordedCount Deployments of this package's generator with seed 26 (as
// TestRandomDeployments draws them), one JSON object a line, gzipped.
func TestWriteMinorInputs(t *testing.T) {
	path := os.Getenv("DEPLOYSYNC_DEFAULTING_INPUTS")
	if path == "" {
		t.Skip("DEPLOYSYNC_DEFAULTING_INPUTS is not set")
	}
	g := newGenerator(26)
	ds := make([]*appsv1.Deployment, recordedCount)
	for i := range ds {
		ds[i], _ = g.deployment(i)
	}
	writeInputs(t, path, ds)
}

// writeInputs writes Deployments to path, one JSON object a line, gzipped.
func writeInputs(t *testing.T, path string, ds []*appsv1.Deployment) {
	t.Helper()
	lines := make([][]byte, len(ds))
	for i, d := range ds {
		lines[i] = mustJSON(t, d)
	}
	writeLines(t, path, lines)
}

// writeLines writes lines to path, gzipped, each ended by a newline.
func writeLines(t *testing.T, path string, lines [][]byte) {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, l := range lines {
		if _, err := zw.Write(append(l, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readRecords(t *testing.T, minor string) []minorRecord {
	t.Helper()
	return readRecordFile(t, minor, minor+".jsonl.gz")
}

func readRecordFile(t *testing.T, minor, name string) []minorRecord {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "defaulting", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []minorRecord
	dec := json.NewDecoder(zr)
	for {
		var r minorRecord
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", minor, err)
		}
		out = append(out, r)
	}
	return out
}

// sum returns the first n bytes of b's SHA-256 in hex, as the recorder
// writes them.
func sum(b []byte, n int) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:n])
}

// minorStats counts one minor's replay.
type minorStats struct {
	diffs, refused, compared, upstreamOnlyInvalid int
	others, otherDiffs                            int
	took                                          time.Duration
}

// TestMinorDeployments replays every minor's recorded create path
// (testdata/defaulting/<minor>.jsonl.gz, written by
// hack/record-defaulting.sh with that minor's k8s.io/kubernetes) on the
// same inputs, drawn again here: defaults.Deployment of that minor must
// give the JSON the minor's apiserver path gave, byte for byte (compared
// by SHA-256, which is what the recording keeps), and
// deployutil.ComputeHashFor of that minor the pod-template-hash its
// controller computes over the object read back. Where the minor's
// conversion fails the library must refuse; where only its validation
// refuses, the library may refuse or default (it checks only what Sync
// reads).
func TestMinorDeployments(t *testing.T) {
	recs := map[string][]minorRecord{}
	for _, m := range recordedMinors {
		recs[m] = readRecords(t, m)
		if len(recs[m]) != recordedCount {
			t.Fatalf("%s: %d records, want %d", m, len(recs[m]), recordedCount)
		}
	}
	stats := map[string]*minorStats{}
	for _, m := range recordedMinors {
		stats[m] = &minorStats{}
	}
	g := newGenerator(26)
	for i := 0; i < recordedCount; i++ {
		d, _ := g.deployment(i)
		line := mustJSON(t, d)
		for _, m := range recordedMinors {
			rec, st := recs[m][i], stats[m]
			if rec.In != sum(line, 8) {
				t.Fatalf("%s #%d: the input is not the one recorded (the generator changed?): record again with hack/record-defaulting.sh", m, i)
			}
			st.replay(t, m, i, line, rec)
		}
	}
	for _, m := range recordedMinors {
		st := stats[m]
		t.Logf("%s: %d recorded Deployments: %d differences; %d refused; %d compared (JSON and hash), of which %d upstream's full validation refuses; the ReplicaSet and PodTemplate of %d of them: %d differences; defaulting and comparing took %s",
			m, recordedCount, st.diffs, st.refused, st.compared, st.upstreamOnlyInvalid, st.others, st.otherDiffs, st.took.Round(time.Millisecond))
	}
}

// otherDigests returns, as the recorder writes them, the digests (or
// errors) of defaults.ReplicaSet on a ReplicaSet made from d and of
// defaults.PodTemplate on d's template.
func otherDigests(t *testing.T, minor string, d *appsv1.Deployment) (rs, tmpl string) {
	t.Helper()
	digest := func(v any, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return sum(Canonical(mustJSON(t, v)), 16)
	}
	in := &appsv1.ReplicaSet{ObjectMeta: d.ObjectMeta, Spec: appsv1.ReplicaSetSpec{
		Replicas: d.Spec.Replicas, MinReadySeconds: d.Spec.MinReadySeconds, Selector: d.Spec.Selector, Template: d.Spec.Template,
	}}
	r, err := defaults.ReplicaSet(minor, in.DeepCopy())
	rs = digest(r, err)
	p, err := defaults.PodTemplate(minor, &d.Spec.Template)
	tmpl = digest(p, err)
	return rs, tmpl
}

// replay compares defaults.Deployment of minor m on one recorded input
// (line, the input's JSON, #i of its file) with the recording rec of
// that minor's create path, and counts the outcome in st: the recorded
// JSON (by SHA-256) and pod-template-hash where both accept, a refusal
// where upstream's conversion fails (where only upstream's validation
// refuses, the library may refuse or default: it checks only what Sync
// reads), and for the first recordedOthers inputs the ReplicaSet and
// PodTemplate made from the Deployment.
func (st *minorStats) replay(t *testing.T, m string, i int, line []byte, rec minorRecord) {
	t.Helper()
	start := time.Now()
	var in appsv1.Deployment
	if err := json.Unmarshal(line, &in); err != nil {
		t.Fatal(err)
	}
	ours, err := defaults.Deployment(m, &in)
	diff := func(format string, args ...any) {
		st.diffs++
		if st.diffs <= 3 {
			t.Errorf("%s #%d: "+format+"\ninput: %s", append(append([]any{m, i}, args...), line)...)
		}
	}
	switch {
	case rec.Err != "":
		if err == nil {
			diff("upstream fails (%s), we default", rec.Err)
		}
		st.refused++
	case err != nil:
		if rec.Valid {
			diff("we refuse (%v) what upstream accepts", err)
		}
		st.refused++
	default:
		if !rec.Valid {
			st.upstreamOnlyInvalid++
		}
		st.compared++
		b := mustJSON(t, ours)
		if sum(Canonical(b), 16) != rec.Out {
			diff("JSON differs from upstream's; ours: %s", b)
			break
		}
		h, err := deployutil.ComputeHashFor(m, &ours.Spec.Template, nil)
		if err != nil {
			t.Fatal(err)
		}
		if h != rec.Hash {
			diff("pod-template-hash %s upstream (read back), %s ours", rec.Hash, h)
		}
	}
	// As TestRandomDeployments, the ReplicaSet and PodTemplate of a
	// Deployment both accept.
	if i < recordedOthers && rec.Err == "" && err == nil {
		st.others++
		rs, tmpl := otherDigests(t, m, &in)
		for _, c := range []struct{ kind, ours, up string }{{"ReplicaSet", rs, rec.ReplicaSet}, {"PodTemplate", tmpl, rec.Template}} {
			upErr, ourErr := strings.HasPrefix(c.up, "error: "), strings.HasPrefix(c.ours, "error: ")
			if upErr != ourErr || (!upErr && c.ours != c.up) {
				st.otherDiffs++
				if st.otherDiffs <= 3 {
					t.Errorf("%s #%d %s: upstream %s, ours %s\ninput: %s", m, i, c.kind, c.up, c.ours, line)
				}
			}
		}
	}
	st.took += time.Since(start)
}
