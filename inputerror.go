package deploysync

import "github.com/deploysync/deploysync/deployutil"

// InputError is the error [Sync], [Apply] and [ResolveAlreadyExists]
// return for input an apps/v1 apiserver would refuse, or that cannot be a
// snapshot of one: it names the object, the field, the value and the
// apiserver rule. It is [deployutil.InputError] under a second name, so a
// caller of Sync handles it without importing deployutil; match it with
// [errors.As] on a *InputError.
type InputError = deployutil.InputError

// ErrInvalidInput is matched, with [errors.Is], by every [*InputError].
// It is the same value as [deployutil.ErrInvalidInput], so either name
// matches.
var ErrInvalidInput = deployutil.ErrInvalidInput
