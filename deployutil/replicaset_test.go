package deployutil_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

func TestRevision(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        int64
		wantErr     bool
		reason      string
	}{
		{name: "missing", want: 0, reason: "upstream: a missing annotation is revision 0, not an error"},
		{name: "set", annotations: map[string]string{deployutil.RevisionAnnotation: "12"}, want: 12, reason: "an int64"},
		{name: "garbage", annotations: map[string]string{deployutil.RevisionAnnotation: "v1"}, wantErr: true, reason: "upstream: a ParseInt error"},
		{name: "empty", annotations: map[string]string{deployutil.RevisionAnnotation: ""}, wantErr: true, reason: "an empty value is present but not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: tt.annotations}}
			frozen := testutil.Freeze(t, rs)
			got, err := deployutil.Revision(rs)
			frozen.Check(t)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Revision = %d, %v; want %d, error %v (%s)", got, err, tt.want, tt.wantErr, tt.reason)
			}
		})
	}
}
