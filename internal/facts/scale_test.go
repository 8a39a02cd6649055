package facts_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestScaleReplicaSet checks the rules of upstream's scaleReplicaSet: when a
// write is needed, what it carries, and how its event is worded.
func TestScaleReplicaSet(t *testing.T) {
	d := rollingDeployment(4, intstr.FromInt32(1), intstr.FromInt32(0))
	rs := func(size int32, annotations map[string]string) *appsv1.ReplicaSet {
		r := testutil.TemplateReplicaSet(testutil.ImageDeployment("x"), "x-1", "", metav1.Time{})
		r.Spec.Replicas = ptr.To(size)
		r.Annotations = annotations
		return r
	}
	fresh := map[string]string{deployutil.DesiredReplicasAnnotation: "4", deployutil.MaxReplicasAnnotation: "5", "keep": "me"}
	stale := map[string]string{deployutil.DesiredReplicasAnnotation: "3", deployutil.MaxReplicasAnnotation: "4", "keep": "me"}
	tests := []struct {
		name          string
		rs            *appsv1.ReplicaSet
		to            int32
		force         bool
		why           string
		wantOK        bool
		wantResized   bool
		wantDirection string
		wantWhy       string
		reason        string
	}{
		{name: "same size", rs: rs(4, stale), to: 4, wantOK: false,
			reason: "upstream: without force, an equal size is no write even with stale annotations"},
		{name: "forced, annotations fresh", rs: rs(4, fresh), to: 4, force: true, wantOK: false,
			reason: "upstream: forced, but neither the size nor the annotations change"},
		{name: "forced, annotations stale", rs: rs(4, stale), to: 4, force: true, wantOK: true, wantResized: false, wantDirection: "down",
			wantWhy: "refresh the replica annotations to desired 4, max 5",
			reason:  "upstream: forced with stale annotations: an annotation-only write, no event"},
		{name: "up", rs: rs(2, stale), to: 4, why: "grow", wantOK: true, wantResized: true, wantDirection: "up", wantWhy: "grow",
			reason: "a size change writes the size and refreshed annotations, and is an event \"Scaled up\""},
		{name: "down", rs: rs(4, nil), to: 1, why: "shrink", wantOK: true, wantResized: true, wantDirection: "down", wantWhy: "shrink",
			reason: "a ReplicaSet without annotations gets them with the new size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, d, tt.rs)
			s, ok := facts.ScaleReplicaSet(tt.rs, tt.to, d, tt.force, note(tt.why)...)
			frozen.Check(t)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v (%s)", ok, tt.wantOK, tt.reason)
			}
			if !ok {
				return
			}
			if s.From != tt.rs || *s.To.Spec.Replicas != tt.to || s.Resized() != tt.wantResized || s.Direction() != tt.wantDirection || s.Why.String() != tt.wantWhy {
				t.Errorf("got from %p to %d resized %v direction %s why %q (%s)", s.From, *s.To.Spec.Replicas, s.Resized(), s.Direction(), s.Why, tt.reason)
			}
			want := map[string]string{deployutil.DesiredReplicasAnnotation: "4", deployutil.MaxReplicasAnnotation: "5"}
			for k, v := range tt.rs.Annotations {
				if _, ok := want[k]; !ok {
					want[k] = v
				}
			}
			if diff := cmp.Diff(want, s.To.Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

// note is a caller's reason for a write, or none for "".
func note(text string) []action.Reason {
	if text == "" {
		return nil
	}
	return []action.Reason{action.Because(action.RuleNote, action.Str("text", text))}
}
