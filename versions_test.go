package deploysync_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
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
	d := fxDeployment("web", 1)
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			p, err := deploysync.Sync(deploysync.State{Deployment: d, Now: fxTestTime}, deploysync.WithKubernetesVersion(tt.version))
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
	if _, err := deploysync.Sync(deploysync.State{Deployment: d, Now: fxTestTime},
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
	d := fxDeployment("web", 2)
	rs := fxReplicaSet(d, "web-1", 2)
	rs.Spec.Template.Labels = map[string]string{"foo": "bar"}
	d.Generation = 3 // observedGeneration 0 is behind: a status write is due
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := deploysync.Sync(deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: fxTestTime}, tt.opts...)
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
