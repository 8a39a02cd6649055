package revision

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// Max returns the highest revision among the ReplicaSets (0 for none);
// revisions that do not parse are skipped.
func Max(rss []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		if v, err := deployutil.Revision(rs); err == nil && v > m {
			m = v
		}
	}
	return m
}

// Last returns the revision before the highest: the one "rollback to
// revision 0" means. Matches upstream: when two ReplicaSets share the highest
// revision, that revision itself is returned. Revisions that do not parse
// are skipped; nil entries are skipped.
func Last(rss []*appsv1.ReplicaSet) int64 {
	var m, second int64
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		v, err := deployutil.Revision(rs)
		switch {
		case err != nil:
		case v >= m:
			second, m = m, v
		case v > second:
			second = v
		}
	}
	return second
}

// NewReplicaSetAnnotations returns the annotations the new ReplicaSet should
// carry for revision next, and whether they differ from its current ones.
// The rules, in order:
//
//  1. Every annotation of the Deployment is copied, except those the
//     controller manages (revision, revision-history, desired-replicas,
//     max-replicas, last-applied-configuration, the rollback request).
//  2. If the ReplicaSet's revision does not parse, stop: changed is false
//     even if step 1 changed something (as upstream; the copies still ride
//     along with any other write).
//  3. If its revision is lower than next, it becomes next, and — if it had a
//     revision — the old one is appended to revision-history, dropping the
//     oldest entries to stay within historyLimit characters (upstream uses
//     2000).
//  4. For a ReplicaSet being created (exists false), desired-replicas and
//     max-replicas are set.
//
// The ReplicaSet is not modified; the result is a new map.
func NewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, next int64, exists bool, historyLimit int) (map[string]string, bool) {
	ann, changed := facts.CopyDeploymentAnnotations(d, rs.Annotations)
	oldText, had := ann[deployutil.RevisionAnnotation]
	old, err := strconv.ParseInt(oldText, 10, 64)
	if err != nil {
		if oldText != "" {
			return ann, false
		}
		old = 0
	}
	if old < next {
		ann[deployutil.RevisionAnnotation] = strconv.FormatInt(next, 10)
		changed = true
		if had {
			if h, ok := appendHistory(ann[deployutil.RevisionHistoryAnnotation], oldText, historyLimit); ok {
				ann[deployutil.RevisionHistoryAnnotation] = h
			}
		}
	}
	if !exists {
		var c bool
		ann, c = facts.WithReplicasAnnotations(ann, *d.Spec.Replicas, facts.MaxReplicas(d))
		changed = changed || c
	}
	return ann, changed
}

// appendHistory appends rev to a comma-separated history, dropping the
// oldest entries while the result would exceed limit characters. ok is false
// when even dropping everything does not make room (upstream then leaves the
// history as it was).
func appendHistory(history, rev string, limit int) (string, bool) {
	entries := strings.Split(history, ",")
	if entries[0] == "" {
		return rev, true
	}
	total := len(history) + len(rev) + 1
	start := 0
	for total > limit && start < len(entries) {
		total -= len(entries[start]) + 1
		start++
	}
	if total > limit {
		return history, false
	}
	return strings.Join(append(entries[start:], rev), ","), true
}
