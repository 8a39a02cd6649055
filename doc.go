// Package deploysync is the Kubernetes Deployment controller's sync as a
// pure function: [Sync] takes a snapshot of a Deployment, its namespace's
// ReplicaSets and (for Recreate) their pods, plus the time, and returns the
// [Plan] that one sync of kube-controller-manager v1.37.2 would carry out —
// the ReplicaSet creates, scales, annotation updates, deletes, adoptions and
// releases, the Deployment status update, the events, and when to look
// again. [Apply] performs a plan on a [State] in memory; package execute
// performs it against an apiserver through a client the caller implements
// with its own (package execute/executetest has an in-memory one with
// faults).
//
// Nothing here reads a clock, logs, talks to a cluster or modifies its
// arguments. A controller lists its objects, calls Sync, performs the plan
// with execute.Plan and requeues as its result says; a tool or a test
// calls Sync and Apply in a loop.
//
// Package diagnose reads the same snapshot and says what holds a rollout
// back, each cause with its numbers and what would unblock it.
//
// # What a plan means
//
// Upstream interleaves decisions with API calls and may write one object
// several times in a sync, each time from its cache (so a real apiserver
// rejects the later writes with a conflict and the next sync retries). A
// plan holds the intent instead: each object is written once per kind of
// write, carrying every change the sync made to it. A ReplicaSet the sync
// creates is created where upstream creates it, its later changes folded
// into the create; any other write sits where its last write of that kind
// happened (a ReplicaSet's last update, the Deployment's last update, its
// last status write). Events, deletions, adoptions and releases stay where
// they happened. Every action says why it follows from the state.
//
// # Fidelity
//
// The conformance module runs upstream's own syncDeployment beside Sync on
// scenario, random and trajectory states and compares every field, event,
// error and requeue. By default there is no deviation, upstream's int32
// wrap-around included; corrections of known upstream bugs are opt-in
// ([WithFixes]), and so are rollout limits for controllers that stop a
// rollout part-way ([WithLimits]). Only what an apps/v1 apiserver would
// refuse, or what cannot be a snapshot of one, is an error ([InputError]).
package deploysync
