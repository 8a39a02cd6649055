package facts

import (
	"maps"
	"math"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// DesiredReplicas reads a ReplicaSet's desired-replicas annotation. A missing
// value, or one that is not an integer in [0, MaxInt32], gives ok == false,
// as upstream.
func DesiredReplicas(rs *appsv1.ReplicaSet) (n int32, ok bool) {
	return nonNegativeInt32Annotation(rs.Annotations, deployutil.DesiredReplicasAnnotation)
}

// MaxReplicasAnnotationValue reads a ReplicaSet's max-replicas annotation,
// with the rules of [DesiredReplicas].
func MaxReplicasAnnotationValue(rs *appsv1.ReplicaSet) (n int32, ok bool) {
	return nonNegativeInt32Annotation(rs.Annotations, deployutil.MaxReplicasAnnotation)
}

func nonNegativeInt32Annotation(annotations map[string]string, key string) (int32, bool) {
	v, ok := annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// ReplicasAnnotationsNeedUpdate reports whether a ReplicaSet's
// desired-replicas and max-replicas annotations differ from desired and
// maxReplicas (a ReplicaSet without annotations always needs them).
func ReplicasAnnotationsNeedUpdate(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		return true
	}
	return rs.Annotations[deployutil.DesiredReplicasAnnotation] != itoa(desired) ||
		rs.Annotations[deployutil.MaxReplicasAnnotation] != itoa(maxReplicas)
}

// WithReplicasAnnotations returns annotations with desired-replicas and
// max-replicas set to desired and maxReplicas, and whether that changed
// anything. The argument is not modified: when nothing changes it is the
// result (annotations are read, never edited in place), otherwise the result
// is a new map.
func WithReplicasAnnotations(annotations map[string]string, desired, maxReplicas int32) (map[string]string, bool) {
	d, m := itoa(desired), itoa(maxReplicas)
	if annotations[deployutil.DesiredReplicasAnnotation] == d && annotations[deployutil.MaxReplicasAnnotation] == m {
		return annotations, false // (a number is never "", so both are there)
	}
	out := cloneAnnotations(annotations, 2)
	out[deployutil.DesiredReplicasAnnotation], out[deployutil.MaxReplicasAnnotation] = d, m
	return out, true
}

// CopyDeploymentAnnotations returns rsAnnotations with every annotation of
// the Deployment added or overwritten, except those the controller manages
// itself (revision, revision-history, desired-replicas, max-replicas, the
// rollback request) and kubectl's last-applied-configuration. It never
// removes an annotation the Deployment no longer has. The result is a new
// map; changed says whether it differs.
func CopyDeploymentAnnotations(d *appsv1.Deployment, rsAnnotations map[string]string) (map[string]string, bool) {
	out := cloneAnnotations(rsAnnotations, len(d.Annotations))
	changed := false
	for k, v := range d.Annotations {
		if isSkippedAnnotation(k) {
			continue
		}
		if cur, ok := out[k]; ok && cur == v {
			continue
		}
		out[k] = v
		changed = true
	}
	return out, changed
}

// RollbackAnnotations returns the annotations a Deployment gets when it rolls
// back to rs: its own controller-managed annotations (see
// [CopyDeploymentAnnotations]) are kept, every other one is replaced by the
// ReplicaSet's. The result is a new, non-nil map.
func RollbackAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet) map[string]string {
	out := make(map[string]string)
	for k, v := range d.Annotations {
		if isSkippedAnnotation(k) {
			out[k] = v
		}
	}
	for k, v := range rs.Annotations {
		if !isSkippedAnnotation(k) {
			out[k] = v
		}
	}
	return out
}

func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }

func cloneAnnotations(m map[string]string, extra int) map[string]string {
	out := make(map[string]string, len(m)+extra)
	maps.Copy(out, m)
	return out
}

// ExistingAnnotationsSynced reports whether the annotations of an existing
// new ReplicaSet are already what revision.NewReplicaSetAnnotations (with
// exists) would make of them for revision next: every annotation the
// Deployment passes on is there with its value, and the revision either does
// not parse (and is not empty) or is at least next (a missing one counts as
// 0). A sync then keeps the ReplicaSet's own map instead of a copy
// (FuzzExistingAnnotationsSynced checks the two agree).
func ExistingAnnotationsSynced(d *appsv1.Deployment, rs *appsv1.ReplicaSet, next int64) bool {
	for k, v := range d.Annotations {
		if isSkippedAnnotation(k) {
			continue
		}
		if cur, ok := rs.Annotations[k]; !ok || cur != v {
			return false
		}
	}
	text := rs.Annotations[deployutil.RevisionAnnotation]
	rev, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		if text != "" {
			return true // upstream leaves an unreadable revision alone
		}
		rev = 0 // none yet
	}
	return rev >= next
}
