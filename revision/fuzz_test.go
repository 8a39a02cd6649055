package revision_test

import (
	"maps"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/revision"
)

// FuzzNewReplicaSetAnnotations checks the revision bookkeeping on arbitrary
// annotation values: no panic, the input is not modified, the revision only
// ever moves up to next, and the history stays within its limit.
func FuzzNewReplicaSetAnnotations(f *testing.F) {
	f.Add("1", "", int64(2), 2000, true)
	f.Add("abc", "1,2", int64(3), 5, false)
	f.Add("", ",", int64(1), 0, true)
	f.Add("99999999999999999999", "1,2,3", int64(9), 3, true)
	f.Fuzz(func(t *testing.T, rev, history string, next int64, limit int, exists bool) {
		if next < 1 || limit < 0 || limit > 1<<16 {
			return
		}
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"team": rev}}}
		d.Spec.Replicas = ptr.To[int32](3)
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
			deployutil.RevisionAnnotation: rev, deployutil.RevisionHistoryAnnotation: history}}}
		frozen := testutil.Freeze(t, d, rs)
		ann, _ := revision.NewReplicaSetAnnotations(d, rs, next, exists, limit)
		frozen.Check(t)
		if ann["team"] != rev {
			t.Fatalf("deployment annotation not copied")
		}
		old, err := strconv.ParseInt(rev, 10, 64)
		switch {
		case err != nil && rev != "":
			if ann[deployutil.RevisionAnnotation] != rev {
				t.Fatalf("unparseable revision %q was changed to %q", rev, ann[deployutil.RevisionAnnotation])
			}
		case old < next:
			if ann[deployutil.RevisionAnnotation] != strconv.FormatInt(next, 10) {
				t.Fatalf("revision %q not raised to %d", rev, next)
			}
			h := ann[deployutil.RevisionHistoryAnnotation]
			switch {
			case strings.Split(history, ",")[0] == "":
				if h != rev {
					t.Fatalf("history %q with an empty first entry became %q, want the old revision %q", history, h, rev)
				}
			case h != history && len(h) > limit:
				t.Fatalf("history %q grew past limit %d", h, limit)
			}
		default:
			if ann[deployutil.RevisionAnnotation] != rev {
				t.Fatalf("revision %q moved down to %q", rev, ann[deployutil.RevisionAnnotation])
			}
		}
		_ = revision.Last([]*appsv1.ReplicaSet{rs, nil, rs})
		_, _, _ = revision.RollbackTarget([]*appsv1.ReplicaSet{rs}, next)
	})
}

// FuzzExistingAnnotationsSynced checks the shortcut a sync takes for an
// existing new ReplicaSet: when facts.ExistingAnnotationsSynced says its
// annotations are current, NewReplicaSetAnnotations changes nothing and
// returns the same annotations; when it says they are not, it changes them.
func FuzzExistingAnnotationsSynced(f *testing.F) {
	f.Add("1", "team", "a", "a", int64(2))
	f.Add("3", "team", "a", "a", int64(2))
	f.Add("3", "team", "a", "b", int64(2))
	f.Add("abc", "team", "a", "b", int64(2))
	f.Add("", "team", "a", "a", int64(1))
	f.Add("5", deployutil.DesiredReplicasAnnotation, "3", "", int64(5))
	f.Add("+5", corev1.LastAppliedConfigAnnotation, "{}", "", int64(5))
	f.Fuzz(func(t *testing.T, rev, key, dValue, rsValue string, next int64) {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{key: dValue}}}
		d.Spec.Replicas = ptr.To[int32](3)
		ann := map[string]string{deployutil.RevisionAnnotation: rev}
		if rsValue != "" {
			ann[key] = rsValue
		}
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: ann}}
		got, changed := revision.NewReplicaSetAnnotations(d, rs, next, true, 2000)
		same := !changed && maps.Equal(got, rs.Annotations)
		if synced := facts.ExistingAnnotationsSynced(d, rs, next); synced != same {
			t.Fatalf("ExistingAnnotationsSynced = %v, but NewReplicaSetAnnotations changed=%v %v -> %v", synced, changed, rs.Annotations, got)
		}
	})
}
