package deployutil_test

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/kversion"
)

// hashRecord is a line of testdata/hash_minors.jsonl.gz: a template (as an
// apiserver's JSON), a collisionCount and the pod-template-hash each minor's
// upstream computes for them. The hashes were recorded by running
// k8s.io/kubernetes v1.33.5, v1.34.4, v1.35.4, v1.36.3 and v1.37.2's
// pkg/controller.ComputeHash on the template decoded with that version's
// k8s.io/api: 40 hand-shaped templates (the defaults an apiserver fills in,
// ports, probes, volumes, sidecars) and 40 filled at random (every field
// of k8s.io/api v0.37.2 may be set, so fields older minors do not know
// appear: schedulingGroup, fileKeyRef, hostnameOverride, ...).
type hashRecord struct {
	Template       json.RawMessage   `json:"template"`
	CollisionCount *int32            `json:"collisionCount"`
	Kind           string            `json:"kind"`
	Hashes         map[string]string `json:"hashes"`
}

func TestComputeHashForUpstream(t *testing.T) {
	f, err := os.Open("testdata/hash_minors.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		var r hashRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var tpl corev1.PodTemplateSpec
		if err := json.Unmarshal(r.Template, &tpl); err != nil {
			t.Fatal(err)
		}
		for _, v := range kversion.SupportedStrings() {
			want, ok := r.Hashes[v]
			if !ok {
				t.Fatalf("line %d has no %s hash", n+1, v)
			}
			got, err := deployutil.ComputeHashFor(v, &tpl, r.CollisionCount)
			if err != nil || got != want {
				t.Errorf("line %d (%s), %s: ComputeHashFor = %q, %v; upstream %q", n+1, r.Kind, v, got, err, want)
			}
		}
		if got := deployutil.ComputeHash(&tpl, r.CollisionCount); got != r.Hashes["1.37"] {
			t.Errorf("line %d: ComputeHash = %q, upstream 1.37 %q", n+1, got, r.Hashes["1.37"])
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 80 {
		t.Errorf("%d records, want 80", n)
	}
}

func TestComputeHashForVersions(t *testing.T) {
	tpl := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	tests := []struct {
		version string
		same    string
		ok      bool
		reason  string
	}{
		{"v1.34.4-eks-1a2b3c", "1.34", true, "a managed offering's version is its minor"},
		{"1.36.9", "1.36", true, "any patch of a minor hashes alike"},
		{"1.32", "", false, "unsupported minor"},
		{"x", "", false, "not a version"},
	}
	for _, tt := range tests {
		got, err := deployutil.ComputeHashFor(tt.version, tpl, nil)
		if !tt.ok {
			var ue *kversion.UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("%s: %q, %v; want the unsupported-version error (%s)", tt.version, got, err, tt.reason)
			}
			continue
		}
		want, _ := deployutil.ComputeHashFor(tt.same, tpl, nil)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %s's %q (%s)", tt.version, got, err, tt.same, want, tt.reason)
		}
	}
}
