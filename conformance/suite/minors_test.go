package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/conformance/minors/corpus"
	"github.com/deploysync/deploysync/conformance/upstream"
	"github.com/deploysync/deploysync/deployutil"
)

// minorsDir holds the recorded corpora (hack/record-minors.sh);
// DEPLOYSYNC_MINORS_DIR names another directory.
func minorsDir() string {
	if d := os.Getenv("DEPLOYSYNC_MINORS_DIR"); d != "" {
		return d
	}
	return "../testdata/minors"
}

// The least each corpus must hold (issue 14).
var minimum = map[string]int{
	minors.RandomFile:    5000,
	minors.TemplatesFile: 2000,
	minors.KubectlFile:   300,
}

// minimumTrajectories is the least number of trajectory seeds.
const minimumTrajectories = 200

// TestRecordedMinors checks the library against every minor's recorded
// corpus, without building that minor: each recorded state goes through
// Sync (with the minor's options) and Apply, and the result must equal the
// outcome the minor's own syncDeployment had on it (Diff, as the live
// suites compare); each template's hash must be the minor's. Sync must
// accept every state the minor's validation accepted; a state both refuse
// is counted, not compared.
func TestRecordedMinors(t *testing.T) {
	var all []string
	for m := range minors.Versions {
		all = append(all, m)
	}
	slices.Sort(all)
	for _, minor := range all {
		t.Run(minor, func(t *testing.T) {
			t.Parallel()
			checkMinor(t, minor)
		})
	}
}

