// Package hashlayout copies a pod template into the layout of an older
// Kubernetes minor's k8s.io/api, so that dumping the copy (as upstream's
// ComputeHash dumps a template) gives that minor's pod-template-hash.
//
// The layouts are generated (go generate; see layoutgen): for each older
// minor, every type a PodTemplateSpec reaches whose declaration differs from
// the library's k8s.io/api is declared again as that minor declares it,
// under v1_XX/core (package v1, so its dump names the types as upstream's
// does); every other type is the library's own. Copying keeps every field
// the older minor has and drops those it does not know, as its apiserver's
// decoding drops them.
package hashlayout

//go:generate go run ./gen -root ../..

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/kversion"
)

// Template returns the template as minor m's API types hold it, as a value
// (not a pointer) of m's PodTemplateSpec type, ready to dump. For the newest
// minor it is *t itself. The copy shares no memory the dump could not share
// with t; t is not modified. It fails only if a field changed its kind
// between minors in a way a copy cannot follow (none does today: the
// generator's test would say so).
func Template(m kversion.Minor, t *corev1.PodTemplateSpec) (any, error) {
	typ := templateType(m)
	if typ == reflect.TypeFor[corev1.PodTemplateSpec]() {
		return *t, nil
	}
	dst := reflect.New(typ).Elem()
	if err := copyValue(dst, reflect.ValueOf(*t), "template"); err != nil {
		return nil, err
	}
	return dst.Interface(), nil
}

// copyValue copies src into dst (settable), field by field by name, where
// their types differ; a field of dst that src lacks stays zero, a field of
// src that dst lacks is dropped.
func copyValue(dst, src reflect.Value, at string) error {
	if dst.Type() == src.Type() {
		dst.Set(src)
		return nil
	}
	switch dst.Kind() {
	case reflect.Struct:
		if src.Kind() != reflect.Struct {
			break
		}
		st := src.Type()
		for i := 0; i < st.NumField(); i++ {
			sf := st.Field(i)
			df, ok := dst.Type().FieldByName(sf.Name)
			if !ok || len(df.Index) != 1 {
				continue // a field this minor does not know (or only promotes)
			}
			if err := copyValue(dst.Field(df.Index[0]), src.Field(i), at+"."+sf.Name); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		if src.Kind() != reflect.Pointer {
			break
		}
		if src.IsNil() {
			return nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := copyValue(p.Elem(), src.Elem(), at); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.Slice:
		if src.Kind() != reflect.Slice {
			break
		}
		if src.IsNil() {
			return nil
		}
		s := reflect.MakeSlice(dst.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			if err := copyValue(s.Index(i), src.Index(i), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	case reflect.Map:
		if src.Kind() != reflect.Map {
			break
		}
		if src.IsNil() {
			return nil
		}
		m := reflect.MakeMapWithSize(dst.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			k := reflect.New(dst.Type().Key()).Elem()
			if err := copyValue(k, it.Key(), at); err != nil {
				return err
			}
			v := reflect.New(dst.Type().Elem()).Elem()
			if err := copyValue(v, it.Value(), fmt.Sprintf("%s[%v]", at, it.Key())); err != nil {
				return err
			}
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
		return nil
	default:
		if src.Kind() == dst.Kind() && src.Type().ConvertibleTo(dst.Type()) {
			dst.Set(src.Convert(dst.Type()))
			return nil
		}
	}
	return fmt.Errorf("hashlayout: %s is a %s here and a %s in the older layout", at, src.Type(), dst.Type())
}
