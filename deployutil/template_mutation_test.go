package deployutil_test

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/deployutil/internal/equalgen"
)

// TestEqualIgnoreHashEveryField fills every field of a pod template (every
// pointer set, every slice and map holding one element), then changes ONE
// place at a time — each leaf, each slice and map as a whole (nil, empty,
// longer, another key) and each of their elements, nil against empty — and
// checks that EqualIgnoreHash says what upstream's definition
// (equality.Semantic on copies without the hash label) says of the pair.
// The walk must reach every type the generated comparison has a function
// for, so every generated function is run with a difference below it.
func TestEqualIgnoreHashEveryField(t *testing.T) {
	var base corev1.PodTemplateSpec
	fill(t, reflect.ValueOf(&base).Elem())
	if !deployutil.EqualIgnoreHash(&base, base.DeepCopy()) {
		t.Fatal("a filled template differs from its copy")
	}
	seen := map[reflect.Type]bool{}
	equal, differ := 0, 0
	mutate(t, reflect.ValueOf(base), seen, "template", func(path string, x, y reflect.Value) {
		a := x.Interface().(corev1.PodTemplateSpec)
		b := y.Interface().(corev1.PodTemplateSpec)
		// Copies: the pair shares nothing, as two objects from a cache do not.
		a, b = *a.DeepCopy(), *b.DeepCopy()
		want := upstreamEqualIgnoreHash(&a, &b)
		if got := deployutil.EqualIgnoreHash(&a, &b); got != want {
			t.Errorf("%s: EqualIgnoreHash = %v, upstream's definition says %v", path, got, want)
		}
		if got := deployutil.EqualIgnoreHash(&b, &a); got != want {
			t.Errorf("%s (swapped): EqualIgnoreHash = %v, upstream's definition says %v", path, got, want)
		}
		if want {
			equal++
		} else {
			differ++
		}
	})
	t.Logf("%d pairs equal, %d different, %d types walked", equal, differ, len(seen))
	if equal == 0 || differ == 0 {
		t.Errorf("the pairs do not exercise both answers: %d equal, %d different", equal, differ)
	}
	res, err := equalgen.Generate(equalgen.Template())
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range res.Types {
		if !seen[typ] {
			t.Errorf("no change below a %v: its generated comparison is not exercised", typ)
		}
	}
	if len(res.Types) < 100 {
		t.Errorf("the generator reports %d types with a function; a pod template reaches far more", len(res.Types))
	}
}

var (
	quantityType  = reflect.TypeFor[resource.Quantity]()
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	fieldsV1Type  = reflect.TypeFor[metav1.FieldsV1]()
	instant       = time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
)

func fieldsV1(raw []byte) metav1.FieldsV1 {
	var f metav1.FieldsV1
	f.SetRawBytes(raw)
	return f
}

// fill sets every field below v (addressable) to a non-zero value: pointers
// point to filled values, slices and maps hold one filled element.
func fill(t testing.TB, v reflect.Value) {
	switch v.Type() {
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse("1")))
		return
	case timeType:
		v.Set(reflect.ValueOf(metav1.NewTime(instant)))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(metav1.NewMicroTime(instant)))
		return
	case fieldsV1Type:
		v.Set(reflect.ValueOf(fieldsV1([]byte(`{"f:a":{}}`))))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i))
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(t, v.Index(0))
	case reflect.Map:
		k := reflect.New(v.Type().Key()).Elem()
		fill(t, k)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(t, e)
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(k, e)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	default:
		t.Fatalf("fill: %v (kind %v) is not handled", v.Type(), v.Kind())
	}
}

