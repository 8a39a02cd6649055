package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/deploysync/deploysync/deployutil"
)

// rsInMessage finds the ReplicaSet a condition message names, as the
// controller writes them: `ReplicaSet "web-5c8597c5fb" has timed out`.
var rsInMessage = regexp.MustCompile(`ReplicaSet "([^"]+)"`)

// findGaps lists what the Deployment's status, conditions and revision
// refer to but the input lacks: a file made by `kubectl get deploy NAME -o
// yaml` holds the Deployment alone, and a plan made from it would be
// confidently wrong (the controller would see no ReplicaSet and start
// over). Each gap is one sentence with its numbers; nil means the input can
// be the whole picture as far as the Deployment tells.
func findGaps(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []string {
	if neverSeen(&d.ObjectMeta) {
		return nil // written by hand: its status is not the apiserver's
	}
	mine := ownReplicaSets(d, rss)
	var gaps []string
	if len(mine) == 0 {
		st := d.Status
		switch {
		case st.Replicas > 0:
			gaps = append(gaps, fmt.Sprintf("its status counts %d replicas (%d available) but the input has none of its ReplicaSets", st.Replicas, st.AvailableReplicas))
		case st.AvailableReplicas > 0 || st.ReadyReplicas > 0 || st.UpdatedReplicas > 0:
			gaps = append(gaps, fmt.Sprintf("its status counts %d available, %d ready and %d updated replicas but the input has none of its ReplicaSets",
				st.AvailableReplicas, st.ReadyReplicas, st.UpdatedReplicas))
		}
	}
	names := map[string]bool{}
	for _, rs := range mine {
		names[rs.Name] = true
	}
	for _, c := range d.Status.Conditions {
		if c.Type != appsv1.DeploymentProgressing && c.Type != appsv1.DeploymentAvailable {
			continue
		}
		for _, match := range rsInMessage.FindAllStringSubmatch(c.Message, -1) {
			if !names[match[1]] {
				gaps = append(gaps, fmt.Sprintf("its %s condition (%s) names ReplicaSet %s, which the input lacks", c.Type, c.Reason, match[1]))
				names[match[1]] = true // once per name
			}
		}
	}
	if rev, err := strconv.ParseInt(d.Annotations[deployutil.RevisionAnnotation], 10, 64); err == nil && rev > 0 {
		found := false
		for _, rs := range mine {
			if r, err := strconv.ParseInt(rs.Annotations[deployutil.RevisionAnnotation], 10, 64); err == nil && r == rev {
				found = true
			}
		}
		if !found {
			gaps = append(gaps, fmt.Sprintf("it is at revision %d but the input has no ReplicaSet of revision %d", rev, rev))
		}
	}
	return gaps
}

// partialSummary is the first gap of a partial manifest, in a clause:
// "the file lacks its ReplicaSets (its status counts ...)".
func partialSummary(m *Manifest) string {
	if len(m.Gaps) == 0 {
		return "nothing is missing"
	}
	more := ""
	if len(m.Gaps) > 1 {
		more = fmt.Sprintf(" (+%d more)", len(m.Gaps)-1)
	}
	return fmt.Sprintf("%s lacks what the Deployment refers to: %s%s", m.File, m.Gaps[0], more)
}

// ownReplicaSets returns the ReplicaSets the Deployment controls, or would
// adopt (no controller, labels matching its selector).
func ownReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		ref := metav1.GetControllerOfNoCopy(rs)
		if ref != nil && ref.UID == d.UID || ref == nil && !sel.Empty() && sel.Matches(labels.Set(rs.Labels)) {
			out = append(out, rs)
		}
	}
	return out
}

// FetchCommand returns the kubectl command that gets a Deployment together
// with its ReplicaSets and pods, its namespace and selector filled in.
func FetchCommand(d *appsv1.Deployment) string {
	sel := ""
	if s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil && !s.Empty() {
		sel = s.String()
	}
	if sel == "" {
		return fmt.Sprintf("kubectl get deploy/%s -n %s -o yaml, plus its ReplicaSets and pods (it has no selector to list them by)", d.Name, d.Namespace)
	}
	return fmt.Sprintf("kubectl get deploy,rs,pods -n %s -l %s -o yaml", d.Namespace, shellQuote(sel))
}

// shellQuote quotes a selector for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if strings.ContainsAny(s, " ()!,'\"$&|;<>*?[]{}\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
