package upstream

import (
	"reflect"
	"testing"
)

func mustObject(t *testing.T, s string) object {
	t.Helper()
	o, err := decodeObject([]byte(s))
	if err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return o
}

func TestMergeDiff(t *testing.T) {
	tests := []struct {
		name, base, changed, want, reason string
	}{
		{
			name: "equal", base: `{"a":1,"m":{"x":[1,2]}}`, changed: `{"a":1,"m":{"x":[1,2]}}`, want: `{}`,
			reason: "equal objects need no patch",
		},
		{
			name: "scalar changed", base: `{"spec":{"replicas":2,"x":"y"}}`, changed: `{"spec":{"replicas":3,"x":"y"}}`,
			want:   `{"spec":{"replicas":3}}`,
			reason: "objects are compared key by key, so only the changed leaf is in the patch",
		},
		{
			name: "key added and removed", base: `{"m":{"a":"1","b":"2"}}`, changed: `{"m":{"a":"1","c":"3"}}`,
			want:   `{"m":{"b":null,"c":"3"}}`,
			reason: "a removed key becomes null, the RFC 7386 delete",
		},
		{
			name: "list replaced", base: `{"l":[{"a":1},{"b":2}]}`, changed: `{"l":[{"a":1},{"b":3}]}`,
			want:   `{"l":[{"a":1},{"b":3}]}`,
			reason: "lists are not merged: a changed list is replaced wholesale",
		},
		{
			name: "object replaces scalar", base: `{"v":"s"}`, changed: `{"v":{"k":1}}`, want: `{"v":{"k":1}}`,
			reason: "a change of kind is a replacement",
		},
		{
			name: "number precision", base: `{"n":9007199254740993}`, changed: `{"n":9007199254740992}`,
			want:   `{"n":9007199254740992}`,
			reason: "numbers are kept as json.Number, so int64s beyond 2^53 still differ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			got := mergeDiff(mustObject(t, tt.base), mustObject(t, tt.changed))
			if want := mustObject(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("mergeDiff = %s, want %s: %s", compact(got), compact(want), tt.reason)
			}
		})
	}
}

func TestMergeApply(t *testing.T) {
	tests := []struct {
		name, target, patch, want, reason string
	}{
		{
			name: "merge nested", target: `{"metadata":{"ownerReferences":[{"uid":"d"}],"annotations":{"a":"1"}},"spec":{"replicas":2}}`,
			patch:  `{"metadata":{"annotations":{"b":"2"}},"spec":{"replicas":3}}`,
			want:   `{"metadata":{"ownerReferences":[{"uid":"d"}],"annotations":{"a":"1","b":"2"}},"spec":{"replicas":3}}`,
			reason: "keys the patch does not mention are kept: an earlier write's changes survive",
		},
		{
			name: "delete", target: `{"m":{"a":"1","b":"2"}}`, patch: `{"m":{"a":null}}`, want: `{"m":{"b":"2"}}`,
			reason: "null deletes",
		},
		{
			name: "create path", target: `{}`, patch: `{"m":{"a":"1","gone":null}}`, want: `{"m":{"a":"1"}}`,
			reason: "a missing object is created; nulls inside it are dropped",
		},
		{
			name: "replace list", target: `{"l":[1,2,3]}`, patch: `{"l":[4]}`, want: `{"l":[4]}`,
			reason: "lists are replaced",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			target := mustObject(t, tt.target)
			mergeApply(target, mustObject(t, tt.patch))
			if want := mustObject(t, tt.want); !reflect.DeepEqual(target, want) {
				t.Errorf("mergeApply = %s, want %s: %s", compact(target), compact(want), tt.reason)
			}
		})
	}
}

// Replaying two writes based on the same version keeps both changes: the
// union of intents that the runner relies on for stale writes.
func TestDiffApplyUnion(t *testing.T) {
	base := mustObject(t, `{"metadata":{"labels":{"app":"web"}},"spec":{"replicas":2},"status":{"replicas":2}}`)
	cur := copyObject(base)
	first := mustObject(t, `{"metadata":{"labels":{"app":"web"},"ownerReferences":[{"uid":"d"}]},"spec":{"replicas":2},"status":{"replicas":2}}`)
	second := mustObject(t, `{"metadata":{"labels":{"app":"web"}},"spec":{"replicas":3},"status":{"replicas":9}}`)
	mergeApply(cur, mergeDiff(base, first))
	d := mergeDiff(base, second)
	dropPath(d, "status")
	mergeApply(cur, d)
	want := mustObject(t, `{"metadata":{"labels":{"app":"web"},"ownerReferences":[{"uid":"d"}]},"spec":{"replicas":3},"status":{"replicas":2}}`)
	if !reflect.DeepEqual(cur, want) {
		t.Errorf("union = %s, want %s", compact(cur), compact(want))
	}
	if !reflect.DeepEqual(base, mustObject(t, `{"metadata":{"labels":{"app":"web"}},"spec":{"replicas":2},"status":{"replicas":2}}`)) {
		t.Errorf("base was modified: %s", compact(base))
	}
}

func TestDropPath(t *testing.T) {
	p := mustObject(t, `{"metadata":{"labels":{"a":"b"}},"spec":{"x":1},"status":{"y":2}}`)
	dropPath(p, "metadata", "labels")
	dropPath(p, "spec")
	if want := mustObject(t, `{"status":{"y":2}}`); !reflect.DeepEqual(p, want) {
		t.Errorf("dropPath = %s, want %s (an emptied metadata goes too)", compact(p), compact(want))
	}
	p = mustObject(t, `{"metadata":{"labels":{"a":"b"},"annotations":{"c":"d"}}}`)
	dropPath(p, "metadata", "labels")
	if want := mustObject(t, `{"metadata":{"annotations":{"c":"d"}}}`); !reflect.DeepEqual(p, want) {
		t.Errorf("dropPath = %s, want %s", compact(p), compact(want))
	}
}
