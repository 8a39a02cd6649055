package kubectl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
)

// UndoPatch is the patch `kubectl rollout undo` sends to a Deployment
// ([Undo] returns it): a JSON patch (RFC 6902) that replaces /spec/template
// and /metadata/annotations, byte for byte what kubectl sends. Send it with
// any client's Patch of the Deployment; it is not part of a sync's plan.
//
// A server applies the patch to the Deployment it stores, whatever its
// resourceVersion: kubectl sends no precondition. [UndoPatch.ApplyTo]
// does the same in memory.
type UndoPatch struct {
	Namespace string
	Name      string
	// Type is the patch's content type; the library only emits
	// types.JSONPatchType.
	Type  types.PatchType
	Patch []byte
	Why   string
}

// String is one line: the patch, its object, the patch type and its reason.
func (a *UndoPatch) String() string {
	s := "patch deployment " + a.Name + " " + string(a.Type)
	if a.Why != "" {
		s += ": " + a.Why
	}
	return s
}

// ApplyTo returns the Deployment d after the patch, as an apiserver would
// store it; d is not modified. It understands what the library emits: a
// JSON patch whose operations are "replace" or "add" of object members
// (paths such as /spec/template); it refuses other operations and patch
// types. As the apiserver's JSON patch implementation (evanphx/json-patch
// v4) does, and unlike RFC 6902, a "replace" of a member missing from an
// existing object adds it: /metadata/annotations replaces fine on a
// Deployment without annotations. A missing parent object is an error.
func (a *UndoPatch) ApplyTo(d *appsv1.Deployment) (*appsv1.Deployment, error) {
	if a.Type != types.JSONPatchType {
		return nil, fmt.Errorf("patch type %q not supported", a.Type)
	}
	var ops []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(a.Patch, &ops); err != nil {
		return nil, fmt.Errorf("decoding the JSON patch: %w", err)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := decode(raw, &doc); err != nil {
		return nil, err
	}
	for i, op := range ops {
		if op.Op != "replace" && op.Op != "add" {
			return nil, fmt.Errorf("operation %d: %q not supported", i, op.Op)
		}
		if op.Value == nil {
			return nil, fmt.Errorf("operation %d: no value", i)
		}
		var v any
		if err := decode(op.Value, &v); err != nil {
			return nil, fmt.Errorf("operation %d: %w", i, err)
		}
		parent, key, err := locate(doc, op.Path)
		if err != nil {
			return nil, fmt.Errorf("operation %d (%s %s): %w", i, op.Op, op.Path, err)
		}
		parent[key] = v
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	result := &appsv1.Deployment{}
	if err := json.Unmarshal(out, result); err != nil {
		return nil, err
	}
	return result, nil
}

// decode keeps numbers as written, so int64 values survive the round trip.
func decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// locate resolves a JSON pointer (RFC 6901) of object members to the object
// holding its last member, and that member's name.
func locate(doc any, pointer string) (map[string]any, string, error) {
	if !strings.HasPrefix(pointer, "/") {
		return nil, "", fmt.Errorf("path must start with /")
	}
	tokens := strings.Split(pointer[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	cur := doc
	for _, t := range tokens[:len(tokens)-1] {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("%s is not an object member path", strconv.Quote(pointer))
		}
		if cur, ok = m[t]; !ok {
			return nil, "", fmt.Errorf("the document has no member %q", t)
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("%s is not an object member path", strconv.Quote(pointer))
	}
	return m, tokens[len(tokens)-1], nil
}
