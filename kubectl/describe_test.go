package kubectl_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/kubectl"
)

// TestDescribeTemplateGolden describes the templates of
// testdata/describe-*.json and compares the text with the .golden beside
// each. The goldens are kubectl's own output for the same templates
// (describe.DescribePodTemplate of k8s.io/kubectl v0.37.2). This test owns
// them: with -update it writes DescribeTemplate's text into them, and the
// conformance test TestDescribeGoldens (conformance/kubectl) checks on every
// run that each one is kubectl's output for its template, so a printer
// change that -update bakes in fails there. Its -update writes new random
// templates (the .json inputs); TestDescribeTemplate there compares the two
// printers on random templates too.
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
			frozen := testutil.Freeze(t, &tpl)
			got, err := kubectl.DescribeTemplate(&tpl)
			frozen.Check(t)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, strings.TrimSuffix(file, ".json")+".golden", got)
		})
	}
}
