package deployutil

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TemplateChange is one field of a pod template that differs between two
// templates: its path in the Deployment, as kubectl explain names fields
// (spec.template.spec.containers[app].image), and its value in each, as
// JSON ("" where the field is absent, a string without its quotes).
type TemplateChange struct {
	Path     string
	From, To string
}

// String is "path: from → to", "(none)" for an absent value.
func (c TemplateChange) String() string {
	return c.Path + ": " + orNone(c.From) + " → " + orNone(c.To)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// TemplateChanges lists the fields in which two pod templates differ once
// the pod-template-hash label is ignored, by the rules of
// k8s.io/apimachinery's equality.Semantic, which the controller uses to
// tell whether a Deployment's template is a ReplicaSet's: nil and empty
// maps and slices are equal, quantities compare by value (1000m is 1),
// times as instants, a nil pointer differs from a pointer to a zero value.
// It returns nil exactly when [EqualIgnoreHash] is true, that is when the
// templates run the same ReplicaSet.
//
// A user needs it to say why an apply starts a rollout. Lists of named
// items (containers, init containers, volumes, env, ports with names) are
// matched by name and their items named in the path
// (containers[web].image); a list whose names change order is one change of
// its order; other lists are compared by index. Neither template is
// modified.
func TemplateChanges(from, to *corev1.PodTemplateSpec) []TemplateChange {
	d := differ{}
	a, b := withoutHashLabel(from), withoutHashLabel(to)
	d.walk("spec.template", reflect.ValueOf(a), reflect.ValueOf(b))
	return d.out
}

// withoutHashLabel returns a shallow copy of t whose labels lack the
// pod-template-hash label.
func withoutHashLabel(t *corev1.PodTemplateSpec) corev1.PodTemplateSpec {
	c := *t
	if _, ok := t.Labels[PodTemplateHashLabel]; ok {
		c.Labels = make(map[string]string, len(t.Labels))
		for k, v := range t.Labels {
			if k != PodTemplateHashLabel {
				c.Labels[k] = v
			}
		}
	}
	return c
}

type differ struct{ out []TemplateChange }

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	timeType     = reflect.TypeFor[metav1.Time]()
	microType    = reflect.TypeFor[metav1.MicroTime]()
)

func (d *differ) add(path string, a, b reflect.Value) {
	d.out = append(d.out, TemplateChange{Path: path, From: render(a), To: render(b)})
}

// walk compares a and b (values of one type) under path.
func (d *differ) walk(path string, a, b reflect.Value) {
	switch a.Type() {
	case quantityType:
		qa, qb := a.Interface().(resource.Quantity), b.Interface().(resource.Quantity)
		if qa.Cmp(qb) != 0 {
			d.add(path, a, b)
		}
		return
	case timeType:
		if !a.Interface().(metav1.Time).UTC().Equal(b.Interface().(metav1.Time).UTC()) {
			d.add(path, a, b)
		}
		return
	case microType:
		if !a.Interface().(metav1.MicroTime).UTC().Equal(b.Interface().(metav1.MicroTime).UTC()) {
			d.add(path, a, b)
		}
		return
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		switch {
		case a.IsNil() && b.IsNil():
		case a.IsNil() || b.IsNil():
			d.add(path, a, b)
		default:
			d.walk(path, a.Elem(), b.Elem())
		}
	case reflect.Struct:
		t := a.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue // none in a pod template but the types handled above
			}
			name, inline := jsonName(f)
			p := path
			if !inline {
				p = path + "." + name
			}
			d.walk(p, a.Field(i), b.Field(i))
		}
	case reflect.Map:
		d.walkMap(path, a, b)
	case reflect.Slice:
		d.walkSlice(path, a, b)
	default:
		if a.Interface() != b.Interface() {
			d.add(path, a, b)
		}
	}
}

// jsonName is a struct field's name in JSON, and whether it is inlined.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if strings.Contains(","+opts+",", ",inline,") || f.Anonymous && name == "" {
		return "", true
	}
	if name == "" {
		name = f.Name
	}
	return name, false
}

