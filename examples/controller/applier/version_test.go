package applier

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
)

func TestServerVersion(t *testing.T) {
	for _, tt := range []struct {
		git, errWant, reason string
	}{
		{git: "v1.34.4-eks-1a2b3c", reason: "a managed cluster's version string is read as its minor"},
		{git: "v1.37.2", reason: "the default minor"},
		{git: "v1.32.9", errWant: "1.33", reason: "an unsupported minor stops the controller, naming the supported ones"},
	} {
		c := fake.NewClientset()
		c.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: tt.git}
		opt, got, err := ServerVersion(c.Discovery())
		if got != tt.git {
			t.Errorf("%s: read %q, want %q", tt.git, got, tt.git)
		}
		if tt.errWant == "" {
			if err != nil || opt == nil {
				t.Errorf("%s: %v (%s)", tt.git, err, tt.reason)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.errWant) {
			t.Errorf("%s: error %v, want one naming %s (%s)", tt.git, err, tt.errWant, tt.reason)
		}
	}
}
