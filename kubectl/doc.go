// Package kubectl holds kubectl's behaviour around Deployments, byte for
// byte that of k8s.io/kubectl v0.37.2, as pure functions of objects read
// from the apiserver: what `kubectl rollout status` says ([RolloutStatus]),
// the revision list and one revision's template that `kubectl rollout
// history` prints ([History], [HistoryText], [DescribeTemplate]), and the
// patch `kubectl rollout undo` sends ([Undo], an [UndoPatch]). None of it is
// part of a sync: the controller's own handling of revisions is in the
// revision package.
//
// kubectl decides a rollout's status from the Deployment's status alone: it
// never looks at ReplicaSets or pods. [RolloutStatus] reproduces its message
// and verdict, including its two errors: a progress deadline that was
// exceeded, and a Deployment whose revision is not the one the caller waits
// for. A watch loop prints each message and stops at the first done verdict
// or error, as kubectl does. kubectl calls a rollout done while pods of old
// ReplicaSets may still be shutting down; [RolloutStatusWithTerminating]
// adds one rule for callers that need "no old pods left": it also waits
// until the Deployment reports no terminating replicas.
package kubectl
