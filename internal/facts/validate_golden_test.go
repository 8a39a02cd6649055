package facts_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/badinput"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// selectorAndNameInputs are refused states beyond the bad-input catalogue,
// at the places where the validation answers with its own checks and
// takes the message from apimachinery.
var selectorAndNameInputs = []struct {
	name   string
	mutate func(*deploysync.State)
	reason string
}{
	{"name with uppercase", func(s *deploysync.State) { s.Deployment.Name = "Web" }, "a DNS subdomain is lowercase"},
	{"name with an empty label", func(s *deploysync.State) { s.Deployment.Name = "web..1" }, "two dots in a row"},
	{"name ending in a dash", func(s *deploysync.State) { s.Deployment.Name = "web-" }, "a label ends alphanumeric"},
	{"name of 254", func(s *deploysync.State) { s.Deployment.Name = strings.Repeat("w", 254) }, "too long: the first of apimachinery's messages is the one shown"},
	{"selector key with two slashes", func(s *deploysync.State) {
		s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"a/b/app": "web"}}
	}, "a key has at most one '/'"},
	{"selector key with an uppercase prefix", func(s *deploysync.State) {
		s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"Example.com/app": "web"}}
	}, "the prefix is a DNS subdomain"},
	{"selector key name of 64", func(s *deploysync.State) {
		s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{strings.Repeat("k", 64): "web"}}
	}, "a key's name has at most 63 characters"},
	{"selector value with a space", func(s *deploysync.State) {
		s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "w b"}}
	}, "values are label values"},
	{"In without values", func(s *deploysync.State) {
		s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn}}}
	}, "In needs values"},
	{"Exists with a value", func(s *deploysync.State) {
		s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists, Values: []string{"web"}}}}
	}, "Exists takes none"},
	{"bad key and bad value in an expression", func(s *deploysync.State) {
		s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "-app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"ok", "-bad"}}}}
	}, "every problem of a requirement is in the message"},
}

// TestValidateErrorsGolden pins the whole text of every error Validate
// gives on the refused rows of the bad-input catalogue and on
// selectorAndNameInputs. The golden was written by the validation that
// built a labels.Selector and ran apimachinery's regexps, so the checks
// written by hand give byte-identical errors.
func TestValidateErrorsGolden(t *testing.T) {
	var b strings.Builder
	check := func(name, reason string, mutate func(*deploysync.State)) {
		s := badinput.ValidState()
		mutate(&s)
		err := facts.Validate(s.Deployment, s.ReplicaSets, s.Pods)
		if err == nil {
			t.Errorf("%s: accepted (%s)", name, reason)
			return
		}
		fmt.Fprintf(&b, "%s\n\t%s\n", name, err)
	}
	for _, in := range badinput.All() {
		if in.Refused() {
			check(in.Name, in.Reason, in.Mutate)
		}
	}
	for _, in := range selectorAndNameInputs {
		check(in.name, in.reason, in.mutate)
	}
	testutil.Golden(t, filepath.Join("testdata", "validate-errors.golden"), b.String())
}
