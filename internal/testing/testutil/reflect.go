package testutil

import (
	"fmt"
	"reflect"
)

// Shared lists the paths at which a and b (values of one type) hold the
// same map, the same slice array or the same pointer: what a change through
// one would change in the other. Exported fields only.
func Shared(a, b any) []string {
	var out []string
	shared(reflect.ValueOf(a), reflect.ValueOf(b), "", &out)
	return out
}

func shared(a, b reflect.Value, path string, out *[]string) {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			*out = append(*out, path)
			return
		}
		shared(a.Elem(), b.Elem(), path, out)
	case reflect.Map:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			*out = append(*out, path)
		}
	case reflect.Slice:
		if a.Cap() > 0 && b.Cap() > 0 && a.Pointer() == b.Pointer() {
			*out = append(*out, path)
			return
		}
		for i := range min(a.Len(), b.Len()) {
			shared(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, out)
			}
		}
	}
}
