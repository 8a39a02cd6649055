// Package facts holds the controller's bookkeeping about a Deployment and its
// ReplicaSets that the library's packages share and its users do not need:
// replica counts, the replicas annotations, orderings of ReplicaSets,
// conditions, the progress predicates, ControllerRef claiming and its
// patches, scaling one ReplicaSet, and the validation of a state against the
// apiserver's rules. What users need of it is in deployutil.
//
// Everything here is a pure function of its arguments and matches
// kube-controller-manager v1.37.2 unless its documentation says otherwise.
// Functions never modify the objects they are given; those that produce a
// changed object return a new one. Most functions assume input that passed
// [Validate] (or an apiserver): a non-nil spec.replicas, a known strategy,
// resolvable fenceposts.
package facts