// mutate calls emit with pairs of values of v's type that differ from v
// (and from each other) in one place only, naming the place.
func mutate(t *testing.T, v reflect.Value, seen map[reflect.Type]bool, path string, emit func(path string, x, y reflect.Value)) {
	typ := v.Type()
	seen[typ] = true
	val := func(x any) reflect.Value { return reflect.ValueOf(x) }
	switch typ {
	case quantityType:
		emit(path+" 1 vs 1000m", val(resource.MustParse("1")), val(resource.MustParse("1000m")))
		emit(path+" 1 vs 2", val(resource.MustParse("1")), val(resource.MustParse("2")))
		emit(path+" zero vs 0", val(resource.Quantity{}), val(resource.MustParse("0")))
		return
	case timeType:
		emit(path+" zone", val(metav1.NewTime(instant)), val(metav1.NewTime(instant.In(time.FixedZone("x", 3600)))))
		emit(path+" +1ns", val(metav1.NewTime(instant)), val(metav1.NewTime(instant.Add(time.Nanosecond))))
		emit(path+" zero", val(metav1.Time{}), val(metav1.NewTime(instant)))
		return
	case microTimeType:
		emit(path+" zone", val(metav1.NewMicroTime(instant)), val(metav1.NewMicroTime(instant.In(time.FixedZone("x", 3600)))))
		emit(path+" +1ns", val(metav1.NewMicroTime(instant)), val(metav1.NewMicroTime(instant.Add(time.Nanosecond))))
		return
	case fieldsV1Type:
		emit(path+" nil vs empty", val(fieldsV1(nil)), val(fieldsV1([]byte{})))
		emit(path+" bytes", val(fieldsV1([]byte(`{"f:a":{}}`))), val(fieldsV1([]byte(`{"f:b":{}}`))))
		return
	}
	clone := func() reflect.Value {
		c := reflect.New(typ).Elem()
		c.Set(v)
		return c
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				t.Fatalf("%s: %v has the unexported field %s", path, typ, f.Name)
			}
			mutate(t, v.Field(i), seen, path+"."+f.Name, func(p string, fx, fy reflect.Value) {
				x, y := clone(), clone()
				x.Field(i).Set(fx)
				y.Field(i).Set(fy)
				emit(p, x, y)
			})
		}
	case reflect.Pointer:
		emit(path+" nil", v, reflect.Zero(typ))
		emit(path+" both nil", reflect.Zero(typ), reflect.Zero(typ))
		mutate(t, v.Elem(), seen, "(*"+path+")", func(p string, ex, ey reflect.Value) {
			x, y := reflect.New(typ.Elem()), reflect.New(typ.Elem())
			x.Elem().Set(ex)
			y.Elem().Set(ey)
			emit(p, x, y)
		})
	case reflect.Slice:
		copySlice := func(extra int) reflect.Value {
			c := reflect.MakeSlice(typ, v.Len(), v.Len()+extra)
			reflect.Copy(c, v)
			return c
		}
		emit(path+" nil", v, reflect.Zero(typ))
		emit(path+" nil vs empty", reflect.Zero(typ), reflect.MakeSlice(typ, 0, 0))
		emit(path+" one more", v, reflect.Append(copySlice(1), v.Index(0)))
		for j := range v.Len() {
			mutate(t, v.Index(j), seen, path+"[]", func(p string, ex, ey reflect.Value) {
				x, y := copySlice(0), copySlice(0)
				x.Index(j).Set(ex)
				y.Index(j).Set(ey)
				emit(p, x, y)
			})
		}
	case reflect.Map:
		if typ.Key().Kind() != reflect.String {
			t.Fatalf("%s: map key %v is not a string", path, typ.Key())
		}
		copyMap := func() reflect.Value {
			c := reflect.MakeMapWithSize(typ, v.Len())
			for it := v.MapRange(); it.Next(); {
				c.SetMapIndex(it.Key(), it.Value())
			}
			return c
		}
		emit(path+" nil", v, reflect.Zero(typ))
		emit(path+" nil vs empty", reflect.Zero(typ), reflect.MakeMap(typ))
		// The hash label (equal when these are the template's labels).
		hash := reflect.ValueOf(deployutil.PodTemplateHashLabel).Convert(typ.Key())
		withHash := copyMap()
		withHash.SetMapIndex(hash, v.MapIndex(v.MapKeys()[0]))
		emit(path+" hash label", v, withHash)
		onlyHash := reflect.MakeMap(typ)
		onlyHash.SetMapIndex(hash, v.MapIndex(v.MapKeys()[0]))
		emit(path+" nil vs only the hash label", reflect.Zero(typ), onlyHash)
		for _, k := range v.MapKeys() {
			other := reflect.ValueOf(k.String() + "2").Convert(typ.Key())
			more := copyMap()
			more.SetMapIndex(other, v.MapIndex(k))
			emit(path+" one more key", v, more)
			renamed := copyMap()
			renamed.SetMapIndex(k, reflect.Value{})
			renamed.SetMapIndex(other, v.MapIndex(k))
			emit(path+" another key", v, renamed)
			mutate(t, v.MapIndex(k), seen, path+"["+k.String()+"]", func(p string, ex, ey reflect.Value) {
				x, y := copyMap(), copyMap()
				x.SetMapIndex(k, ex)
				y.SetMapIndex(k, ey)
				emit(p, x, y)
			})
		}
	case reflect.String:
		s := v.String()
		emit(path+" changed", v, reflect.ValueOf(s+"y").Convert(typ))
		emit(path+" empty", reflect.Zero(typ), v)
	case reflect.Bool:
		emit(path, reflect.Zero(typ), reflect.ValueOf(true).Convert(typ))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		one, two := reflect.New(typ).Elem(), reflect.New(typ).Elem()
		if v.CanInt() {
			one.SetInt(1)
			two.SetInt(2)
		} else {
			one.SetUint(1)
			two.SetUint(2)
		}
		emit(path+" 1 vs 2", one, two)
		emit(path+" 0 vs 1", reflect.Zero(typ), one)
	default:
		t.Fatalf("%s: %v (kind %v) is not handled", path, typ, v.Kind())
	}
}
