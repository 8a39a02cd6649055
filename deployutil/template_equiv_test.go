package deployutil_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// upstreamEqualIgnoreHash is upstream's definition, restated: deep copies
// without the hash label, compared with equality.Semantic.
func upstreamEqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	x, y := a.DeepCopy(), b.DeepCopy()
	delete(x.Labels, deployutil.PodTemplateHashLabel)
	delete(y.Labels, deployutil.PodTemplateHashLabel)
	return equality.Semantic.DeepEqual(x, y)
}

// mutations turn a template into a neighbour that is sometimes semantically
// equal (nil vs empty, another quantity spelling, another time zone, the hash
// label) and sometimes not.
var mutations = []func(t *corev1.PodTemplateSpec){
	func(t *corev1.PodTemplateSpec) {},
	func(t *corev1.PodTemplateSpec) {
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		t.Labels[deployutil.PodTemplateHashLabel] = "abc"
	},
	func(t *corev1.PodTemplateSpec) {
		if len(t.Labels) == 0 {
			t.Labels = map[string]string{}
		} else {
			t.Labels = nil
		}
	},
	func(t *corev1.PodTemplateSpec) { t.Annotations = map[string]string{} },
	func(t *corev1.PodTemplateSpec) { t.Annotations = map[string]string{"a": "b"} },
	func(t *corev1.PodTemplateSpec) {
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		t.Labels["x"] = "y"
	},
	func(t *corev1.PodTemplateSpec) {
		if len(t.Spec.Containers) > 0 {
			t.Spec.Containers[0].Image += "-x"
		}
	},
	func(t *corev1.PodTemplateSpec) {
		if len(t.Spec.Containers) > 0 {
			t.Spec.Containers[0].Env = append(t.Spec.Containers[0].Env, corev1.EnvVar{Name: "A", Value: "1"})
		}
	},
	func(t *corev1.PodTemplateSpec) {
		if len(t.Spec.Containers) > 0 {
			if t.Spec.Containers[0].Env == nil {
				t.Spec.Containers[0].Env = []corev1.EnvVar{}
			} else if len(t.Spec.Containers[0].Env) == 0 {
				t.Spec.Containers[0].Env = nil
			}
		}
	},
	func(t *corev1.PodTemplateSpec) {
		for i := range t.Spec.Containers {
			for k, q := range t.Spec.Containers[i].Resources.Requests {
				// The same amount, spelled in milli-units.
				t.Spec.Containers[i].Resources.Requests[k] = *resource.NewMilliQuantity(q.MilliValue(), q.Format)
			}
		}
	},
	func(t *corev1.PodTemplateSpec) {
		for i := range t.Spec.Containers {
			for k, q := range t.Spec.Containers[i].Resources.Requests {
				q.Add(resource.MustParse("1m"))
				t.Spec.Containers[i].Resources.Requests[k] = q
			}
		}
	},
	func(t *corev1.PodTemplateSpec) {
		t.CreationTimestamp = metav1.NewTime(t.CreationTimestamp.In(time.FixedZone("x", 3600)))
	},
	func(t *corev1.PodTemplateSpec) {
		t.CreationTimestamp = metav1.NewTime(t.CreationTimestamp.Add(time.Nanosecond))
	},
	func(t *corev1.PodTemplateSpec) { t.Spec.NodeSelector = map[string]string{} },
	func(t *corev1.PodTemplateSpec) { t.Spec.TerminationGracePeriodSeconds = nil },
	func(t *corev1.PodTemplateSpec) {
		v := int64(30)
		t.Spec.TerminationGracePeriodSeconds = &v
	},
	func(t *corev1.PodTemplateSpec) {
		t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "side", Image: "busybox"})
	},
	func(t *corev1.PodTemplateSpec) { t.Spec.InitContainers = []corev1.Container{} },
	func(t *corev1.PodTemplateSpec) { t.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m"}} },
}

// FuzzEqualIgnoreHash checks that the library's template equality agrees
// with upstream's definition on decoded templates and their neighbours.
func FuzzEqualIgnoreHash(f *testing.F) {
	f.Add([]byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}`), uint8(1), uint8(0))
	f.Add([]byte(`{"metadata":{"creationTimestamp":"2020-01-01T00:00:00Z","annotations":{}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"1Gi"}},"env":[]}]}}`), uint8(9), uint8(11))
	f.Add([]byte(`{"spec":{"nodeSelector":{},"containers":[]}}`), uint8(13), uint8(2))
	// Every field set (see TestEqualIgnoreHashEveryField), so that the
	// fuzzer's changes to the document reach every generated comparison.
	var full corev1.PodTemplateSpec
	fill(f, reflect.ValueOf(&full).Elem())
	doc, err := json.Marshal(&full)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(doc, uint8(0), uint8(0))
	f.Add(doc, uint8(8), uint8(12))
	f.Fuzz(func(t *testing.T, doc []byte, m1, m2 uint8) {
		var a, b corev1.PodTemplateSpec
		if json.Unmarshal(doc, &a) != nil || json.Unmarshal(doc, &b) != nil {
			return
		}
		mutations[int(m1)%len(mutations)](&b)
		mutations[int(m2)%len(mutations)](&b)
		want := upstreamEqualIgnoreHash(&a, &b)
		if got := deployutil.EqualIgnoreHash(&a, &b); got != want {
			t.Fatalf("EqualIgnoreHash = %v, upstream's definition says %v\na: %+v\nb: %+v", got, want, a, b)
		}
		if got := deployutil.EqualIgnoreHash(&b, &a); got != want {
			t.Fatalf("EqualIgnoreHash (swapped) = %v, upstream's definition says %v", got, want)
		}
	})
}

// TestEqualIgnoreHashMatchesSemantic runs every pair of mutations over the
// seed templates, so the equivalence is checked in every ordinary test run.
func TestEqualIgnoreHashMatchesSemantic(t *testing.T) {
	docs := []string{
		`{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}`,
		`{"metadata":{"creationTimestamp":"2020-01-01T00:00:00Z","annotations":{}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"1Gi"}},"env":[]}]}}`,
		`{"spec":{"nodeSelector":{},"containers":[]}}`,
	}
	equal, differ := 0, 0
	for _, doc := range docs {
		for i := range mutations {
			for j := range mutations {
				var a, b corev1.PodTemplateSpec
				if err := json.Unmarshal([]byte(doc), &a); err != nil {
					t.Fatal(err)
				}
				_ = json.Unmarshal([]byte(doc), &b)
				mutations[i](&b)
				mutations[j](&b)
				want := upstreamEqualIgnoreHash(&a, &b)
				if got := deployutil.EqualIgnoreHash(&a, &b); got != want {
					t.Errorf("doc %d, mutations %d+%d: EqualIgnoreHash = %v, upstream's definition %v", len(doc), i, j, got, want)
				}
				if want {
					equal++
				} else {
					differ++
				}
			}
		}
	}
	if equal == 0 || differ == 0 {
		t.Errorf("the pairs do not exercise both answers: %d equal, %d different", equal, differ)
	}
}