// checkMinor checks one minor's corpus; it reports at most a few
// differences per file in full, and counts them all.
func checkMinor(t *testing.T, minor string) {
	dir := filepath.Join(minorsDir(), minor)
	m, err := readManifest(dir)
	if err != nil {
		t.Fatalf("no corpus for %s (record it with hack/record-minors.sh %s): %v", minor, minor, err)
	}
	if m.Minor != minor || m.Upstream != minors.Versions[minor] {
		t.Fatalf("the corpus in %s is of %s %s, not %s %s", dir, m.Minor, m.Upstream, minor, minors.Versions[minor])
	}
	opts, err := VersionOptions(minor)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{minors.ScenariosFile, minors.RandomFile, minors.TrajectoriesFile, minors.TemplatesFile, minors.KubectlFile} {
		recs, err := minors.ReadRecords(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != m.Files[file] {
			t.Errorf("%s: %d records, the manifest says %d", file, len(recs), m.Files[file])
		}
		if len(recs) < minimum[file] {
			t.Errorf("%s: %d records, fewer than %d", file, len(recs), minimum[file])
		}
		if file == minors.TrajectoriesFile {
			if n := trajectorySeeds(recs); n < minimumTrajectories {
				t.Errorf("%s: %d trajectories, fewer than %d", file, n, minimumTrajectories)
			}
		}
		var cnt recordCounts
		kc := kubectlCounts{}
		var shown int
		var differing []string
		for _, r := range recs {
			var err error
			if file == minors.KubectlFile {
				err = checkKubectlRecord(kc, minor, r)
			} else {
				err = checkRecord(&cnt, minor, r, opts)
			}
			if err == nil {
				continue
			}
			cnt.differ++
			if len(differing) < 100 {
				differing = append(differing, r.ID)
			}
			if shown < 3 {
				shown++
				t.Errorf("%s %s %s: %v", minor, file, r.ID, err)
			}
		}
		if file == minors.KubectlFile {
			t.Logf("%s %s: %d records (states), answers compared: %v; %d records differ", minor, file, len(recs), kc, cnt.differ)
		} else {
			t.Logf("%s %s: %d records: %d compared, %d refused by both, %d hashes checked (%d templates the minor's decoding changed); %d differ",
				minor, file, len(recs), cnt.compared, cnt.refusedBoth, cnt.hashes, cnt.originals, cnt.differ)
		}
		if cnt.differ > shown {
			t.Errorf("%s %s: %d records differ in all (%d shown); the first %d: %s", minor, file, cnt.differ, shown, len(differing), strings.Join(differing, ", "))
		}
	}
}

type recordCounts struct {
	compared, refusedBoth, hashes, originals, differ int
}

func readManifest(dir string) (minors.Manifest, error) {
	var m minors.Manifest
	b, err := os.ReadFile(filepath.Join(dir, minors.ManifestFile))
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

// trajectorySeeds counts the trajectories of the records ("trajectory N
// sync M").
func trajectorySeeds(recs []minors.Record) int {
	seen := map[string]bool{}
	for _, r := range recs {
		seed, _, _ := strings.Cut(strings.TrimPrefix(r.ID, "trajectory "), " ")
		seen[seed] = true
	}
	return len(seen)
}

// checkRecord compares the library with one record.
func checkRecord(cnt *recordCounts, minor string, r minors.Record, opts []deploysync.Option) error {
	s, err := corpus.State(r.Input)
	if err != nil {
		return err
	}
	if r.Hash != "" {
		if err := checkHash(cnt, minor, r, s); err != nil {
			return err
		}
	}
	if _, err := deploysync.Sync(s, append([]deploysync.Option{deploysync.WithTerminatingReplicas(r.Gate)}, opts...)...); err != nil {
		if errors.Is(err, deployutil.ErrInvalidInput) && !r.Accepted {
			cnt.refusedBoth++
			return nil
		}
		if r.Accepted {
			return fmt.Errorf("the minor's validation accepts the state, Sync refuses it: %w\ninput:\n%s", err, StateYAML(s))
		}
		return fmt.Errorf("sync: %w", err)
	}
	if r.RunnerError != "" {
		return fmt.Errorf("Sync accepts a state upstream's runner failed on: %s\ninput:\n%s", r.RunnerError, StateYAML(s))
	}
	theirs, err := recordedResult(r.Outcome)
	if err != nil {
		return err
	}
	ours, plan, err := OursWith(s, r.Gate, opts...)
	if err != nil {
		return err
	}
	cnt.compared++
	if d := Diff(ours, theirs); d != "" {
		return fmt.Errorf("deploysync differs from the recorded upstream (- upstream, + deploysync):\n%s\ndeploysync's plan:\n%s\nupstream's error: %q\ngate: %t\ninput:\n%s", d, plan, r.Outcome.Err, r.Gate, StateYAML(s))
	}
	return nil
}

// checkHash checks a template record's hash: the template of the input
// Deployment, and the template as generated if the minor's decoding changed
// it, must hash as the minor hashed it.
func checkHash(cnt *recordCounts, minor string, r minors.Record, s deploysync.State) error {
	cc := s.Deployment.Status.CollisionCount
	got, err := ComputeHashFor(minor, &s.Deployment.Spec.Template, cc)
	if err != nil {
		return err
	}
	cnt.hashes++
	if got != r.Hash {
		return fmt.Errorf("the template hashes to %q, %s hashed it to %q", got, minor, r.Hash)
	}
	if r.Original == nil {
		return nil
	}
	orig, err := corpus.Template(r.Original)
	if err != nil {
		return err
	}
	cnt.originals++
	if got, err := ComputeHashFor(minor, orig, cc); err != nil {
		return err
	} else if got != r.Hash {
		return fmt.Errorf("the template as generated (with fields %s drops) hashes to %q, %s hashed it to %q", minor, got, minor, r.Hash)
	}
	return nil
}

// recordedResult is a recorded outcome in the form Diff compares.
func recordedResult(out *minors.Outcome) (Result, error) {
	if out == nil {
		return Result{}, errors.New("no outcome recorded")
	}
	d, rss, err := corpus.Objects(out)
	if err != nil {
		return Result{}, err
	}
	r := Result{
		Deployment:         d,
		ReplicaSets:        rss,
		Failed:             out.Failed,
		RequeueRateLimited: out.RequeueRateLimited,
		RequeueAfter:       out.RequeueAfter,
	}
	for _, e := range out.Events {
		r.Events = append(r.Events, upstream.Event{Type: e.Type, Reason: e.Reason, Message: e.Message})
	}
	return normalize(r)
}
