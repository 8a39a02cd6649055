package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/resource"
)

// kubectlReads reads b as `kubectl apply -f` does before it talks to a
// server: cli-runtime's resource builder in local mode, unstructured
// objects, errors collected, lists flattened (the chain of kubectl apply's
// GetObjects without the server's share).
func kubectlReads(b []byte) ([]*unstructured.Unstructured, error) {
	infos, err := resource.NewLocalBuilder().Unstructured().ContinueOnError().
		Stream(bytes.NewReader(b), "STDIN").Flatten().Do().Infos()
	var out []*unstructured.Unstructured
	for _, in := range infos {
		out = append(out, in.Object.(*unstructured.Unstructured))
	}
	return out, err
}

// compareWithKubectl returns "" when readStream yields the objects the
// builder yields and errs when it errs, else what differs.
func compareWithKubectl(b []byte) string {
	theirs, kerr := kubectlReads(b)
	ours, errs := readStream(b)
	var diffs []string
	if (kerr != nil) != (len(errs) > 0) {
		diffs = append(diffs, fmt.Sprintf("kubectl's error %v, ours %v", kerr, errs))
	}
	if len(theirs) != len(ours) {
		diffs = append(diffs, fmt.Sprintf("kubectl yields %d objects, we %d", len(theirs), len(ours)))
	} else {
		for i := range ours {
			if !reflect.DeepEqual(theirs[i].Object, ours[i].obj.Object) {
				diffs = append(diffs, fmt.Sprintf("object %d: kubectl's %v, ours %v", i, theirs[i].Object, ours[i].obj.Object))
			}
		}
	}
	return strings.Join(diffs, "\n")
}

func TestStreamProbe(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	inputs := map[string]string{
		"dup":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: 1\n  x: 2\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
		"bom":      "\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
		"bomjson":  "\ufeff{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"b\"}}",
		"crlf":     "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: b}\r\n---\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: c}\r\n",
		"json2":    `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}`,
		"jsonyaml": "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"b\"}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"bad":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n   x: y\n",
		"nokind":   "apiVersion: v1\nmetadata: {name: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"dupjson":  `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "name": "c"}}`,
		"trunc":    `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"`,
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		inputs[f] = string(b)
	}
	for name, in := range inputs {
		theirs, kerr := kubectlReads([]byte(in))
		ours, errs := readStream([]byte(in))
		t.Logf("%s: kubectl %d objects err %v; ours %d errs %v", name, len(theirs), kerr, len(ours), errs)
		if d := compareWithKubectl([]byte(in)); d != "" {
			t.Errorf("%s: %s", name, d)
		}
	}
}
