package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// object is the JSON form of an API object: what json.Unmarshal produces,
// with numbers kept as json.Number so no precision is lost.
type object = map[string]any

// toObject converts a typed API object to its JSON form.
func toObject(v any) (object, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeObject(data)
}

// decodeObject parses JSON bytes into an object.
func decodeObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var o object
	if err := dec.Decode(&o); err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fmt.Errorf("JSON %q is not an object", data)
	}
	return o, nil
}

// fromObject converts the JSON form back into the typed object out points to.
func fromObject(o object, out any) error {
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// copyObject returns a deep copy of o.
func copyObject(o object) object {
	return copyValue(o).(object)
}

func copyValue(v any) any {
	switch t := v.(type) {
	case object:
		c := make(object, len(t))
		for k, e := range t {
			c[k] = copyValue(e)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = copyValue(e)
		}
		return c
	default:
		return v
	}
}

// mergeDiff returns the merge patch (RFC 7386) that turns base into changed:
// objects are compared key by key, recursively; any other value, lists
// included, is replaced wholesale when it differs; a key present in base and
// absent from changed maps to nil, meaning "delete". An empty result means the
// two are equal.
func mergeDiff(base, changed object) object {
	patch := object{}
	for k, cv := range changed {
		bv, ok := base[k]
		if !ok {
			patch[k] = cv
			continue
		}
		bm, bIsObj := bv.(object)
		cm, cIsObj := cv.(object)
		if bIsObj && cIsObj {
			if sub := mergeDiff(bm, cm); len(sub) > 0 {
				patch[k] = sub
			}
			continue
		}
		if !reflect.DeepEqual(bv, cv) {
			patch[k] = cv
		}
	}
	for k := range base {
		if _, ok := changed[k]; !ok {
			patch[k] = nil
		}
	}
	return patch
}

// mergeApply applies a merge patch to target in place, following RFC 7386: a
// nil value deletes the key, an object value is merged into the target's
// object (replacing a non-object), and any other value replaces the target's.
func mergeApply(target, patch object) {
	for k, pv := range patch {
		if pv == nil {
			delete(target, k)
			continue
		}
		pm, ok := pv.(object)
		if !ok {
			target[k] = copyValue(pv)
			continue
		}
		tm, ok := target[k].(object)
		if !ok {
			tm = object{}
			target[k] = tm
		}
		mergeApply(tm, pm)
	}
}

// dropPath removes the key at path from a merge patch, and any object left
// empty on the way, so that the patch cannot touch that part of an object.
func dropPath(patch object, path ...string) {
	if len(path) == 0 {
		return
	}
	if len(path) == 1 {
		delete(patch, path[0])
		return
	}
	sub, ok := patch[path[0]].(object)
	if !ok {
		// Not a nested merge: absent, or a wholesale replacement that
		// never occurs for metadata, spec or status. Nothing to drop.
		return
	}
	dropPath(sub, path[1:]...)
	if len(sub) == 0 {
		delete(patch, path[0])
	}
}
