package facts

import (
	"fmt"
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// TestNonNegativeInt32Annotation restates upstream's
// TestGetNonNegativeInt32FromAnnotation (8 rows): the parser behind
// DesiredReplicas and MaxReplicasAnnotationValue, on an arbitrary key.
func TestNonNegativeInt32Annotation(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        int32
		wantOK      bool
		reason      string
	}{
		{name: "empty", reason: "upstream: no annotations, not valid"},
		{name: "not a number", annotations: map[string]string{"test": "invalid", "foo": "2"}, reason: "upstream: invalid syntax"},
		{name: "negative", annotations: map[string]string{"test": "-1", "foo": "2"}, reason: "upstream: parsed as unsigned, so -1 is invalid syntax"},
		{name: "zero", annotations: map[string]string{"test": "0", "foo": "2"}, want: 0, wantOK: true, reason: "upstream: 0 is valid"},
		{name: "thirteen", annotations: map[string]string{"test": "13", "foo": "2"}, want: 13, wantOK: true, reason: "upstream: a plain number"},
		{name: "MaxInt32", annotations: map[string]string{"test": fmt.Sprint(math.MaxInt32), "foo": "2"}, want: math.MaxInt32, wantOK: true,
			reason: "upstream: the largest int32 is valid"},
		{name: "MaxInt32+1", annotations: map[string]string{"test": fmt.Sprint(uint32(math.MaxInt32) + 1), "foo": "2"},
			reason: "upstream: fits a uint32 but not an int32: out of range"},
		{name: "MaxUint32+1", annotations: map[string]string{"test": fmt.Sprint(uint64(math.MaxUint32) + 1), "foo": "2"},
			reason: "upstream: does not fit 32 bits: out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			got, ok := nonNegativeInt32Annotation(tt.annotations, "test")
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("got (%d, %v), want (%d, %v) (%s)", got, ok, tt.want, tt.wantOK, tt.reason)
			}
		})
	}
}

func TestIsSkippedAnnotation(t *testing.T) {
	tests := []struct {
		key    string
		want   bool
		reason string
	}{
		{key: deployutil.RevisionAnnotation, want: true, reason: "the controller writes revisions"},
		{key: deployutil.RevisionHistoryAnnotation, want: true, reason: "and revision histories"},
		{key: deployutil.DesiredReplicasAnnotation, want: true, reason: "and desired-replicas"},
		{key: deployutil.MaxReplicasAnnotation, want: true, reason: "and max-replicas"},
		{key: deployutil.RollbackToAnnotation, want: true, reason: "the rollback request is for the controller"},
		{key: corev1.LastAppliedConfigAnnotation, want: true, reason: "kubectl's last-applied is skipped too"},
		{key: deployutil.ChangeCauseAnnotation, want: false, reason: "change-cause is copied like any other annotation"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			if got := isSkippedAnnotation(tt.key); got != tt.want {
				t.Errorf("isSkippedAnnotation(%q) = %v, want %v (%s)", tt.key, got, tt.want, tt.reason)
			}
		})
	}
}
