package revision_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/revision"
)

func TestMaxAndLast(t *testing.T) {
	rs := func(rev string) *appsv1.ReplicaSet { return replicaSet("rs-"+rev, 0, 0, 0, rev) }
	tests := []struct {
		name     string
		rss      []*appsv1.ReplicaSet
		wantMax  int64
		wantLast int64
		reason   string
	}{
		{name: "none", rss: nil, wantMax: 0, wantLast: 0, reason: "no ReplicaSets: revision 0, no previous one"},
		{name: "one", rss: []*appsv1.ReplicaSet{rs("3")}, wantMax: 3, wantLast: 0, reason: "a single revision has no previous one"},
		{name: "ordered", rss: []*appsv1.ReplicaSet{rs("1"), rs("2"), rs("3")}, wantMax: 3, wantLast: 2, reason: "the highest and the one before"},
		{name: "unordered", rss: []*appsv1.ReplicaSet{rs("2"), rs("5"), rs("4"), rs("1")}, wantMax: 5, wantLast: 4, reason: "order does not matter"},
		{name: "duplicate max", rss: []*appsv1.ReplicaSet{rs("2"), replicaSet("twin", 0, 0, 0, "3"), rs("3")}, wantMax: 3, wantLast: 3,
			reason: "upstream's LastRevision uses >=: a duplicated highest revision is returned as the last revision"},
		{name: "unparseable and missing", rss: []*appsv1.ReplicaSet{rs("x"), replicaSet("none", 0, 0, 0, ""), rs("2"), nil}, wantMax: 2, wantLast: 0,
			reason: "revisions that do not parse are skipped, a missing one is 0, nil entries are skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.rss)
			var nonNil []*appsv1.ReplicaSet
			for _, rs := range tt.rss {
				if rs != nil {
					nonNil = append(nonNil, rs)
				}
			}
			gotMax, gotLast := revision.Max(nonNil), revision.Last(tt.rss)
			frozen.Check(t)
			if gotMax != tt.wantMax || gotLast != tt.wantLast {
				t.Errorf("Max = %d, Last = %d; want %d, %d (%s)", gotMax, gotLast, tt.wantMax, tt.wantLast, tt.reason)
			}
		})
	}
}

// TestNewReplicaSetAnnotationsHistory restates the SetNewReplicaSetAnnotations
// part of upstream's TestAnnotationUtils: revisions 11 to 20 set one after
// the other on one ReplicaSet with a 5-character history limit; from the
// third on, the history holds the two previous revisions.
func TestNewReplicaSetAnnotationsHistory(t *testing.T) {
	d := testutil.Deployment("foo", 1, testutil.HistoryLimit(nil))
	d.Annotations = map[string]string{deployutil.RevisionAnnotation: "1"}
	rs := replicaSet("foo-1", 0, 0, 0, "")
	for i := 10; i < 20; i++ {
		next := int64(i + 1)
		frozen := testutil.Freeze(t, d, rs)
		ann, changed := revision.NewReplicaSetAnnotations(d, rs, next, true, 5)
		frozen.Check(t)
		if !changed {
			t.Errorf("revision %d: changed = false", next)
		}
		if got := ann[deployutil.RevisionAnnotation]; got != fmt.Sprint(next) {
			t.Errorf("revision = %q, want %d (upstream: the revision is raised)", got, next)
		}
		if i >= 12 {
			if got, want := ann[deployutil.RevisionHistoryAnnotation], fmt.Sprintf("%d,%d", i-1, i); got != want {
				t.Errorf("history = %q, want %q (upstream: 5 characters hold two 2-digit revisions)", got, want)
			}
		}
		rs = rs.DeepCopy()
		rs.Annotations = ann
	}
}

