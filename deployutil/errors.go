package deployutil

import (
	"errors"
	"fmt"
)

// ErrInvalidInput is matched (with [errors.Is]) by every [*InputError]:
// input an apps/v1 apiserver would not have accepted (or would have
// defaulted), or that is not a snapshot of one. Every caller of Sync tells
// this error (fix the input, do not retry) from the others; the root
// package's deploysync.ErrInvalidInput is the same value.
var ErrInvalidInput = errors.New("invalid input")

// ErrorKind says what is wrong with a field ([InputError.Kind]), for callers
// that report bad input field by field.
type ErrorKind string

// The kinds of [InputError]. They complete the sentence "the field is ...".
const (
	// Required: the field is missing (a nil pointer, an empty name).
	Required ErrorKind = "required"
	// Invalid: the field has a value that is not allowed.
	Invalid ErrorKind = "invalid"
	// NotSupported: the field has a value outside a closed set.
	NotSupported ErrorKind = "not supported"
	// Duplicate: the field repeats a value that must be unique.
	Duplicate ErrorKind = "duplicate"
)

// InputError names the object, the field and the value that make an input
// unusable, says why, and names the apiserver rule it mirrors. It is the
// error of every entry point given bad input (deploysync.InputError is an
// alias of it); a user reads its fields to point at what to fix.
type InputError struct {
	// Object is the kind and namespace/name of the object, for example
	// "Deployment default/web" or "ReplicaSet default/web-6bcddfc897"; for
	// an entry without a name, its position ("ReplicaSet #3").
	Object string
	// Field is the JSON path of the field, e.g. "spec.strategy.rollingUpdate.maxSurge".
	Field string
	// Kind classifies the problem.
	Kind ErrorKind
	// Value is the offending value, nil for a missing field.
	Value any
	// Detail says what is wrong in words.
	Detail string
	// Rule names the rule the error mirrors: the apps/v1 validation or
	// defaulting function that refuses or fills the field, or why the state
	// cannot be a snapshot of an apiserver.
	Rule string
}

// Error names the object, the field and the value, what is wrong, and the
// rule.
func (e *InputError) Error() string {
	var v, r string
	if e.Kind != Required {
		v = fmt.Sprintf(" %v", printable(e.Value))
	}
	if e.Rule != "" {
		r = " [" + e.Rule + "]"
	}
	return fmt.Sprintf("%s: %s: %s%s: %s%s", e.Object, e.Field, e.Kind, v, e.Detail, r)
}

// Is reports whether target is [ErrInvalidInput].
func (e *InputError) Is(target error) bool {
	return target == ErrInvalidInput
}

func printable(v any) any {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case *int32:
		if x == nil {
			return "<nil>"
		}
		return *x
	}
	return v
}
