package revision

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// The answers of a rollback that cannot happen. Their texts are the messages
// of upstream's DeploymentRollbackRevisionNotFound events, verbatim.
var (
	ErrNoLastRevision   error = eventMessage("Unable to find last revision.")
	ErrRevisionNotFound error = eventMessage("Unable to find the revision to rollback to.")
)

// eventMessage is an error whose text is an event message, sentence case
// and full stop included.
type eventMessage string

func (e eventMessage) Error() string { return string(e) }

// RollbackRequest reads the deprecated rollback annotation
// (deprecated.deployment.rollback.to). ok is false when it is missing, empty
// or not an integer: upstream ignores such a request. Negative revisions are
// returned as they are (they will not be found).
func RollbackRequest(d *appsv1.Deployment) (rev int64, ok bool) {
	v := d.Annotations[deployutil.RollbackToAnnotation]
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// RollbackTarget finds the ReplicaSet a rollback to rev goes to: rev 0 means
// [Last]; then the first ReplicaSet in the given order whose revision is rev
// (upstream's order: old ReplicaSets oldest first, then the new one).
// It returns the target and the resolved revision, or [ErrNoLastRevision] /
// [ErrRevisionNotFound]. Nil entries are skipped.
func RollbackTarget(rss []*appsv1.ReplicaSet, rev int64) (*appsv1.ReplicaSet, int64, error) {
	if rev == 0 {
		if rev = Last(rss); rev == 0 {
			return nil, 0, ErrNoLastRevision
		}
	}
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		if v, err := deployutil.Revision(rs); err == nil && v == rev {
			return rs, rev, nil
		}
	}
	return nil, rev, ErrRevisionNotFound
}

// TemplateOf returns a ReplicaSet's pod template as a Deployment would carry
// it: without the pod-template-hash label. Its label map is always a new,
// non-nil map (as upstream's, which matters for the next hash); everything
// else is shared with rs and must not be modified.
func TemplateOf(rs *appsv1.ReplicaSet) corev1.PodTemplateSpec {
	t := rs.Spec.Template
	labels := make(map[string]string, len(t.Labels))
	for k, v := range t.Labels {
		if k != deployutil.PodTemplateHashLabel {
			labels[k] = v
		}
	}
	t.Labels = labels
	return t
}
