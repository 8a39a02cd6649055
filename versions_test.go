package deploysync_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

func TestKubernetesVersions(t *testing.T) {
	want := []string{"1.33", "1.34", "1.35", "1.36", "1.37"}
	if got := deploysync.KubernetesVersions(); !slices.Equal(got, want) {
		t.Errorf("KubernetesVersions() = %v, want %v (issue 14: the minors still served)", got, want)
	}
}

// TestWithKubernetesVersionUnsupported: a version that does not parse or is
// not supported fails Sync with the typed error, which lists the minors.
func TestWithKubernetesVersionUnsupported(t *testing.T) {
	tests := []struct {
		version string
		reason  string
	}{
		{"1.32", "the minor before the oldest supported"},
		{"v1.38.0", "a minor the library does not know yet"},
		{"latest", "not a version"},
		{"", "empty"},
	}
	d := testutil.Deployment("web", 1)
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			p, err := deploysync.Sync(deploysync.State{Deployment: d, Now: testutil.Epoch()}, deploysync.WithKubernetesVersion(tt.version))
			var ue *deploysync.UnsupportedVersionError
			if !errors.As(err, &ue) {
				t.Fatalf("Sync = %v, %v; want an *UnsupportedVersionError (%s)", p, err, tt.reason)
			}
			if !slices.Equal(ue.Supported, deploysync.KubernetesVersions()) || !strings.Contains(err.Error(), "1.33, 1.34, 1.35, 1.36, 1.37") {
				t.Errorf("error %q does not list the supported minors", err)
			}
			if len(p.Actions) != 0 {
				t.Errorf("a failed Sync planned %v", p.Actions)
			}
		})
	}
	// A later valid option wins over an earlier bad one, as options apply in order.
	if _, err := deploysync.Sync(deploysync.State{Deployment: d, Now: testutil.Epoch()},
		deploysync.WithKubernetesVersion("0.1"), deploysync.WithKubernetesVersion("1.36")); err != nil {
		t.Errorf("the last version given should decide: %v", err)
	}
}

// terminatingOf returns status.terminatingReplicas of the plan's status
// write (set reports whether it is set) and whether there was a write.
func terminatingOf(p deploysync.Plan) (set bool, wrote bool) {
	for _, a := range p.Actions {
		if u, ok := a.(*action.UpdateDeploymentStatus); ok {
			wrote = true
			set = u.Deployment.Status.TerminatingReplicas != nil
		}
	}
	return set, wrote
}

// TestTerminatingReplicasGatePerMinor: the gate's default follows the minor
// (k8s.io/kubernetes pkg/features/kube_features.go:
// DeploymentReplicaSetTerminatingReplicas is Alpha, default false, from
// 1.33 — v1.33.5 and v1.34.4 list only that entry — and Beta, default true,
// from 1.35 in v1.35.4, v1.36.3, v1.37.2); WithTerminatingReplicas
// overrides it either way, whichever option comes first.
func TestTerminatingReplicasGatePerMinor(t *testing.T) {
	on, off := deploysync.WithTerminatingReplicas(true), deploysync.WithTerminatingReplicas(false)
	tests := []struct {
		name   string
		opts   []deploysync.Option
		want   bool
		reason string
	}{
		{"default", nil, true, "the default minor is 1.37, gate on"},
		{"1.33", []deploysync.Option{deploysync.WithKubernetesVersion("1.33")}, false, "alpha, off by default in v1.33.5"},
		{"1.34", []deploysync.Option{deploysync.WithKubernetesVersion("v1.34.4")}, false, "still alpha in v1.34.4"},
		{"1.35", []deploysync.Option{deploysync.WithKubernetesVersion("v1.35.4")}, true, "beta, on by default from v1.35"},
		{"1.36", []deploysync.Option{deploysync.WithKubernetesVersion("1.36")}, true, "beta in v1.36.3"},
		{"1.37", []deploysync.Option{deploysync.WithKubernetesVersion("1.37")}, true, "beta in v1.37.2"},
		{"1.33 gate on", []deploysync.Option{deploysync.WithKubernetesVersion("1.33"), on}, true, "an explicit gate overrides the minor"},
		{"gate on then 1.34", []deploysync.Option{on, deploysync.WithKubernetesVersion("1.34")}, true, "the explicit gate wins whatever the order"},
		{"1.36 gate off", []deploysync.Option{deploysync.WithKubernetesVersion("1.36"), off}, false, "an explicit gate overrides the minor"},
	}
	d := testutil.Deployment("web", 2)
	rs := testutil.ReplicaSet("web-1", 2, testutil.OwnedBy(d))
	rs.Spec.Template.Labels = map[string]string{"foo": "bar"}
	d.Generation = 3 // observedGeneration 0 is behind: a status write is due
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := deploysync.Sync(deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: testutil.Epoch()}, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			set, wrote := terminatingOf(p)
			if !wrote {
				t.Fatalf("no status write in\n%v", p)
			}
			if set != tt.want {
				t.Errorf("terminatingReplicas set = %v, want %v (%s)\n%v", set, tt.want, tt.reason, p)
			}
		})
	}
}

