package deployutil_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// FuzzResolveFenceposts checks fencepost resolution on arbitrary
// int-or-percent values: no panic; each result is upstream's scaled value
// (intstr.GetScaledValueFromIntOrPercent) converted to int32 as upstream
// converts it, low 32 bits kept; and unavailable is 1 exactly when both
// scaled values are 0.
func FuzzResolveFenceposts(f *testing.F) {
	f.Add(true, int32(0), "25%", false, int32(1), "", int32(10))
	f.Add(false, int32(0), "150", false, int32(0), "", int32(3))
	f.Add(false, int32(math.MaxInt32), "", false, int32(0), "", int32(math.MaxInt32))
	f.Add(true, int32(0), "200%", false, int32(0), "", int32(math.MaxInt32))
	f.Add(true, int32(0), "4294967296%", false, int32(0), "", int32(100))
	f.Fuzz(func(t *testing.T, surgeIsString bool, surgeInt int32, surgeStr string, unavIsString bool, unavInt int32, unavStr string, desired int32) {
		mk := func(isString bool, i int32, s string) *intstr.IntOrString {
			if isString {
				v := intstr.FromString(s)
				return &v
			}
			v := intstr.FromInt32(i)
			return &v
		}
		surge, unav := mk(surgeIsString, surgeInt, surgeStr), mk(unavIsString, unavInt, unavStr)
		s, u, err := deployutil.ResolveFenceposts(surge, unav, desired)
		rawS, errS := intstr.GetScaledValueFromIntOrPercent(surge, int(desired), true)
		rawU, errU := intstr.GetScaledValueFromIntOrPercent(unav, int(desired), false)
		if (err != nil) != (errS != nil || errU != nil) {
			t.Fatalf("error %v, but scaling gave %v and %v", err, errS, errU)
		}
		if err != nil {
			return
		}
		wantU := int32(rawU)
		if rawS == 0 && rawU == 0 {
			wantU = 1
		}
		if s != int32(rawS) || u != wantU {
			t.Fatalf("%v/%v of %d resolved to %d/%d, want %d/%d", surge, unav, desired, s, u, int32(rawS), wantU)
		}
		if desired >= 0 && !surgeIsString && surgeInt >= 0 && s < 0 {
			t.Fatalf("negative surge %d from %v", s, surge)
		}
	})
}

// FuzzComputeHash checks the pod-template-hash on templates decoded from
// arbitrary JSON: deterministic, 1 to 10 characters of the safe alphabet,
// and a valid ReplicaSet name suffix.
func FuzzComputeHash(f *testing.F) {
	f.Add([]byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}`), int32(0), false)
	f.Add([]byte(`{}`), int32(-1), true)
	f.Add([]byte(`{"spec":{"containers":[{"resources":{"requests":{"cpu":"1000m"}}}]}}`), int32(7), true)
	f.Fuzz(func(t *testing.T, doc []byte, cc int32, withCC bool) {
		var tpl corev1.PodTemplateSpec
		if err := json.Unmarshal(doc, &tpl); err != nil {
			return
		}
		var ccp *int32
		if withCC {
			ccp = &cc
		}
		frozen := testutil.Freeze(t, &tpl)
		h := deployutil.ComputeHash(&tpl, ccp)
		frozen.Check(t)
		if h != deployutil.ComputeHash(&tpl, ccp) {
			t.Fatal("hash is not deterministic")
		}
		if len(h) < 1 || len(h) > 10 || strings.Trim(h, "456789bcdf") != "" {
			t.Fatalf("hash %q outside the alphabet or length", h)
		}
		name := deployutil.ReplicaSetName(strings.Repeat("d", 300), h)
		if len(name) > 253 || !strings.HasSuffix(name, "-"+h) {
			t.Fatalf("name %q", name)
		}
	})
}
