// Package execute performs a [deploysync.Plan] against an apiserver.
// [Plan] sends the plan's writes, in order, through a [Client] the caller
// implements in a few lines over its own client (client-go,
// controller-runtime, ...), and its [Result] says what was done, what
// failed, and when to sync again. Package executetest, beside it, has an
// in-memory Client with injectable faults for tests.
//
// A controller lists its objects, calls [deploysync.Sync], performs the
// plan with Plan and requeues as the Result says. Performing a plan takes
// the rules below besides the writes themselves; Plan keeps them, so that a
// controller built on it needs none of its own.
//
// # One write per object, resourceVersions carried
//
// A plan writes each object at most once per kind of write. Every update
// sends the resourceVersion of the state it was planned from, so an update
// planned from a stale cache is refused with 409 Conflict as upstream's is
// (deletions, adoptions and releases carry the ReplicaSet's UID instead).
// When the plan writes one object a second time (the Deployment's update
// and then its status), the second write carries the resourceVersion the
// server returned for the first: one sync never conflicts with itself.
//
// # The adoption precondition
//
// Before the plan's first adoption, Plan reads the Deployment from the
// server, not from a cache, once per plan, as upstream rechecks it before
// it claims an orphan: if it has another UID (deleted and recreated under
// the same name), is being deleted, or cannot be read, the adoption fails
// with [ErrAdoptionRefused] and nothing is adopted.
//
// # AlreadyExists
//
// A create refused because the name is taken is answered by
// [ResolveAlreadyExists] with the ReplicaSet that holds the name, read from
// the client's cache when the client is a [ReplicaSetCache] (upstream reads
// its lister), else from the state. The Deployment's own new ReplicaSet
// stops the plan with [ErrStalePlan] (the state missed it; the next sync
// carries on with it); any other ReplicaSet is a hash collision: Plan
// raises status.collisionCount and returns a
// [*deploysync.HashCollisionError], and the next sync computes another
// name.
//
// # Stop at the first failure
//
// No write is retried. The first failure stops the plan: Result.Failed is
// the action that failed, Result.NotDone the actions not attempted, the
// error an [*ActionError] naming the action by its index, and
// Result.Requeue asks for a rate-limited requeue. The next sync, from a
// fresh state, decides again, as upstream's workqueue retries a failed
// sync.
//
// # Outcome unknown
//
// An error that is no refusal by the server (a timeout, a lost connection,
// a 5xx) may come after the write took effect. Plan reports it with
// ActionError.Unknown and Result.Unknown set and does not retry it, so no
// write can happen twice: count the action neither done nor not done, and
// let the next sync's state say what happened.
package execute