// upstreamHash is the pod-template-hash of fxDeployment's template (labels
// foo=bar, one container foo/bar; collisionCount nil) as each minor's
// controller.ComputeHash computes it: recorded by running
// k8s.io/kubernetes v1.33.5, v1.34.4, v1.35.4, v1.36.3 and v1.37.2's
// pkg/controller.ComputeHash on the template's JSON.
var upstreamHash = map[string]string{
	"1.33": "5c5b9cc44f",
	"1.34": "6c9456cd4d",
	"1.35": "76cf5fd5d5",
	"1.36": "7c69bf6454",
	"1.37": "5d94f67bbb",
}

func createdName(p deploysync.Plan) string {
	for _, a := range p.Actions {
		if c, ok := a.(*action.CreateReplicaSet); ok {
			return c.ReplicaSet.Name
		}
	}
	return ""
}

// TestNewReplicaSetNamePerMinor: the new ReplicaSet is named with the
// minor's hash, and a long Deployment name is cut from 1.34
// (pkg/controller/deployment/sync.go generateReplicaSetName, added in
// v1.34.4) but sent uncut by 1.33 (v1.33.5: Name: d.Name + "-" +
// podTemplateSpecHash), which the apiserver refuses past 253 characters:
// the create fails (getNewReplicaSet's err != nil case: Progressing False
// ReplicaSetCreateError, a Warning event, the sync returns the error).
func TestNewReplicaSetNamePerMinor(t *testing.T) {
	tests := []struct {
		version string
		nameLen int
		reject  bool
		reason  string
	}{
		{"1.33", 5, false, "a short name: <name>-<1.33 hash>"},
		{"1.34", 5, false, "a short name: <name>-<1.34 hash>"},
		{"1.35", 5, false, "1.35's hash"},
		{"1.36", 5, false, "1.36's hash"},
		{"1.37", 5, false, "1.37's hash"},
		{"1.33", 242, false, "242 + 1 + 10 = 253 characters: the longest name 1.33 can create"},
		{"1.33", 243, true, "254 characters: 1.33's apiserver refuses the uncut name"},
		{"1.33", 253, true, "the longest Deployment name: 264 characters, refused"},
		{"1.34", 243, false, "1.34 cuts the Deployment name to 242 characters"},
		{"1.34", 253, false, "1.34 cuts the Deployment name to 242 characters"},
		{"1.37", 253, false, "1.37 cuts as 1.34"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.version, tt.nameLen), func(t *testing.T) {
			d := testutil.Deployment(strings.Repeat("a", tt.nameLen), 1)
			d.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
			frozen := testutil.Freeze(t, d)
			p, err := deploysync.Sync(deploysync.State{Deployment: d, Now: testutil.Epoch()}, deploysync.WithKubernetesVersion(tt.version))
			frozen.Check(t)
			if err != nil {
				t.Fatal(err)
			}
			hash := upstreamHash[tt.version]
			full := d.Name + "-" + hash
			if !tt.reject {
				want := full
				if len(want) > 253 {
					want = d.Name[:253-1-len(hash)] + "-" + hash
				}
				if got := createdName(p); got != want || p.Err != nil {
					t.Fatalf("created %q (err %v), want %q (%s)\n%v", got, p.Err, want, tt.reason, p)
				}
				return
			}
			var rej *deploysync.CreateRejectedError
			if !errors.As(p.Err, &rej) || rej.Name != full {
				t.Fatalf("Err = %v, want a CreateRejectedError for %q (%s)\n%v", p.Err, full, tt.reason, p)
			}
			apiMsg := fmt.Sprintf("ReplicaSet.apps %q is invalid: metadata.name: Invalid value: %q: must be no more than 253 characters", full, full)
			if rej.Message != apiMsg {
				t.Errorf("message %q, want the apiserver's %q", rej.Message, apiMsg)
			}
			msg := fmt.Sprintf("Failed to create new replica set %q: %s", full, apiMsg)
			if n := createdName(p); n != "" {
				t.Errorf("a rejected create still planned %s", n)
			}
			var sawEvent, sawCond bool
			for _, a := range p.Actions {
				switch a := a.(type) {
				case *action.Event:
					sawEvent = a.Type == corev1.EventTypeWarning && a.Reason == "ReplicaSetCreateError" && a.Message == msg
				case *action.UpdateDeploymentStatus:
					for _, c := range a.Deployment.Status.Conditions {
						if c.Type == appsv1.DeploymentProgressing {
							sawCond = c.Status == corev1.ConditionFalse && c.Reason == "ReplicaSetCreateError" && c.Message == msg
						}
					}
				}
			}
			if !sawEvent || !sawCond {
				t.Errorf("want a Warning ReplicaSetCreateError event and Progressing False ReplicaSetCreateError, both %q (event %v, condition %v)\n%v", msg, sawEvent, sawCond, p)
			}
		})
	}
}

