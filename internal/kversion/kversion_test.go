package kversion_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/deploysync/deploysync/internal/kversion"

	// The module's -update flag: go test ./... -update passes it to every
	// test binary, and this package has no golden to rewrite.
	_ "github.com/deploysync/deploysync/internal/testing/testutil"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		want   kversion.Minor
		ok     bool
		reason string
	}{
		{"1.34", kversion.V1_34, true, "the bare minor"},
		{"v1.34", kversion.V1_34, true, "a leading v is allowed"},
		{"v1.34.4", kversion.V1_34, true, "the patch is ignored"},
		{"1.33.0", kversion.V1_33, true, "patch 0"},
		{"v1.34.4-eks-1a2b3c", kversion.V1_34, true, "a managed offering's gitVersion: suffix ignored"},
		{"v1.36.3+k3s1", kversion.V1_36, true, "build metadata ignored"},
		{"v1.35.0-rc.1", kversion.V1_35, true, "a pre-release of the minor decides as the minor"},
		{"v1.37.2-gke.1000", kversion.V1_37, true, "GKE's form"},
		{" 1.37 ", kversion.V1_37, true, "spaces around are ignored"},
		{"1.35-eks", kversion.V1_35, true, "a suffix right after the minor"},
		{"1.32", 0, false, "older than the oldest supported minor"},
		{"v1.38.0", 0, false, "newer than the newest supported minor"},
		{"2.34", 0, false, "no Kubernetes 2"},
		{"", 0, false, "empty"},
		{"1", 0, false, "no minor"},
		{"1.", 0, false, "empty minor"},
		{"1.x", 0, false, "minor not a number"},
		{"1.34.x", 0, false, "patch not a number"},
		{"1.34x", 0, false, "garbage after the minor"},
		{"v1.034", kversion.V1_34, true, "leading zeros read as the number"},
		{"1.99999999999", 0, false, "too many digits is no minor"},
		{"vv1.34", 0, false, "one leading v only"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := kversion.Parse(tt.in)
			if tt.ok {
				if err != nil || got != tt.want {
					t.Fatalf("Parse(%q) = %v, %v; want %v (%s)", tt.in, got, err, tt.want, tt.reason)
				}
				return
			}
			var ue *kversion.UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("Parse(%q) = %v, %v; want an *UnsupportedError (%s)", tt.in, got, err, tt.reason)
			}
			if ue.Version != tt.in || !slices.Equal(ue.Supported, kversion.SupportedStrings()) {
				t.Errorf("error %+v: want the input and the supported minors", ue)
			}
			if !strings.Contains(err.Error(), "1.33, 1.34, 1.35, 1.36, 1.37") {
				t.Errorf("error %q does not list the supported minors", err)
			}
		})
	}
}

func TestSupported(t *testing.T) {
	want := []string{"1.33", "1.34", "1.35", "1.36", "1.37"}
	if got := kversion.SupportedStrings(); !slices.Equal(got, want) {
		t.Errorf("SupportedStrings() = %v, want %v (issue 14's range)", got, want)
	}
	if kversion.Default != kversion.V1_37 || !kversion.Default.Supported() {
		t.Errorf("Default = %v, want 1.37, the controller the library follows", kversion.Default)
	}
	if kversion.Minor(0).Supported() {
		t.Error("the zero Minor is no supported minor")
	}
}
