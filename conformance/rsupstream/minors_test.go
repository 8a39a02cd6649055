package rsupstream

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/deploysync/deploysync/replicaset"
)

// recordedMinors are the minors recorded under testdata/replicaset.
var recordedMinors = []string{"1.33", "1.34", "1.35", "1.36", "1.37"}

// recordedStates is the number of random states each recording holds
// (seeds 1 to recordedStates of randomInput, the first states
// TestRandomStates draws).
const recordedStates = 3000

func recordingPath(minor string) string {
	return filepath.Join("..", "testdata", "replicaset", minor+".replicaset.jsonl.gz")
}

// gateDefault says whether a recorded state runs with the
// DeploymentReplicaSetTerminatingReplicas gate at the minor's default (a
// third of them, drawn apart from randomInput's stream so the states stay
// TestRandomStates' own).
func gateDefault(seed int) bool {
	return rand.New(rand.NewPCG(uint64(seed), 2733)).IntN(3) == 0
}

// minorScenarios are named states for what the minors decide differently
// (replicaset's TestMinors rows, here recorded from each minor's own
// controller).
func minorScenarios() []namedScenario {
	ready := func(node string, d time.Duration) scenarioPod {
		return scenarioPod{node: node, ready: d, age: d + time.Minute}
	}
	terminating := scenario(1, 0, []scenarioPod{ready("n1", time.Hour), ready("n2", time.Hour)}, nil)
	terminating.Pods[1].DeletionTimestamp = ptr.To(metav1.NewTime(t0.Add(-10 * time.Second)))
	renamed := scenario(1, 0, []scenarioPod{ready("n1", time.Hour)}, nil)
	renamed.Pods[0].OwnerReferences[0].Name = "web-old"
	return []namedScenario{
		{name: "terminating pod", in: terminating, reason: "status.terminatingReplicas 1 with the gate on, unset with it off"},
		{name: "requeue with one of two ready", in: scenario(2, 60, []scenarioPod{ready("n1", 20*time.Second)}, nil),
			reason: "1.33 requeues only when ready == spec.replicas; 1.34+ when ready ≠ available, at the first availability (40 s)"},
		{name: "requeue with all ready", in: scenario(2, 60, []scenarioPod{ready("n1", 20*time.Second), ready("n2", time.Hour)}, nil),
			reason: "1.33 requeues after minReadySeconds (60 s), 1.34+ at a's availability (40 s)"},
		{name: "our UID, another name", in: renamed,
			reason: "1.33 claims a pod whose controller reference has its UID; 1.34+ does not list it"},
	}
}

// listOrderSeeds are random states beyond recordedStates on which the
// order 1.33 lists pods in decides which go: the library at 1.33, handed
// the same pods with the orphans moved after the others (1.34+'s order),
// deletes other pods (found by drawing seeds from 3,001 on, states of
// fewer than 100 pods). No state of seeds 1 to recordedStates does, so
// without them the recordings could not tell 1.33's list order from
// 1.34's.
var listOrderSeeds = []int{3472, 4255, 6056, 35691, 39554}

