// Package kversion is the Kubernetes minor the library decides as: its
// parsing and the list of the minors supported.
package kversion

import (
	"fmt"
	"strconv"
	"strings"
)

// Minor is a Kubernetes 1.x minor: Minor(34) is Kubernetes 1.34. Its zero
// value is no minor; use [Default] for the library's default.
type Minor int

// The supported minors, oldest first.
const (
	V1_33 Minor = 33
	V1_34 Minor = 34
	V1_35 Minor = 35
	V1_36 Minor = 36
	V1_37 Minor = 37

	// Oldest and Newest bound the supported minors.
	Oldest = V1_33
	Newest = V1_37

	// Default is the minor decided as when the caller names none.
	Default = V1_37
)

// Supported lists every supported minor, oldest first.
func Supported() []Minor {
	out := make([]Minor, 0, Newest-Oldest+1)
	for m := Oldest; m <= Newest; m++ {
		out = append(out, m)
	}
	return out
}

// SupportedStrings lists every supported minor as "1.33", ..., oldest first.
func SupportedStrings() []string {
	ms := Supported()
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// String returns the minor as "1.34".
func (m Minor) String() string { return "1." + strconv.Itoa(int(m)) }

// AtLeast reports whether m is n or newer.
func (m Minor) AtLeast(n Minor) bool { return m >= n }

// TerminatingReplicasByDefault reports whether the
// DeploymentReplicaSetTerminatingReplicas feature gate is on by default at m
// (beta and on from 1.35), which both controllers' status code reads.
func (m Minor) TerminatingReplicasByDefault() bool { return m >= V1_35 }

// Supported reports whether m is one of [Supported].
func (m Minor) Supported() bool { return m >= Oldest && m <= Newest }

// UnsupportedError is the error for a version string that does not parse or
// names a minor the library does not decide as.
type UnsupportedError struct {
	// Version is the string as given.
	Version string
	// Reason says what is wrong with it.
	Reason string
	// Supported lists the supported minors ("1.33", ...).
	Supported []string
}

// Error names the version, what is wrong with it and the supported minors.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("deploysync: Kubernetes version %q: %s; supported minors: %s",
		e.Version, e.Reason, strings.Join(e.Supported, ", "))
}

// Parse reads a Kubernetes version: "1.34", "v1.34", "v1.34.4", or a
// server's gitVersion such as "v1.34.4-eks-1a2b3c" or "v1.34.4+k3s1". The
// patch and anything after it are ignored: within a minor the Deployment
// controller's code is the same. Surrounding spaces are ignored. A string
// that is not of that shape, a major other than 1, or a minor outside
// [Supported] is an [*UnsupportedError].
func Parse(s string) (Minor, error) {
	fail := func(reason string) (Minor, error) {
		return 0, &UnsupportedError{Version: s, Reason: reason, Supported: SupportedStrings()}
	}
	v := strings.TrimSpace(s)
	v = strings.TrimPrefix(v, "v")
	major, rest, ok := strings.Cut(v, ".")
	if !ok || !digits(major) {
		return fail("not a version of the form 1.MINOR[.PATCH[-SUFFIX]]")
	}
	minor := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = rest[:i]
		switch rest[i] {
		case '.', '-', '+':
		default:
			return fail("not a version of the form 1.MINOR[.PATCH[-SUFFIX]]")
		}
		if rest[i] == '.' && !digits(firstRun(rest[i+1:])) {
			return fail("the patch is not a number")
		}
	}
	if !digits(minor) {
		return fail("not a version of the form 1.MINOR[.PATCH[-SUFFIX]]")
	}
	if major != "1" {
		return fail("only Kubernetes 1.x is known")
	}
	n, err := strconv.Atoi(minor)
	if err != nil || !Minor(n).Supported() {
		return fail("minor " + minor + " is not supported")
	}
	return Minor(n), nil
}

// firstRun returns the leading run of s before a '.', '-' or '+'.
func firstRun(s string) string {
	if i := strings.IndexAny(s, ".-+"); i >= 0 {
		return s[:i]
	}
	return s
}

func digits(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
