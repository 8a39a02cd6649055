// Package diagnose says what holds a Deployment's rollout back, most
// important first, and what would let it go on.
//
// [Rollout] takes the state and options deploysync.Sync takes and returns
// its [Cause]s: none for a finished rollout (the library's one definition
// of rolled out, which verdict.Strict also reads), else each thing that
// keeps it from finishing. A cause is data, as an action.Reason is: its
// [Kind] and named values (numbers, or texts such as a ReplicaSet's name);
// its message is rendered from the kind's sentence only when read, and
// MarshalJSON gives tools the kind, the values, that text and the advice.
package diagnose