func TestNewReplicaSetAnnotations(t *testing.T) {
	d := testutil.Deployment("foo", 4, testutil.HistoryLimit(nil))
	d.Spec.Strategy.RollingUpdate.MaxSurge.IntVal = 1
	d.Annotations = map[string]string{"team": "blue", deployutil.RevisionAnnotation: "9"}
	tests := []struct {
		name        string
		rs          map[string]string
		next        int64
		exists      bool
		limit       int
		want        map[string]string
		wantChanged bool
		reason      string
	}{
		{name: "create", rs: nil, next: 1, exists: false, limit: 2000,
			want:        map[string]string{"team": "blue", deployutil.RevisionAnnotation: "1", deployutil.DesiredReplicasAnnotation: "4", deployutil.MaxReplicasAnnotation: "5"},
			wantChanged: true, reason: "a ReplicaSet being created gets the Deployment's annotations, the revision and the replica annotations"},
		{name: "up to date", rs: map[string]string{"team": "blue", deployutil.RevisionAnnotation: "3"}, next: 3, exists: true, limit: 2000,
			want:        map[string]string{"team": "blue", deployutil.RevisionAnnotation: "3"},
			wantChanged: false, reason: "nothing to copy and the revision is not lower: no write"},
		{name: "higher revision kept", rs: map[string]string{"team": "blue", deployutil.RevisionAnnotation: "7"}, next: 3, exists: true, limit: 2000,
			want:        map[string]string{"team": "blue", deployutil.RevisionAnnotation: "7"},
			wantChanged: false, reason: "upstream only raises a revision (old ReplicaSets may have been deleted)"},
		{name: "comes back", rs: map[string]string{"team": "blue", deployutil.RevisionAnnotation: "2", deployutil.RevisionHistoryAnnotation: "1"},
			next: 5, exists: true, limit: 2000,
			want:        map[string]string{"team": "blue", deployutil.RevisionAnnotation: "5", deployutil.RevisionHistoryAnnotation: "1,2"},
			wantChanged: true, reason: "a ReplicaSet that becomes new again records the revision it had"},
		{name: "history does not fit", rs: map[string]string{deployutil.RevisionAnnotation: "12", deployutil.RevisionHistoryAnnotation: "5"},
			next: 13, exists: true, limit: 1,
			want:        map[string]string{"team": "blue", deployutil.RevisionAnnotation: "13", deployutil.RevisionHistoryAnnotation: "5"},
			wantChanged: true, reason: "upstream leaves the history as it was when even dropping every entry leaves no room"},
		{name: "unparseable revision", rs: map[string]string{deployutil.RevisionAnnotation: "two"}, next: 3, exists: true, limit: 2000,
			want:        map[string]string{"team": "blue", deployutil.RevisionAnnotation: "two"},
			wantChanged: false, reason: "upstream returns false after copying annotations: the copy only rides along with another write"},
		{name: "empty revision", rs: map[string]string{deployutil.RevisionAnnotation: ""}, next: 3, exists: true, limit: 2000,
			want:        map[string]string{"team": "blue", deployutil.RevisionAnnotation: "3", deployutil.RevisionHistoryAnnotation: ""},
			wantChanged: true, reason: "an empty revision counts as 0; it existed, so its (empty) value starts the history, as upstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			rs := replicaSet("foo-1", 0, 0, 0, "")
			rs.Annotations = tt.rs
			frozen := testutil.Freeze(t, d, rs)
			got, changed := revision.NewReplicaSetAnnotations(d, rs, tt.next, tt.exists, tt.limit)
			frozen.Check(t)
			if diff := cmp.Diff(tt.want, got); diff != "" || changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v; annotations (-want +got):\n%s\n(%s)", changed, tt.wantChanged, diff, tt.reason)
			}
		})
	}
}

func TestNewReplicaSetAnnotationsLongHistory(t *testing.T) {
	var entries []string
	for i := 1; i <= 600; i++ {
		entries = append(entries, fmt.Sprint(i))
	}
	history := strings.Join(entries, ",")
	d := testutil.Deployment("foo", 1, testutil.HistoryLimit(nil))
	rs := replicaSet("foo-1", 0, 0, 0, "601")
	rs.Annotations[deployutil.RevisionHistoryAnnotation] = history
	frozen := testutil.Freeze(t, d, rs)
	got, _ := revision.NewReplicaSetAnnotations(d, rs, 602, true, facts.MaxRevisionHistoryChars)
	frozen.Check(t)
	h := got[deployutil.RevisionHistoryAnnotation]
	if len(h) > facts.MaxRevisionHistoryChars || !strings.HasSuffix(h, ",600,601") || strings.HasPrefix(h, "1,") {
		t.Errorf("history of %d characters %q…%q: want at most 2000, oldest entries dropped, 601 appended", len(h), h[:10], h[len(h)-10:])
	}
}
