package hashdump

import (
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/dump"

	"github.com/deploysync/deploysync/internal/hashlayout"
	"github.com/deploysync/deploysync/internal/kversion"
)

// spewSum is the sum as upstream computes it: FNV-32a over dump.ForHash.
func spewSum(v any) uint32 { return String(Offset32, dump.ForHash(v)) }

// TestSumIsForHash holds Sum to dump.ForHash on random pod templates drawn
// over every exported field of corev1.PodTemplateSpec (each pointer, slice
// and map nil, empty or filled; quantities parsed and printed or not; times
// in several locations), in the newest layout and in each older minor's
// layout (internal/hashlayout), as ComputeHashFor hashes them.
func TestSumIsForHash(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(1, 2))
	minors := kversion.Supported()
	for i := range n {
		var tpl corev1.PodTemplateSpec
		fill(r, reflect.ValueOf(&tpl).Elem(), 0)
		m := minors[i%len(minors)]
		v, err := hashlayout.Template(m, &tpl)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Sum(Offset32, v)
		if !ok {
			t.Fatalf("template %d: Sum reports a kind it does not print; a pod template has none", i)
		}
		if want := spewSum(v); got != want {
			t.Fatalf("template %d (minor %s): Sum %d, FNV-32a of dump.ForHash %d; the dump:\n%s", i, m, got, want, dump.ForHash(v))
		}
	}
}

// TestSumQuirks covers go-spew's state where a random template rarely goes:
// each row is a value whose text depends on one rule of spew's formatter.
func TestSumQuirks(t *testing.T) {
	one := int64(1)
	type withPtrs struct {
		A, B *int64
	}
	type nested struct {
		P *int64
		S withPtrs
	}
	type listThenField struct {
		L []*int64
		N int32
	}
	type iface struct {
		X any
		Y any
		Z []any
	}
	type cycle struct {
		Next *cycle
		V    int
	}
	loop := &cycle{V: 1}
	loop.Next = loop
	type keys struct {
		I map[int32]string
		U map[uint8]bool
		B map[bool]int
	}
	var nilPtrPtr **int64
	var nilPtr *int64
	ptrPtr := &[]*int64{&one}[0]
	cases := []struct {
		name, reason string
		v            any
	}{
		{"nil", "a nil interface prints as (interface {})<nil>", nil},
		{"shared pointer", "the same address twice at one depth is printed twice", withPtrs{&one, &one}},
		{"shared pointer deeper", "an address seen above the current depth prints <shown> though it is no cycle", nested{P: &one, S: withPtrs{A: &one}}},
		{"nil pointer in a list", "after a nil pointer in a list spew skips the next field's type", listThenField{L: []*int64{nil}, N: 3}},
		{"pointer in a list", "a pointer in a list prints <*> and its value", listThenField{L: []*int64{&one, nil, &one}, N: 3}},
		{"interfaces", "an interface's dynamic type is printed, a nil one as its static type", iface{X: int32(4), Z: []any{nil, "s", &one}}},
		{"cycle", "a real cycle prints <shown>", loop},
		{"pointer to pointer", "each level of indirection is a star", struct{ P **int64 }{ptrPtr}},
		{"nil pointer to pointer", "a nil **T", struct{ P **int64 }{nilPtrPtr}},
		{"key kinds", "integer and boolean keys are sorted by value", keys{I: map[int32]string{3: "c", -1: "a", 2: "b"}, U: map[uint8]bool{9: true, 1: false}, B: map[bool]int{true: 1, false: 0}}},
		{"floats", "floats print in the shortest form of their width", struct {
			F float32
			G float64
		}{1.1, 1e21}},
		{"arrays", "an array prints as a list", [3]string{"a", "", "c"}},
		{"list below a pointer", "a list's items are one level deeper: an address its parent's field showed prints <shown>", struct {
			P *int64
			L []*int64
		}{&one, []*int64{&one}}},
		{"nil inside a pointer in a list", "a skipped type that ends in nil counts the stars of the nil pointer's type", []**int64{&nilPtr}},
		{"cycle in a list", "a cycle met as a list item prints <*><shown>", []*cycle{loop, loop.Next}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Sum(Offset32, c.v)
			if !ok {
				t.Fatalf("%s: Sum reports an unsupported kind", c.reason)
			}
			if want := spewSum(c.v); got != want {
				t.Fatalf("%s: Sum %d, FNV-32a of dump.ForHash %d; the dump: %s", c.reason, got, want, dump.ForHash(c.v))
			}
		})
	}
}