func (d *differ) walkMap(path string, a, b reflect.Value) {
	if a.Len() == 0 && b.Len() == 0 {
		return
	}
	keys := map[string]reflect.Value{}
	var order []string
	for _, m := range []reflect.Value{a, b} {
		for _, k := range m.MapKeys() {
			s := fmt.Sprint(k.Interface())
			if _, ok := keys[s]; !ok {
				keys[s] = k
				order = append(order, s)
			}
		}
	}
	sortStrings(order)
	for _, s := range order {
		k := keys[s]
		va, vb := a.MapIndex(k), b.MapIndex(k)
		p := path + "[" + s + "]"
		switch {
		case !va.IsValid() || !vb.IsValid():
			d.out = append(d.out, TemplateChange{Path: p, From: renderValid(va), To: renderValid(vb)})
		default:
			d.walk(p, va, vb)
		}
	}
}

func (d *differ) walkSlice(path string, a, b reflect.Value) {
	if a.Len() == 0 && b.Len() == 0 {
		return
	}
	na, okA := names(a)
	nb, okB := names(b)
	if !okA || !okB {
		for i := range max(a.Len(), b.Len()) {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= a.Len():
				d.out = append(d.out, TemplateChange{Path: p, To: render(b.Index(i))})
			case i >= b.Len():
				d.out = append(d.out, TemplateChange{Path: p, From: render(a.Index(i))})
			default:
				d.walk(p, a.Index(i), b.Index(i))
			}
		}
		return
	}
	// Matched by name; a change of order among the names both have is a
	// change of its own (equality is order-sensitive).
	idxA, idxB := map[string]int{}, map[string]int{}
	for i, n := range na {
		idxA[n] = i
	}
	for i, n := range nb {
		idxB[n] = i
	}
	var commonA, commonB []string
	for _, n := range na {
		if _, ok := idxB[n]; ok {
			commonA = append(commonA, n)
		}
	}
	for _, n := range nb {
		if _, ok := idxA[n]; ok {
			commonB = append(commonB, n)
		}
	}
	if strings.Join(commonA, "\x00") != strings.Join(commonB, "\x00") {
		d.out = append(d.out, TemplateChange{Path: path + " (order)", From: strings.Join(na, ", "), To: strings.Join(nb, ", ")})
	}
	for _, n := range na {
		p := path + "[" + n + "]"
		if j, ok := idxB[n]; ok {
			d.walk(p, a.Index(idxA[n]), b.Index(j))
		} else {
			d.out = append(d.out, TemplateChange{Path: p, From: render(a.Index(idxA[n]))})
		}
	}
	for _, n := range nb {
		if _, ok := idxA[n]; !ok {
			d.out = append(d.out, TemplateChange{Path: path + "[" + n + "]", To: render(b.Index(idxB[n]))})
		}
	}
}

// names returns the Name of every item of a slice of structs with a
// string field Name, and whether they name the items: all set, none
// repeated.
func names(s reflect.Value) ([]string, bool) {
	t := s.Type().Elem()
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	f, ok := t.FieldByName("Name")
	if !ok || f.Type.Kind() != reflect.String || len(f.Index) != 1 {
		return nil, false
	}
	out := make([]string, s.Len())
	seen := map[string]bool{}
	for i := range out {
		n := s.Index(i).Field(f.Index[0]).String()
		if n == "" || seen[n] {
			return nil, false
		}
		seen[n], out[i] = true, n
	}
	return out, true
}

// renderValid renders v, "" for an invalid (absent) value.
func renderValid(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	return render(v)
}

// render is a value as JSON, a string without quotes, "" for nil and for
// an empty map or slice (absent, for equality).
func render(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		if v.IsNil() {
			return ""
		}
	case reflect.String:
		return v.String()
	}
	if (v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.Len() == 0 {
		return ""
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Sprint(v.Interface())
	}
	s := string(b)
	if u, err := strconv.Unquote(s); err == nil && strings.HasPrefix(s, `"`) {
		return u // a quantity, a time, an int-or-string
	}
	return s
}

// sortStrings sorts in place (insertion sort: map keys are few).
func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
