package deployutil

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// semanticEqual reports what k8s.io/apimachinery's equality.Semantic.DeepEqual
// reports for two values of the same type found in a pod template, without
// its costs (a visited-address map, a reflective call for every quantity and
// time). The rules are the same:
//
//   - quantities are equal when Cmp says so; times and micro-times when
//     they are the same instant; managed-fields sets when their bytes are;
//   - nil and empty slices and maps are equal; otherwise lengths and
//     elements must be;
//   - pointers are equal when both are nil or what they point to is equal;
//   - structs field by field, everything else with ==.
//
// API types have no cycles, so no visited set is needed. The conformance and
// property tests compare it with equality.Semantic on generated templates.
func semanticEqual(a, b reflect.Value) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	switch a.Type() {
	case quantityType:
		x, y := asQuantity(a), asQuantity(b)
		return x.Cmp(y) == 0
	case timeType:
		return asTime(a).UTC() == asTime(b).UTC()
	case microTimeType:
		x, y := a.Interface().(metav1.MicroTime), b.Interface().(metav1.MicroTime)
		return x.UTC() == y.UTC()
	case fieldsV1Type:
		x, y := a.Interface().(metav1.FieldsV1), b.Interface().(metav1.FieldsV1)
		return x.Equal(y)
	}
	switch a.Kind() {
	case reflect.Struct:
		for i, n := 0, a.NumField(); i < n; i++ {
			if !semanticEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Pointer() == b.Pointer() {
			return true
		}
		return semanticEqual(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		if a.Len() == 0 || a.Pointer() == b.Pointer() {
			return true
		}
		for i, n := 0, a.Len(); i < n; i++ {
			if !semanticEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		if a.Len() == 0 || a.Pointer() == b.Pointer() {
			return true
		}
		it := a.MapRange()
		for it.Next() {
			if !semanticEqual(it.Value(), b.MapIndex(it.Key())) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i, n := 0, a.Len(); i < n; i++ {
			if !semanticEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return semanticEqual(a.Elem(), b.Elem())
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Func:
		return a.IsNil() && b.IsNil()
	}
	return a.Interface() == b.Interface()
}

var (
	quantityType  = reflect.TypeFor[resource.Quantity]()
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	fieldsV1Type  = reflect.TypeFor[metav1.FieldsV1]()
)

func asQuantity(v reflect.Value) resource.Quantity {
	if v.CanAddr() {
		return *(*resource.Quantity)(v.Addr().UnsafePointer())
	}
	return v.Interface().(resource.Quantity)
}

func asTime(v reflect.Value) metav1.Time {
	if v.CanAddr() {
		return *(*metav1.Time)(v.Addr().UnsafePointer())
	}
	return v.Interface().(metav1.Time)
}
