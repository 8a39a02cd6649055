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

// TestStreamLastLineAtBufferSize holds the reader to kubectl's builder on
// a last line with no newline whose length is near a multiple of the
// 4096-byte buffer apimachinery reads lines through: kubectl loses such a
// line when its last chunk fills the buffer exactly (FuzzReadManifest
// found it: a comment of invalid UTF-8 that kubectl never parses).
func TestStreamLastLineAtBufferSize(t *testing.T) {
	bad := func(n int) string { return "# " + strings.Repeat("\xd1", n-2) }
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	for _, tc := range []struct {
		name, reason, input string
		// wantObjects and wantErr are what kubectl's builder gives; the
		// test checks the builder too, so a change of kubectl shows.
		wantObjects int
		wantErr     bool
	}{
		{"4095 bytes", "one chunk short of full: read, and its invalid UTF-8 refused", bad(4095), 0, true},
		{"4096 bytes", "the chunk fills the buffer: the line comes with the end of the stream and is lost", bad(4096), 0, false},
		{"4097 bytes", "a second chunk of one byte: read and refused", bad(4097), 0, true},
		{"8192 bytes", "two full chunks: lost", bad(8192), 0, false},
		{"4096 bytes, \\r at 4096", "the chunk's \\r goes back to the next chunk, which ends the line: read and refused",
			bad(4095) + "\r", 0, true},
		{"end of a document", "the document is read without its lost last line", doc + bad(4096), 1, false},
		{"end of a document, 4095", "the line is part of the document, which is refused", doc + bad(4095), 0, true},
		{"a document of its own", "after a separator the lost line leaves no document", doc + "---\n" + bad(4096), 1, false},
		{"separator of 4096 bytes", "a separator line is checked before it is lost: --- and text is an error that ends the stream before the document it closes",
			doc + "---x" + strings.Repeat(" ", 4092), 0, true},
		{"newline at the end", "a line ended by a newline is read whatever its length", bad(4096) + "\n", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.input)
			theirs, kerr := kubectlReads(b)
			if len(theirs) != tc.wantObjects || (kerr != nil) != tc.wantErr {
				t.Fatalf("%s: kubectl's builder gives %d objects, error %v; the row expects %d, error %v",
					tc.reason, len(theirs), kerr, tc.wantObjects, tc.wantErr)
			}
			if d := compareWithKubectl(b); d != "" {
				t.Errorf("%s: %s", tc.reason, d)
			}
		})
	}
}
