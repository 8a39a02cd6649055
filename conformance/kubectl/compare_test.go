package kubectl

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/kubernetes/fake"

	dskubectl "github.com/deploysync/deploysync/kubectl"
)

// counts tallies what the comparisons covered, by outcome.
type counts map[string]int

func (c counts) String() string {
	var b strings.Builder
	for _, k := range sortedKeys(c) {
		fmt.Fprintf(&b, "%s=%d ", k, c[k])
	}
	return strings.TrimSpace(b.String())
}

// compareStatus compares dskubectl.RolloutStatus with kubectl's status viewer: the
// same message, verdict and error text.
func compareStatus(d *appsv1.Deployment, rev int64, c counts) error {
	wantMsg, wantDone, wantErr := kubectlStatus(d, rev)
	gotMsg, gotDone, gotErr := dskubectl.RolloutStatus(d, rev)
	if gotMsg != wantMsg || gotDone != wantDone || errText(gotErr) != errText(wantErr) {
		return fmt.Errorf("status (revision %d):\nkubectl: %q %v %v\nours:    %q %v %v", rev, wantMsg, wantDone, wantErr, gotMsg, gotDone, gotErr)
	}
	switch {
	case wantErr != nil:
		c["status error"]++
	case wantDone:
		c["status done"]++
	default:
		c["status waiting"]++
	}
	// The second verdict only ever holds back a done verdict.
	m2, done2, err2 := dskubectl.RolloutStatusWithTerminating(d, rev)
	if errText(err2) != errText(wantErr) || (done2 && !wantDone) || (!wantDone && m2 != wantMsg) {
		return fmt.Errorf("StatusWithTerminating (revision %d) departs from Status where it must not: %q %v %v", rev, m2, done2, err2)
	}
	return nil
}

// compareHistory compares dskubectl.HistoryText with kubectl's output, and
// dskubectl.History's rows with the table kubectl prints.
// hc is a fake clientset holding the state; the history viewer only reads.
func compareHistory(hc *fake.Clientset, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, rev int64, c counts) error {
	got, gotErr := dskubectl.HistoryText(d, rss, rev)
	var undescribed *dskubectl.UndescribedError
	if errors.As(gotErr, &undescribed) {
		// Not compared: some of these templates crash kubectl itself.
		c["history undescribed"]++
		return nil
	}
	want, wantErr := kubectlHistory(hc, d, rev)
	if got != want || errText(gotErr) != errText(wantErr) {
		return fmt.Errorf("history (revision %d):\nkubectl: %q %v\nours:    %q %v", rev, want, wantErr, got, gotErr)
	}
	switch {
	case wantErr != nil:
		c["history error"]++
	case strings.Contains(want, "No rollout history found."):
		c["history empty"]++
	case rev > 0:
		c["history template"]++
	default:
		c["history table"]++
	}
	return nil
}

// compareUndo compares dskubectl.Undo with kubectl's rollbacker: the same
// error text, or the same skip message, or the same patch bytes and the
// same Deployment once the patch is applied (or the same refusal to apply
// it).
func compareUndo(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, rev int64, c counts) error {
	want := kubectlUndo(d, rss, rev)
	got, gotErr := dskubectl.Undo(d, rss, rev)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("undo to %d: %s\nkubectl: result %q err %v patch %s\nours:    %v err %v", rev, fmt.Sprintf(format, args...),
			want.result, want.err, want.patch, got, gotErr)
	}
	switch {
	case want.patch == nil && want.err != nil:
		if gotErr == nil || gotErr.Error() != want.err.Error() {
			return fail("different error")
		}
		c["undo error"]++
	case want.patch == nil:
		if !errors.Is(gotErr, dskubectl.ErrUndoUnchanged) || gotErr.Error() != want.result {
			return fail("kubectl skipped")
		}
		c["undo skipped"]++
	default:
		if gotErr != nil || got == nil {
			return fail("kubectl patched")
		}
		if !bytes.Equal(got.Patch, want.patch) || string(got.Type) != want.patchType {
			return fail("different patch")
		}
		after, applyErr := got.ApplyTo(d)
		if want.err != nil {
			// The server refused the patch.
			if applyErr == nil || !strings.HasPrefix(want.err.Error(), "failed restoring revision") {
				return fail("kubectl's patch failed to apply, ours applied: %v", applyErr)
			}
			c["undo patch refused"]++
			return nil
		}
		if applyErr != nil {
			return fail("ours does not apply: %v", applyErr)
		}
		wantAfter := want.after.DeepCopy()
		wantAfter.ResourceVersion = after.ResourceVersion
		if !equality.Semantic.DeepEqual(after, wantAfter) {
			return fail("different Deployment after the patch:\n%s", cmp.Diff(wantAfter, after))
		}
		c["undo patched"]++
	}
	return nil
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