// TestWriteRecordInputs writes the inputs hack/record-replicaset.sh
// records, when DEPLOYSYNC_RS_RECORD_INPUTS names the file: every named
// scenario (TestScenarios' and minorScenarios) with its own gate value and
// again at the minor's default, then randomInput on seeds 1 to
// recordedStates and listOrderSeeds, gateDefault choosing which run at
// the default.
func TestWriteRecordInputs(t *testing.T) {
	path := os.Getenv("DEPLOYSYNC_RS_RECORD_INPUTS")
	if path == "" {
		t.Skip("DEPLOYSYNC_RS_RECORD_INPUTS is not set")
	}
	w, err := CreateRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(namedScenarios(), minorScenarios()...) {
		for _, def := range []bool{false, true} {
			if err := w.Write(Record{Name: s.name, GateDefault: def, Input: s.in}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for seed := 1; seed <= recordedStates; seed++ {
		in := randomInput(rand.New(rand.NewPCG(uint64(seed), 27)))
		if err := w.Write(Record{Name: "random", Seed: seed, GateDefault: gateDefault(seed), Input: in}); err != nil {
			t.Fatal(err)
		}
	}
	for _, seed := range listOrderSeeds {
		in := randomInput(rand.New(rand.NewPCG(uint64(seed), 27)))
		if err := w.Write(Record{Name: "list order", Seed: seed, GateDefault: gateDefault(seed), Input: in}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// minorCases are the kinds of decision, beyond cases, that tell the
// minors apart; each minor's recording must reach every one.
var minorCases = []string{"gate default", "gate set", "terminating at default", "requeue", "claimed by UID alone", "list order"}

// checkRecording runs replicaset.Sync with WithKubernetesVersion(minor)
// (and WithTerminatingReplicas unless the record ran at the gate's
// default) on every record of a minor's recording and compares the
// outcome with upstream's, both read as JSON: it returns the records, the
// differences and the kinds of decision reached. report is called on a
// difference.
func checkRecording(t *testing.T, minor string, opts []replicaset.Option, report func(Record, string, *replicaset.Plan)) (n, diffs int, seen map[string]int) {
	t.Helper()
	seen = map[string]int{}
	err := ReadRecords(recordingPath(minor), func(r Record) error {
		n++
		o := append([]replicaset.Option{replicaset.WithKubernetesVersion(minor)}, opts...)
		if r.GateDefault {
			seen["gate default"]++
		} else {
			seen["gate set"]++
			o = append(o, replicaset.WithTerminatingReplicas(r.Input.TerminatingReplicas))
		}
		got, plan, err := oursWith(r.Input, o...)
		if err != nil {
			t.Fatalf("%s %s %d: Sync: %v", minor, r.Name, r.Seed, err)
		}
		count(seen, r.Input, plan)
		if r.Name == "list order" {
			seen["list order"]++
		}
		for _, p := range r.Input.Pods {
			if r.GateDefault && p.DeletionTimestamp != nil && p.Namespace == r.Input.ReplicaSet.Namespace && metav1.IsControlledBy(p, r.Input.ReplicaSet) {
				seen["terminating at default"]++ // a pod the gate counts, or not, at the minor's default
				break
			}
		}
		for _, p := range r.Input.Pods {
			if ref := metav1.GetControllerOf(p); ref != nil && ref.UID == r.Input.ReplicaSet.UID && ref.Name != r.Input.ReplicaSet.Name &&
				p.Namespace == r.Input.ReplicaSet.Namespace && p.DeletionTimestamp == nil {
				seen["claimed by UID alone"]++
				break
			}
		}
		if d := diffOutcome(*r.Outcome, got); d != "" {
			diffs++
			report(r, d, plan)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, diffs, seen
}

// diffOutcome compares upstream's recorded outcome with the library's,
// the library's read through JSON as the recording was.
func diffOutcome(want, got Outcome) string {
	b, err := json.Marshal(got)
	if err != nil {
		return err.Error()
	}
	var back Outcome
	if err := json.Unmarshal(b, &back); err != nil {
		return err.Error()
	}
	return cmp.Diff(want, back, cmp.Comparer(func(a, b *corev1.Pod) bool { return equality.Semantic.DeepEqual(a, b) }))
}

// TestRecordedMinors holds replicaset.Sync of each minor 1.33 to 1.37 to
// that minor's own pkg/controller/replicaset, recorded by
// hack/record-replicaset.sh (no older k8s.io/kubernetes is built here):
// every named scenario and recordedStates random states, 0 differences,
// and every kind of decision of cases and minorCases reached in each
// minor's recording.
func TestRecordedMinors(t *testing.T) {
	for _, minor := range recordedMinors {
		t.Run(minor, func(t *testing.T) {
			shown := 0
			n, diffs, seen := checkRecording(t, minor, nil, func(r Record, d string, plan *replicaset.Plan) {
				if shown++; shown <= 3 {
					y, _ := yaml.Marshal(r.Input)
					if os.Getenv("DEPLOYSYNC_RS_SHOW_INPUT") == "" {
						y = []byte("(DEPLOYSYNC_RS_SHOW_INPUT=1 shows it)")
					}
					t.Errorf("%s seed %d (gate default %v): upstream %s (-) and replicaset (+) differ:\n%s\nplan:\n%s\ninput:\n%s", r.Name, r.Seed, r.GateDefault, minor, d, plan, y)
				}
			})
			t.Logf("%s: %d records, %d differences; cases: %v", minor, n, diffs, seen)
			if diffs > 0 {
				t.Errorf("%s: %d of %d records differ", minor, diffs, n)
			}
			if n < recordedStates {
				t.Errorf("%s: %d records, want at least %d", minor, n, recordedStates)
			}
			for _, c := range append(cases, minorCases...) {
				if seen[c] == 0 {
					t.Errorf("%s: no record exercised %q", minor, c)
				}
			}
		})
	}
}

// TestRecordedEqualsInProcess shows the recorder is the in-process
// runner: every record of the 1.37 recording, run again through Run here
// (v1.37.2, the same code the recorder was built from), gives the
// recorded outcome.
func TestRecordedEqualsInProcess(t *testing.T) {
	n, diffs := 0, 0
	err := ReadRecords(recordingPath("1.37"), func(r Record) error {
		n++
		got, err := Run(r.Input)
		if err != nil {
			return err
		}
		if d := diffOutcome(*r.Outcome, got); d != "" {
			if diffs++; diffs <= 3 {
				t.Errorf("%s seed %d: recorded (-) and in-process (+) differ:\n%s", r.Name, r.Seed, d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1.37: %d records run in process, %d differences", n, diffs)
	if n < recordedStates {
		t.Errorf("%d records, want at least %d", n, recordedStates)
	}
}

// TestRecordingsTellMinorsApart shows the check above can fail: a minor's
// recording checked with the next minor's rules differs where the library
// says the minors differ (1.33 from 1.34: listing, claiming, the requeue,
// availability; 1.34 from 1.35: the gate's default). 1.35, 1.36 and 1.37
// decide alike here (their recordings are the same bytes).
func TestRecordingsTellMinorsApart(t *testing.T) {
	for _, pair := range [][2]string{{"1.33", "1.34"}, {"1.34", "1.35"}} {
		n, diffs, _ := checkRecording(t, pair[0], []replicaset.Option{replicaset.WithKubernetesVersion(pair[1])}, func(Record, string, *replicaset.Plan) {})
		t.Logf("%s's recording checked as %s: %d of %d records differ", pair[0], pair[1], diffs, n)
		if diffs == 0 {
			t.Errorf("%s's recording checked as %s: no difference; the recordings do not tell the minors apart", pair[0], pair[1])
		}
	}
}
