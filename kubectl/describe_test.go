package kubectl_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/testutil"
	"github.com/deploysync/deploysync/kubectl"
)

// TestDescribeTemplateGolden describes the templates of
// testdata/describe-*.json and compares the text with the .golden beside
// each. The goldens are kubectl's own output for the same templates
// (describe.DescribePodTemplate of k8s.io/kubectl v0.37.2): the conformance
// test TestDescribeGoldens writes them with -update and checks on every run
// that they still are; TestDescribeTemplate there compares the two printers
// on random templates too.
func TestDescribeTemplateGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/describe-*.json")
	if err != nil || len(files) < 2 {
		t.Fatalf("describe goldens missing: %v %v", files, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var tpl corev1.PodTemplateSpec
			if err := json.Unmarshal(raw, &tpl); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".golden")
			if err != nil {
				t.Fatal(err)
			}
			frozen := testutil.Freeze(t, &tpl)
			got, err := kubectl.DescribeTemplate(&tpl)
			frozen.Check(t)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("DescribeTemplate differs from kubectl's output:\ngot:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
