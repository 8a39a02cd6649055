package cli

import (
	"slices"
	"testing"
)

// TestJSONDelta holds the comparison that decides whether a stored object
// (one with a metadata.uid) gets the apiserver's defaults back.
func TestJSONDelta(t *testing.T) {
	type obj = map[string]any
	tests := []struct {
		name           string
		given, defd    obj
		added, removed []string
		reason         string
	}{
		{name: "stored", given: obj{"spec": obj{"replicas": 3}}, defd: obj{"spec": obj{"replicas": 3}},
			reason: "a stored object has every default: nothing added, nothing removed"},
		{name: "default filled in", given: obj{"spec": obj{"c": []any{obj{"name": "a"}}}},
			defd:   obj{"spec": obj{"c": []any{obj{"name": "a", "terminationMessagePath": "/dev/termination-log"}}}},
			added:  []string{"spec.c[0].terminationMessagePath"},
			reason: "an edited export: the removed default comes back, named by its path"},
		{name: "empty object filled", given: obj{"spec": obj{"strategy": obj{}}},
			defd:   obj{"spec": obj{"strategy": obj{"type": "RollingUpdate"}}},
			added:  []string{"spec.strategy.type"},
			reason: "an empty object that defaulting fills is not a removed field"},
		{name: "canonical quantity", given: obj{"cpu": "1000m"}, defd: obj{"cpu": "1"}, added: []string{"cpu"},
			reason: "a value the apiserver rewrites (a quantity in canonical form) counts as added, so the defaulted object is used"},
		{name: "gated field dropped", given: obj{"spec": obj{"hostUsers": false, "replicas": 1}}, defd: obj{"spec": obj{"replicas": 1}},
			removed: []string{"spec.hostUsers"},
			reason:  "a field defaulting drops (its gate off) is reported removed, so the file is taken as it is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added, removed, err := jsonDelta(tt.given, tt.defd)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(added, tt.added) || !slices.Equal(removed, tt.removed) {
				t.Errorf("added %q, removed %q; want %q, %q (%s)", added, removed, tt.added, tt.removed, tt.reason)
			}
		})
	}
}
