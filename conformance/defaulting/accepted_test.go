package defaulting

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/deploysync/deploysync/defaults"
	"github.com/deploysync/deploysync/deployutil"
)

// acceptedCount is the number of accepted Deployments compared in
// process: 2,000 by default, DEPLOYSYNC_DEFAULTS_ACCEPTED=n.
func acceptedCount(t *testing.T) int {
	if s := os.Getenv("DEPLOYSYNC_DEFAULTS_ACCEPTED"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("DEPLOYSYNC_DEFAULTS_ACCEPTED=%q: %v", s, err)
		}
		return n
	}
	return 2000
}

// TestAcceptedDeployments compares defaults.Deployment with upstream's
// create path on Deployments that v1.37.2's full validation accepts (the
// generator's, repaired by upstream's own validation errors; see
// repair_test.go): the library must accept each, give the same JSON byte
// for byte and the pod-template-hash upstream's controller computes over
// the object read back; the ReplicaSet and PodTemplate made from each
// likewise.
func TestAcceptedDeployments(t *testing.T) {
	n := acceptedCount(t)
	ds, _, st := acceptedDeployments(n)
	diffs := 0
	for i, in := range ds {
		before := in.DeepCopy()
		ours, err := defaults.Deployment("", in)
		if !reflect.DeepEqual(in, before) {
			t.Fatalf("#%d: defaults.Deployment modified its argument", i)
		}
		up, valid, uerr := Deployment(in)
		if uerr != nil || !valid {
			t.Fatalf("#%d: the repaired Deployment is not valid upstream (%v)", i, uerr)
		}
		if err != nil {
			diffs++
			t.Errorf("#%d: we refuse (%v) what upstream accepts:\n%s", i, err, mustJSON(t, in))
			continue
		}
		a, b := mustJSON(t, up), mustJSON(t, ours)
		if !bytes.Equal(a, b) {
			diffs++
			if diffs <= 5 {
				t.Errorf("#%d: JSON differs\ninput:    %s\nupstream: %s\nours:     %s", i, mustJSON(t, in), a, b)
			}
			continue
		}
		var back appsv1.Deployment
		if err := json.Unmarshal(a, &back); err != nil {
			t.Fatal(err)
		}
		if h, o := controller.ComputeHash(&back.Spec.Template, nil), deployutil.ComputeHash(&ours.Spec.Template, nil); h != o {
			diffs++
			t.Errorf("#%d: pod-template-hash %s upstream (read back), %s ours", i, h, o)
		}
		diffs += compareReplicaSet(t, i, in)
		diffs += compareTemplate(t, i, in)
	}
	t.Logf("%d accepted Deployments (v1.37.2's validation accepts each) of %d drawn (%d given up; %d repair rounds, %d edits): %d differences",
		len(ds), st.drawn, st.givenUp, st.rounds, st.edits, diffs)
}
