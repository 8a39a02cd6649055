package revision_test

import (
	"encoding/json"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/testutil"
	"github.com/deploysync/deploysync/revision"
)

// TestDescribeTemplateGolden describes a template that uses most of what the
// printer shows. The golden file is kubectl's own output for the same
// template (describe.DescribePodTemplate of k8s.io/kubectl v0.37.2, written
// once from the conformance module), not this package's: the conformance
// test TestDescribeTemplate compares the two on random templates.
func TestDescribeTemplateGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/describe-full.json")
	if err != nil {
		t.Fatal(err)
	}
	var tpl corev1.PodTemplateSpec
	if err := json.Unmarshal(raw, &tpl); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/describe-full.golden")
	if err != nil {
		t.Fatal(err)
	}
	frozen := testutil.Freeze(t, &tpl)
	got, err := revision.DescribeTemplate(&tpl)
	frozen.Check(t)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("DescribeTemplate differs from kubectl's output:\ngot:\n%s\nwant:\n%s", got, want)
	}
}
