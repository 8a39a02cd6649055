// Package deployutil holds the few facts about a Deployment and its
// ReplicaSets that code around the library needs as well: the keys of the
// annotations and the label the controller keeps, the reasons of the
// conditions and events it writes, the pod-template-hash and
// the ReplicaSet name it produces, which ReplicaSet is the new one, the
// resolved fenceposts (maxSurge and maxUnavailable), the revision of an
// object, the apps/v1 defaulting, the error every entry point returns for
// input an apiserver would refuse, and [Resize], the decision the scaling,
// rolling and recreate packages return.
//
// Each export says in its documentation why a user needs it; the rest of the
// controller's bookkeeping (counts, orderings, claiming, conditions,
// validation) is internal to the module and reached through
// [github.com/deploysync/deploysync.Sync].
//
// Everything here is a pure function of its arguments and matches
// kube-controller-manager v1.37.2 unless its documentation says otherwise.
// Functions never modify the objects they are given; those that produce a
// changed object return a new one.
package deployutil
