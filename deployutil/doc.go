// Package deployutil holds the facts about a Deployment and its ReplicaSets
// that every decision of the Deployment controller rests on: the fenceposts
// (maxSurge and maxUnavailable), replica counts, the annotations the
// controller keeps on ReplicaSets, conditions, the orderings of ReplicaSets,
// which ReplicaSet is the new one, the pod-template-hash and the ReplicaSet
// name, ControllerRef claiming, input validation and API defaulting.
//
// Everything here is a pure function of its arguments and matches
// kube-controller-manager v1.37.2 unless its documentation says otherwise.
// Functions never modify the objects they are given; those that produce a
// changed object return a new one.
//
// Most functions assume input that passed [Validate] (or an apiserver): a
// non-nil spec.replicas, a known strategy, resolvable fenceposts.
package deployutil