// TestStringIsFNV32a checks the inlined FNV-1a against hash/fnv.
func TestStringIsFNV32a(t *testing.T) {
	for _, s := range []string{"", "a", "pod-template-hash", string([]byte{0, 0, 0, 0, 1, 0, 0, 0}), strings.Repeat("spew ", 500)} {
		h := fnv.New32a()
		_, _ = h.Write([]byte(s))
		if got := String(Offset32, s); got != h.Sum32() {
			t.Errorf("String(%q) = %d, hash/fnv says %d", s, got, h.Sum32())
		}
	}
}

// TestSumUnsupported: kinds Sum does not print are reported, not guessed.
func TestSumUnsupported(t *testing.T) {
	for _, c := range []struct {
		reason string
		v      any
	}{
		{"spew orders struct keys by their printed form", map[struct{ A int }]int{{1}: 1, {2}: 2}},
		{"a channel prints its address", struct{ C chan int }{make(chan int)}},
		{"complex numbers are not in any API type", complex(1, 2)},
	} {
		if _, ok := Sum(Offset32, c.v); ok {
			t.Errorf("%s: Sum says it printed %T", c.reason, c.v)
		}
	}
}

var (
	words     = []string{"", "a", "web", "nginx:1.27", "app.kubernetes.io/name", "ünï", "x y", "0"}
	quantites = []string{"0", "1", "100m", "1000m", "1.5Gi", "128974848", "129e6", "123Mi", "1e3", "2.5"}
)

// fill sets v (settable) to a random value: every exported field, each
// pointer, slice and map nil, empty or filled.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Type() {
	case reflect.TypeFor[resource.Quantity]():
		q := resource.MustParse(quantites[r.IntN(len(quantites))])
		if r.IntN(2) == 0 {
			_ = q.String() // caches the printed form inside the value
		}
		v.Set(reflect.ValueOf(q))
		return
	case reflect.TypeFor[metav1.Time]():
		switch r.IntN(4) {
		case 0:
			v.Set(reflect.ValueOf(metav1.Time{}))
		case 1:
			v.Set(reflect.ValueOf(metav1.NewTime(time.Unix(r.Int64N(2e9), 0).UTC())))
		case 2:
			v.Set(reflect.ValueOf(metav1.NewTime(time.Unix(r.Int64N(2e9), r.Int64N(1e9)).In(time.FixedZone("X", 3600)))))
		default:
			// Truncated as a decoded time is: no monotonic reading.
			v.Set(reflect.ValueOf(metav1.NewTime(time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC))))
		}
		return
	}
	if depth > 14 {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				fill(r, f, depth+1)
			}
		}
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch r.IntN(4) {
		case 0:
			return
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1+r.IntN(2), 3)
		for i := 0; i < s.Len(); i++ {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		switch r.IntN(4) {
		case 0:
			return
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
			return
		}
		m := reflect.MakeMap(v.Type())
		for range 1 + r.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			fill(r, k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(r, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.String:
		v.SetString(words[r.IntN(len(words))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(r.Int64N(2000) - 1000)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.Uint64N(2000))
	}
}

// BenchmarkSum times Sum against FNV-32a over dump.ForHash (upstream's
// path) on the same filled template.
func BenchmarkSum(b *testing.B) {
	tpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "web", Image: "nginx:1.27", ImagePullPolicy: corev1.PullIfNotPresent,
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
		}}, RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, SchedulerName: "default-scheduler"},
	}
	b.Run("impl=dump.ForHash", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = spewSum(tpl)
		}
	})
	b.Run("impl=hashdump", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Sum(Offset32, tpl)
		}
	})
}
