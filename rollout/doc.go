// Package rollout answers "is the rollout of this Deployment done?" exactly
// as `kubectl rollout status` does, as a pure function of the Deployment
// read from the apiserver.
//
// kubectl decides from the Deployment's status alone: it never looks at
// ReplicaSets or pods. [Status] reproduces its message and verdict byte for
// byte (k8s.io/kubectl v0.37.2, the Deployment status viewer), including
// its two errors: a progress deadline that was exceeded, and a Deployment
// whose revision is not the one the caller waits for. A watch loop prints
// each message and stops at the first done verdict or error, as kubectl
// does.
//
// kubectl calls a rollout done while pods of old ReplicaSets may still be
// shutting down. [StatusWithTerminating] adds one rule for callers that need
// "no old pods left": it also waits until the Deployment reports no
// terminating replicas.
package rollout
