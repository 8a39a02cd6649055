package defaulting

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/deploysync/deploysync/defaults"
	"github.com/deploysync/deploysync/deployutil"
)

// count is the number of random Deployments: 2,000 by default, 20,000
// with DEPLOYSYNC_LONG=1, or DEPLOYSYNC_DEFAULTS=n.
func count(t *testing.T) int { return envCount(t, "DEPLOYSYNC_DEFAULTS", 2000, 20000) }

// envCount is the number the environment variable name gives, or def
// (long with DEPLOYSYNC_LONG set; 0 for no long form).
func envCount(t *testing.T, name string, def, long int) int {
	t.Helper()
	if s := os.Getenv(name); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s=%q: %v", name, s, err)
		}
		return n
	}
	if long > 0 && os.Getenv("DEPLOYSYNC_LONG") != "" {
		return long
	}
	return def
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

// TestRandomDeployments compares defaults.Deployment with upstream's
// create path on random Deployments: the same JSON byte for byte, the
// same pod-template-hash (upstream's controller.ComputeHash over the
// object decoded from upstream's JSON, as the controller reads it back,
// and deployutil.ComputeHash over ours), an error exactly where upstream's
// conversion fails or its validation refuses, and the input untouched.
// ReplicaSets with the same template and the template on its own (as a
// core/v1 PodTemplate) are compared the same way.
func TestRandomDeployments(t *testing.T) {
	n := count(t)
	g := newGenerator(26)
	var diffs, refused, upstreamOnlyInvalid, hashes int
	for i := 0; i < n; i++ {
		in, _ := g.deployment(i)
		before := in.DeepCopy()
		ours, err := defaults.Deployment("", in)
		if !reflect.DeepEqual(in, before) {
			t.Fatalf("#%d: defaults.Deployment modified its argument", i)
		}
		up, valid, uerr := Deployment(in)
		switch {
		case err != nil:
			if !errors.Is(err, deployutil.ErrInvalidInput) {
				t.Errorf("#%d: error %v does not match ErrInvalidInput", i, err)
			}
			if uerr == nil && valid {
				diffs++
				t.Errorf("#%d: we refuse (%v) what upstream accepts:\n%s", i, err, mustJSON(t, in))
			}
			refused++
			continue
		case uerr != nil:
			diffs++
			t.Errorf("#%d: upstream fails (%v), we default:\n%s", i, uerr, mustJSON(t, in))
			continue
		}
		if !valid {
			upstreamOnlyInvalid++
		}
		d, same := compareDeployment(t, i, in, up, ours, diffs < 5)
		diffs += d
		if !same {
			continue
		}
		hashes++
	}
	t.Logf("%d random Deployments: %d differences; %d refused by both; %d compared (hash too), of which %d upstream's full validation refuses (pod template rules the library does not check)",
		n, diffs, refused, hashes, upstreamOnlyInvalid)
}

// compareDeployment compares ours with upstream's up for input #i: the
// JSON byte for byte (shown when show), then the pod-template-hash of
// upstream's read back against ours, and the ReplicaSet and PodTemplate
// made from in. It returns the differences and whether the JSON was the
// same (only then is the rest compared).
func compareDeployment(t *testing.T, i int, in, up, ours *appsv1.Deployment, show bool) (diffs int, same bool) {
	t.Helper()
	a, b := mustJSON(t, up), mustJSON(t, ours)
	if !bytes.Equal(a, b) {
		if show {
			t.Errorf("#%d: JSON differs\ninput:    %s\nupstream: %s\nours:     %s", i, mustJSON(t, in), a, b)
		}
		return 1, false
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
	return diffs, true
}

func compareReplicaSet(t *testing.T, i int, d *appsv1.Deployment) int {
	t.Helper()
	in := &appsv1.ReplicaSet{ObjectMeta: d.ObjectMeta, Spec: appsv1.ReplicaSetSpec{
		Replicas: d.Spec.Replicas, MinReadySeconds: d.Spec.MinReadySeconds, Selector: d.Spec.Selector, Template: d.Spec.Template,
	}}
	in = in.DeepCopy()
	ours, err := defaults.ReplicaSet("", in)
	up, uerr := ReplicaSet(in)
	if err != nil || uerr != nil {
		t.Errorf("#%d ReplicaSet: ours %v, upstream %v", i, err, uerr)
		return 1
	}
	if a, b := mustJSON(t, up), mustJSON(t, ours); !bytes.Equal(a, b) {
		t.Errorf("#%d ReplicaSet: JSON differs\nupstream: %s\nours:     %s", i, a, b)
		return 1
	}
	return 0
}

func compareTemplate(t *testing.T, i int, d *appsv1.Deployment) int {
	t.Helper()
	ours, err := defaults.PodTemplate("", &d.Spec.Template)
	up, uerr := PodTemplate(&d.Spec.Template)
	if err != nil || uerr != nil {
		t.Errorf("#%d PodTemplate: ours %v, upstream %v", i, err, uerr)
		return 1
	}
	if a, b := mustJSON(t, up), mustJSON(t, ours); !bytes.Equal(a, b) {
		t.Errorf("#%d PodTemplate: JSON differs\nupstream: %s\nours:     %s", i, a, b)
		return 1
	}
	return 0
}
