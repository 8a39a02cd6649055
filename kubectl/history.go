package kubectl

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"text/tabwriter"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
)

// Entry is one revision of a Deployment's rollout history, as `kubectl
// rollout history` knows it.
type Entry struct {
	// Revision is the ReplicaSet's deployment.kubernetes.io/revision (0 when
	// the annotation is missing).
	Revision int64
	// ChangeCause is the kubernetes.io/change-cause annotation of the
	// ReplicaSet, or — when the ReplicaSet has none or an empty one — of its
	// pod template; "" when neither has one. kubectl prints "" as <none>.
	ChangeCause string
	// ReplicaSet holds the revision: of several ReplicaSets with the same
	// revision, the last in kubectl's order (old ReplicaSets by creation
	// time then name, the new one last).
	ReplicaSet *appsv1.ReplicaSet
	// Template is the pod template `kubectl rollout history --revision=N`
	// describes: the ReplicaSet's, pod-template-hash label included, with a
	// non-nil annotation map that carries ChangeCause when it is not empty.
	// It is a deep copy.
	Template corev1.PodTemplateSpec
}

// HistoryReplicaSets returns the ReplicaSets kubectl considers the
// Deployment's when it shows or undoes its history, in kubectl's order, by
// these rules:
//
//  1. Only ReplicaSets of d's namespace whose labels match d's selector
//     (kubectl lists them with the selector) and whose controller reference
//     is d (same UID) count. kubectl never adopts or releases.
//  2. The new ReplicaSet is the oldest (by creation time, then name) whose
//     template equals d's, ignoring the pod-template-hash label.
//  3. The order is the others, oldest first, then the new one.
//
// It returns an error if d's selector is invalid, with kubectl's text.
func HistoryReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) ([]*appsv1.ReplicaSet, error) {
	sel, err := listSelector(d)
	if err != nil {
		return nil, fmt.Errorf("failed to retrieve replica sets from deployment %s: %v", d.Name, err)
	}
	var owned []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && rs.Namespace == d.Namespace && sel.Matches(labels.Set(rs.Labels)) && metav1.IsControlledBy(rs, d) {
			owned = append(owned, rs)
		}
	}
	newRS, old := facts.SplitReplicaSets(d, owned)
	if newRS != nil {
		old = append(old, newRS)
	}
	return old, nil
}

// listSelector is the selector an apiserver applies when kubectl lists with
// d's selector: kubectl sends its string form, which the server parses again.
// A nil selector prints as "" and so selects everything.
func listSelector(d *appsv1.Deployment) (labels.Selector, error) {
	s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	return labels.Parse(s.String())
}

// History returns the Deployment's rollout history, ascending by revision,
// as `kubectl rollout history deployment/NAME` builds it from rss (the
// ReplicaSets of the namespace; see [HistoryReplicaSets] for which count).
// A ReplicaSet whose revision annotation does not parse is left out (kubectl
// logs a warning); of two with the same revision, the later in kubectl's
// order wins. Neither d nor rss is modified.
func History(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) ([]Entry, error) {
	owned, err := HistoryReplicaSets(d, rss)
	if err != nil {
		return nil, err
	}
	byRev := map[int64]*appsv1.ReplicaSet{}
	for _, rs := range owned {
		v, err := deployutil.Revision(rs)
		if err != nil {
			continue
		}
		byRev[v] = rs
	}
	out := make([]Entry, 0, len(byRev))
	for v, rs := range byRev {
		out = append(out, entry(v, rs))
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Revision, b.Revision) })
	return out, nil
}

func entry(v int64, rs *appsv1.ReplicaSet) Entry {
	t := *rs.Spec.Template.DeepCopy()
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	if c := rs.Annotations[deployutil.ChangeCauseAnnotation]; c != "" {
		t.Annotations[deployutil.ChangeCauseAnnotation] = c
	}
	return Entry{Revision: v, ChangeCause: t.Annotations[deployutil.ChangeCauseAnnotation], ReplicaSet: rs, Template: t}
}

// HistoryText returns what `kubectl rollout history deployment/NAME` prints
// on standard output, byte for byte, for the Deployment d and the
// ReplicaSets of its namespace; with revision > 0, what
// `--revision=N` prints. The rules:
//
//  1. The first line is "deployment.apps/NAME " — or "deployment.apps/NAME
//     with revision #N" — and a newline.
//  2. No revision at all (see [History]): "No rollout history found.",
//     whatever revision was asked.
//  3. revision > 0: the revision's pod template as kubectl's describe
//     printer shows it ("Pod Template:" and its labels, annotations,
//     containers, volumes, ...); a revision not in the history is an error,
//     "unable to find the specified revision". The template is
//     [Entry.Template].
//  4. Otherwise a table, "REVISION  CHANGE-CAUSE", one row per revision,
//     ascending, "<none>" for no change-cause, aligned as kubectl's
//     tabwriter aligns it.
//  5. A newline ends the output.
//
// A negative revision is kubectl's usage error "revision must be a
// positive integer: N". A pod template with a field the describe printer
// here does not render exactly as kubectl is refused with an
// [*UndescribedError] (rule 3 only); see its documentation for the list.
func HistoryText(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, revision int64) (string, error) {
	return historyText(kversion.Newest, d, rss, revision)
}

// historyText is HistoryText as the kubectl of minor m prints it.
func historyText(m kversion.Minor, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, revision int64) (string, error) {
	if revision < 0 {
		return "", fmt.Errorf("revision must be a positive integer: %v", revision)
	}
	entries, err := History(d, rss)
	if err != nil {
		return "", err
	}
	header := ""
	if revision > 0 {
		header = fmt.Sprintf("with revision #%d", revision)
	}
	body, err := historyBody(m, entries, revision)
	if err != nil {
		return "", err
	}
	// kubectl's name printer: "KIND.GROUP/NAME" + " " + operation + "\n",
	// where the operation is the header, a newline and the body.
	return fmt.Sprintf("deployment.apps/%s %s\n%s\n", d.Name, header, body), nil
}

func historyBody(m kversion.Minor, entries []Entry, revision int64) (string, error) {
	if len(entries) == 0 {
		return "No rollout history found.", nil
	}
	if revision > 0 {
		for _, e := range entries {
			if e.Revision == revision {
				return describeTemplate(m, &e.Template)
			}
		}
		return "", fmt.Errorf("unable to find the specified revision")
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "REVISION\tCHANGE-CAUSE\n")
	for _, e := range entries {
		cause := e.ChangeCause
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(tw, "%d\t%s\n", e.Revision, cause)
	}
	_ = tw.Flush()
	return buf.String(), nil
}
