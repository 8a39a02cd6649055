package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/conformance/minors/corpus"
	dskubectl "github.com/deploysync/deploysync/kubectl"
)

// kubectlCounts tallies what a kubectl corpus covered.
type kubectlCounts map[string]int

func (c kubectlCounts) String() string {
	var b strings.Builder
	for _, k := range sortedCountKeys(c) {
		fmt.Fprintf(&b, "%s=%d ", k, c[k])
	}
	return strings.TrimSpace(b.String())
}

func sortedCountKeys(c kubectlCounts) []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkKubectlRecord compares the library's package kubectl, as minor,
// with the minor's kubectl's recorded answers on one state: the describe
// printer on the Deployment's template (DescribeTemplateFor), and per
// revision the status viewer (RolloutStatus), `rollout history`
// (HistoryTextFor) and `rollout undo` (UndoFor and UndoWarning: the same
// error, or the same skip, or the same patch leaving the same Deployment,
// and the same warning on standard error).
func checkKubectlRecord(c kubectlCounts, minor string, r minors.Record) error {
	s, err := corpus.State(r.Input)
	if err != nil {
		return err
	}
	k := r.Kubectl
	if k == nil {
		return errors.New("no kubectl answers recorded")
	}
	d, rss := s.Deployment, s.ReplicaSets
	var undescribed *dskubectl.UndescribedError

	got, err := dskubectl.DescribeTemplateFor(minor, &d.Spec.Template)
	switch {
	case errors.As(err, &undescribed):
		c["describe undescribed"]++ // the library says it cannot print the field
	case err != nil:
		return fmt.Errorf("describe: %w", err)
	case k.DescribePanic != "":
		return fmt.Errorf("describe: kubectl panicked (%s), the library printed:\n%s", k.DescribePanic, got)
	case got != k.Describe:
		return fmt.Errorf("describe (- kubectl, + deploysync):\n%s", cmp.Diff(k.Describe, got))
	default:
		c["describe"]++
	}

	for _, a := range k.Revisions {
		rev := a.Revision
		msg, done, err := dskubectl.RolloutStatus(d, rev)
		if msg != a.Status || done != a.Done || errString(err) != a.StatusErr {
			return fmt.Errorf("status (revision %d):\nkubectl: %q %v %q\nours:    %q %v %q", rev, a.Status, a.Done, a.StatusErr, msg, done, errString(err))
		}
		c["status"]++

		text, err := dskubectl.HistoryTextFor(minor, d, rss, rev)
		switch {
		case errors.As(err, &undescribed):
			c["history undescribed"]++
		case a.HistoryPanic != "":
			return fmt.Errorf("history (revision %d): kubectl panicked (%s), the library answered %q %v", rev, a.HistoryPanic, text, err)
		case text != a.History || errString(err) != a.HistoryErr:
			return fmt.Errorf("history (revision %d):\nkubectl: %q %q\nours:    %q %q", rev, a.History, a.HistoryErr, text, errString(err))
		case a.HistoryErr != "":
			c["history error"]++
		default:
			c["history"]++
		}

		if err := checkUndo(c, minor, d, rss, a); err != nil {
			return fmt.Errorf("undo (revision %d): %w", rev, err)
		}
	}
	return nil
}

// checkUndo compares `kubectl rollout undo` with UndoFor and UndoWarning.
func checkUndo(c kubectlCounts, minor string, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, a minors.KubectlRevision) error {
	if a.UndoPanic != "" {
		return fmt.Errorf("kubectl panicked: %s", a.UndoPanic)
	}
	warning, err := dskubectl.UndoWarning(minor, d)
	if err != nil {
		return err
	}
	if warning != a.UndoErrOut {
		return fmt.Errorf("standard error:\nkubectl: %q\nours:    %q", a.UndoErrOut, warning)
	}
	if warning != "" {
		c["undo warning"]++
	}
	p, err := dskubectl.UndoFor(minor, d, rss, a.Revision)
	printed := "deployment.apps/" + d.Name + " " // the name printer's line
	switch {
	case a.UndoPatch == "" && a.UndoErr != "":
		if err == nil || err.Error() != a.UndoErr {
			return fmt.Errorf("kubectl: %q; ours: %v %v", a.UndoErr, p, err)
		}
		c["undo error"]++
	case a.UndoPatch == "":
		if !errors.Is(err, dskubectl.ErrUndoUnchanged) || a.UndoOut != printed+err.Error()+"\n" {
			return fmt.Errorf("kubectl skipped: %q; ours: %v %v", a.UndoOut, p, err)
		}
		c["undo skipped"]++
	default:
		if err != nil || p == nil {
			return fmt.Errorf("kubectl patched %s; ours: %v", a.UndoPatch, err)
		}
		if string(p.Patch) != a.UndoPatch || string(p.Type) != a.UndoPatchType {
			return fmt.Errorf("patch:\nkubectl: %s %s\nours:    %s %s", a.UndoPatchType, a.UndoPatch, p.Type, p.Patch)
		}
		after, applyErr := p.ApplyTo(d)
		if a.UndoErr != "" {
			if applyErr == nil || !strings.HasPrefix(a.UndoErr, "failed restoring revision") {
				return fmt.Errorf("kubectl's patch failed (%s), ours applied: %v", a.UndoErr, applyErr)
			}
			c["undo patch refused"]++
			return nil
		}
		if applyErr != nil {
			return fmt.Errorf("ours does not apply: %w", applyErr)
		}
		if a.UndoOut != printed+"rolled back\n" {
			return fmt.Errorf("kubectl printed %q after patching", a.UndoOut)
		}
		want := &appsv1.Deployment{}
		if err := json.Unmarshal(a.UndoAfter, want); err != nil {
			return err
		}
		want.ResourceVersion = after.ResourceVersion
		if !equality.Semantic.DeepEqual(after, want) {
			return fmt.Errorf("the Deployment after the patch (- kubectl, + deploysync):\n%s", cmp.Diff(want, after))
		}
		c["undo patched"]++
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestKubectlCheckTellsMinorsApart checks that the kubectl check can fail:
// 1.37's recorded `rollout undo` writes the last-applied warning (kubectl
// v0.36.3 and later), so every 1.37 record holding it must differ when
// checked as 1.35, whose undo writes nothing. (Others differ too: 1.37
// prints probe thresholds as "successThreshold=", 1.35 as "#success=".)
func TestKubectlCheckTellsMinorsApart(t *testing.T) {
	recs, err := minors.ReadRecords(filepath.Join(minorsDir(), "1.37", minors.KubectlFile))
	if err != nil {
		t.Fatal(err)
	}
	warned, differ := 0, 0
	for _, r := range recs {
		w := false
		for _, a := range r.Kubectl.Revisions {
			w = w || a.UndoErrOut != ""
		}
		err := checkKubectlRecord(kubectlCounts{}, "1.35", r)
		if err != nil {
			differ++
		}
		if w {
			warned++
			if err == nil {
				t.Errorf("%s: 1.37's kubectl warned on undo, the check as 1.35 found no difference", r.ID)
			}
		}
	}
	if warned == 0 {
		t.Error("no 1.37 record holds the undo warning")
	}
	t.Logf("%d of %d records hold the warning; checked as 1.35, %d differ", warned, len(recs), differ)
}
