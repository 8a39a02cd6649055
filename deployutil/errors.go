package deployutil

import (
	"errors"
	"fmt"
)

// ErrInvalidInput is matched (with [errors.Is]) by every [*InputError]:
// input an apiserver would not have accepted, or that the controller cannot
// decide on.
var ErrInvalidInput = errors.New("invalid input")

// ErrOverflow is matched by the [*InputError]s of input whose arithmetic
// would leave int32 (or int64 for revisions). Upstream wraps around silently
// in these cases; deploysync refuses them.
var ErrOverflow = errors.New("arithmetic overflow")

// ErrorKind says what is wrong with a field.
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
	// Overflow: the field makes the controller's arithmetic overflow.
	Overflow ErrorKind = "overflow"
)

// InputError names the object, the field and the value that make an input
// unusable, and says why.
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
}

// Error names the object, the field and the value, and what is wrong.
func (e *InputError) Error() string {
	var v string
	if e.Kind != Required {
		v = fmt.Sprintf(" %v", printable(e.Value))
	}
	return fmt.Sprintf("%s: %s: %s%s: %s", e.Object, e.Field, e.Kind, v, e.Detail)
}

// Is reports whether target is [ErrInvalidInput], or [ErrOverflow] for an
// overflow.
func (e *InputError) Is(target error) bool {
	return target == ErrInvalidInput || (target == ErrOverflow && e.Kind == Overflow)
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
