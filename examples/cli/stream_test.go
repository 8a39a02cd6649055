package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
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

// TestStreamsAsKubectl reads every stream of the corpus
// (testdata/streams: rendered by Helm and kustomize, printed by kubectl
// get and kubectl cluster-info dump, and written by hand for the edge
// cases) with readStream and with kubectl's builder: the same objects, in
// the same order, and an error exactly where kubectl errs. The golden
// streams.txt records what the CLI makes of each: the objects it keeps,
// the note on the others, or its error with the line of the file.
func TestStreamsAsKubectl(t *testing.T) {
	files, err := filepath.Glob("testdata/streams/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("%d streams in the corpus, want at least 30", len(files))
	}
	var summary strings.Builder
	objects, failing := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d := compareWithKubectl(b); d != "" {
			t.Errorf("%s: %s", f, d)
		}
		ours, errs := readStream(b)
		objects += len(ours)
		if len(errs) > 0 {
			failing++
		}
		fmt.Fprintf(&summary, "== %s: %d objects\n%s\n", filepath.Base(f), len(ours), describeRead(b))
	}
	t.Logf("%d streams, %d objects, %d streams kubectl refuses: the same as kubectl's builder on each", len(files), objects, failing)
	golden(t, "streams.txt", summary.String())
}

// describeRead is what the manifest loader keeps of a stream and what it
// notes, or its error.
func describeRead(b []byte) string {
	objs, skipped, err := decodeAll(b)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var out strings.Builder
	for _, o := range objs {
		acc, _ := meta.Accessor(o.obj)
		fmt.Fprintf(&out, "%s %s/%s (%s)\n", o.obj.GetObjectKind().GroupVersionKind().Kind, acc.GetNamespace(), acc.GetName(), o.source)
	}
	if skipped != "" {
		out.WriteString("note: " + skipped + "\n")
	}
	return out.String()
}
