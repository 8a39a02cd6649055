package revision_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/revision"
)

func TestRollbackRequest(t *testing.T) {
	tests := []struct {
		name   string
		value  *string
		want   int64
		wantOK bool
		reason string
	}{
		{name: "missing", value: nil, wantOK: false, reason: "upstream: no annotation, no rollback"},
		{name: "empty", value: ptrTo(""), wantOK: false, reason: "upstream: an empty value is ignored"},
		{name: "garbage", value: ptrTo("last"), wantOK: false, reason: "upstream: a value that does not parse is ignored"},
		{name: "previous", value: ptrTo("0"), want: 0, wantOK: true, reason: "0 asks for the previous revision"},
		{name: "revision 3", value: ptrTo("3"), want: 3, wantOK: true, reason: "a revision number"},
		{name: "negative", value: ptrTo("-2"), want: -2, wantOK: true, reason: "upstream accepts negative numbers (they are never found)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := testutil.Deployment("foo", 1, testutil.HistoryLimit(nil))
			if tt.value != nil {
				d.Annotations[deployutil.RollbackToAnnotation] = *tt.value
			}
			frozen := testutil.Freeze(t, d)
			got, ok := revision.RollbackRequest(d)
			frozen.Check(t)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("RollbackRequest = %d, %v; want %d, %v (%s)", got, ok, tt.want, tt.wantOK, tt.reason)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestRollbackTarget follows upstream's rollback(): revision 0 means the
// last revision; the first ReplicaSet in the given order (old ones oldest
// first, then the new one) with the revision is the target.
func TestRollbackTarget(t *testing.T) {
	r1, r2, r3 := replicaSet("r1", 0, 0, 0, "1"), replicaSet("r2", 0, 0, 1, "2"), replicaSet("r3", 1, 1, 2, "3")
	twin := replicaSet("twin", 0, 0, 3, "2")
	bad := replicaSet("bad", 0, 0, 0, "x")
	tests := []struct {
		name    string
		rss     []*appsv1.ReplicaSet
		rev     int64
		want    string
		wantRev int64
		wantErr error
		reason  string
	}{
		{name: "previous", rss: []*appsv1.ReplicaSet{r1, r2, r3}, rev: 0, want: "r2", wantRev: 2,
			reason: "revision 0 means the one before the highest"},
		{name: "explicit", rss: []*appsv1.ReplicaSet{r1, r2, r3}, rev: 1, want: "r1", wantRev: 1, reason: "a revision that exists"},
		{name: "first of two", rss: []*appsv1.ReplicaSet{r1, r2, twin, r3}, rev: 2, want: "r2", wantRev: 2,
			reason: "upstream takes the first match in its order"},
		{name: "no previous", rss: []*appsv1.ReplicaSet{r3, nil}, rev: 0, wantErr: revision.ErrNoLastRevision,
			reason: "upstream: Unable to find last revision."},
		{name: "not found", rss: []*appsv1.ReplicaSet{bad, nil, r1, r3}, rev: 7, wantRev: 7, wantErr: revision.ErrRevisionNotFound,
			reason: "upstream: Unable to find the revision to rollback to. (unparseable revisions and nil entries skipped)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.rss)
			got, rev, err := revision.RollbackTarget(tt.rss, tt.rev)
			frozen.Check(t)
			if !errors.Is(err, tt.wantErr) || rev != tt.wantRev {
				t.Fatalf("err = %v, rev = %d; want %v, %d (%s)", err, rev, tt.wantErr, tt.wantRev, tt.reason)
			}
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != tt.want {
				t.Errorf("target = %q, want %q (%s)", name, tt.want, tt.reason)
			}
		})
	}
}

func TestTemplateOf(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		want   map[string]string
		reason string
	}{
		{name: "hash dropped", labels: map[string]string{"foo": "bar", deployutil.PodTemplateHashLabel: "abc"}, want: map[string]string{"foo": "bar"},
			reason: "upstream's SetFromReplicaSetTemplate strips pod-template-hash"},
		{name: "nil labels", labels: nil, want: map[string]string{},
			reason: "the label map is always a new, non-nil map, as upstream's (the next hash depends on it)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			rs := replicaSet("r", 0, 0, 0, "1")
			rs.Spec.Template = corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tt.labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "foo/bar:2"}}}}
			frozen := testutil.Freeze(t, rs)
			got := revision.TemplateOf(rs)
			frozen.Check(t)
			if diff := cmp.Diff(tt.want, got.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if got.Labels == nil || got.Spec.Containers[0].Image != "foo/bar:2" {
				t.Errorf("template %+v: want non-nil labels and the ReplicaSet's spec", got)
			}
		})
	}
}
