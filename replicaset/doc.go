// Package replicaset is the ReplicaSet controller of kube-controller-manager
// (v1.37.2, k8s.io/kubernetes/pkg/controller/replicaset) as pure decisions:
// for one ReplicaSet, the pods of its namespace and the time, [Sync] returns
// the [Plan] of what one syncReplicaSet does. It is the world the Deployment
// decisions of the root package act on: which pods a scale-down removes
// decides how much stays available during a rollout.
//
// One sync, in upstream's order:
//
//  1. The pods it reads: those whose controller reference names the
//     ReplicaSet (kind ReplicaSet, its name and UID), then the orphans of its
//     namespace, each group in the order given (upstream lists them from its
//     informer's index). Of those, the active ones (not Succeeded, not
//     Failed, not being deleted) are claimed: an orphan whose labels match
//     the selector is adopted ([PodPatch]), an owned pod whose labels no
//     longer match is released; neither while the ReplicaSet is being
//     deleted.
//  2. Unless the ReplicaSet is being deleted or its expectations are not yet
//     met ([State.ExpectationsPending]), it compares the claimed active pods
//     with spec.replicas: too few, and it creates the difference, at most
//     [BurstReplicas], in slow-start batches of 1, 2, 4, … ([Create]); too
//     many, and it deletes the difference, at most [BurstReplicas], taking
//     the first pods of upstream's deletion order ([Delete], see [Rank]).
//  3. It writes the status (replicas, fullyLabeledReplicas, readyReplicas,
//     availableReplicas at [State.Now] with minReadySeconds,
//     terminatingReplicas when the gate is on, the ReplicaFailure
//     condition) unless nothing in it changed.
//  4. It looks again after minReadySeconds, or sooner when a ready pod
//     becomes available sooner, while some ready pods are not available.
//
// Nothing here talks to a cluster, reads a clock or changes its arguments.
// Every decision carries an [action.Reason]: its rule (one of package
// action's ReplicaSet rules, [action.RuleCreatePods] to
// [action.RuleWritesFail]) and the numbers it used, rendered as the rule's
// sentence and checked by [action.Reason.Check] as the Deployment's are.
package replicaset
