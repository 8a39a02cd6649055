package facts_test

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// FuzzReplicasAnnotations checks the annotation readers on arbitrary values:
// a value is accepted only if it is a decimal in [0, MaxInt32], and writing
// the values back reads the same.
func FuzzReplicasAnnotations(f *testing.F) {
	for _, v := range []string{"3", "-1", "abc", "", "2147483647", "2147483648", "4294967296", "+5", "007"} {
		f.Add(v, int32(3), int32(4))
	}
	f.Fuzz(func(t *testing.T, v string, desired, maxReplicas int32) {
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
			deployutil.DesiredReplicasAnnotation: v, deployutil.MaxReplicasAnnotation: v}}}
		frozen := testutil.Freeze(t, rs)
		n, ok := facts.DesiredReplicas(rs)
		m, ok2 := facts.MaxReplicasAnnotationValue(rs)
		frozen.Check(t)
		if ok != ok2 || n != m {
			t.Fatalf("the two readers disagree on %q", v)
		}
		if ok {
			u, err := strconv.ParseUint(v, 10, 64)
			if err != nil || u > math.MaxInt32 || int64(n) != int64(u) {
				t.Fatalf("accepted %q as %d", v, n)
			}
		}
		ann, _ := facts.WithReplicasAnnotations(rs.Annotations, desired, maxReplicas)
		frozen.Check(t)
		rs2 := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: ann}}
		if facts.ReplicasAnnotationsNeedUpdate(rs2, desired, maxReplicas) {
			t.Fatalf("annotations written for %d/%d still need an update", desired, maxReplicas)
		}
		if desired >= 0 {
			if got, ok := facts.DesiredReplicas(rs2); !ok || got != desired {
				t.Fatalf("desired %d read back as %d, %v", desired, got, ok)
			}
		}
	})
}

// FuzzValidate checks that validation answers arbitrary Deployments decoded
// from JSON with nil or a typed error, and never panics.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"web"},"spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}}},"strategy":{"type":"Recreate"}}}`))
	f.Add([]byte(`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"abc%"}}}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var d appsv1.Deployment
		if err := json.Unmarshal(doc, &d); err != nil {
			return
		}
		err := facts.Validate(&d, nil, nil)
		var ie *deployutil.InputError
		if err != nil && (!errors.As(err, &ie) || ie.Error() == "") {
			t.Fatalf("untyped error %T %v", err, err)
		}
	})
}