// TestRecreatePodMapPerMinor: before scaling up, Recreate waits while an old
// ReplicaSet has a running pod in upstream's pod map. Up to 1.35 the map
// holds the pods matching the Deployment's selector, grouped by their
// controller's UID (pkg/controller/deployment/deployment_controller.go
// getPodMapForDeployment, v1.35.4: podLister.List(selector), then
// controllerRef.UID); from 1.36 the pods the index finds under
// namespace/ReplicaSet/name/UID (v1.36.3: controller.FilterPodsByOwner).
func TestRecreatePodMapPerMinor(t *testing.T) {
	d := testutil.Deployment("web", 1)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	old := testutil.ReplicaSet("web-old", 0, testutil.OwnedBy(d))
	old.Spec.Template.Spec.Containers[0].Image = "foo/old"
	pod := func(labels map[string]string, refName string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: d.Namespace, UID: "stray-uid", Labels: labels,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: refName, UID: old.UID, Controller: ptr.To(true)}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
	}
	matching, other := map[string]string{"foo": "bar"}, map[string]string{"foo": "other"}
	tests := []struct {
		name    string
		version string
		pod     *corev1.Pod
		waits   bool
		reason  string
	}{
		{"selected, named", "1.35", pod(matching, "web-old"), true, "matches the selector and names the old ReplicaSet: every minor counts it"},
		{"selected, named", "1.36", pod(matching, "web-old"), true, "matches the selector and names the old ReplicaSet: every minor counts it"},
		{"unselected", "1.33", pod(other, "web-old"), false, "up to 1.35 only pods matching the Deployment's selector are listed"},
		{"unselected", "1.35", pod(other, "web-old"), false, "up to 1.35 only pods matching the Deployment's selector are listed"},
		{"unselected", "1.36", pod(other, "web-old"), true, "from 1.36 the index finds it by its controller reference, labels aside"},
		{"unselected", "1.37", pod(other, "web-old"), true, "from 1.36 the index finds it by its controller reference, labels aside"},
		{"wrong name", "1.34", pod(matching, "web-gone"), true, "up to 1.35 only the reference's UID is compared"},
		{"wrong name", "1.36", pod(matching, "web-gone"), false, "from 1.36 the index key holds the name too"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.version, func(t *testing.T) {
			s := deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}, Pods: map[types.UID][]*corev1.Pod{old.UID: {tt.pod}}, Now: testutil.Epoch()}
			p, err := deploysync.Sync(s, deploysync.WithKubernetesVersion(tt.version))
			if err != nil {
				t.Fatal(err)
			}
			if p.Branch != deploysync.Recreate {
				t.Fatalf("branch %v, want Recreate", p.Branch)
			}
			if waits := createdName(p) == ""; waits != tt.waits {
				t.Errorf("waits for old pods: %v, want %v (%s)\n%v", waits, tt.waits, tt.reason, p)
			}
		})
	}
}
