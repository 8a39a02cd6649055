package simulate

import (
	"fmt"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/internal/kversion"
)

// Option changes a knob of the simulated world or of the run.
type Option func(*config)

// config holds every knob; defaults returns the values documented on the
// With* options.
type config struct {
	tick           time.Duration
	startDelay     time.Duration
	readyDelay     time.Duration
	terminateDelay time.Duration
	readyStagger   time.Duration
	failureRate    float64
	failingImages  map[string]bool
	refusedImages  map[string]imageRefusal
	refusedRS      *rsRefusal // from WithRefusedReplicaSets
	podQuota       *podQuota  // from WithPodQuota
	rsSync         syncTime   // from WithReplicaSetSyncTime
	seed           uint64
	cacheOrder     *uint64 // from WithCacheOrder
	burst          int32
	nodes          int
	nodesSet       bool // WithNodes was given
	maxSteps       int
	maxPods        int64
	everyTick      bool
	changes        []Change
	syncOpts       []deploysync.Option
	syncFunc       func(deploysync.State) (deploysync.Plan, error)
	versionErr     error          // from WithKubernetesVersion
	minor          kversion.Minor // from WithKubernetesVersion

	// scaleDownSeen, for tests (export_test.go), sees every scale-down:
	// the pods ranked, those deleted, the related pods per node and the
	// ranking's clock.
	scaleDownSeen func(pods, deleted []*corev1.Pod, onNode map[string]int, at time.Time)
}

func defaults() config {
	return config{
		tick:           10 * time.Millisecond,
		startDelay:     2 * time.Second,
		readyDelay:     3 * time.Second,
		terminateDelay: 5 * time.Second,
		burst:          500,
		rsSync:         syncTime{create: 4 * time.Millisecond, status: 4 * time.Millisecond},
		nodes:          1,
		maxSteps:       100_000,
		maxPods:        1_000_000,
		minor:          kversion.Default,
	}
}

// WithTick sets the simulated time grid (default 10ms). Every step time is
// the start time plus a whole number of ticks, so a requeue or a pod's
// transition lands on the first tick at or after it. The default is near a
// real control plane's hop from one controller's write to the next
// controller's sync (a median of 6 ms measured on the e2e cluster); at 1s
// steps that a real cluster takes apart are merged, and only 1 to 4 of the
// 13 named scenarios matched a real cluster's events instead of 12.
// WithTick(time.Second) gives the coarser grid of earlier versions.
func WithTick(d time.Duration) Option { return func(c *config) { c.tick = d } }

// WithPodStartDelay sets how long a new pod stays Pending before it runs
// (scheduling, image pull, container start; default 2s).
func WithPodStartDelay(d time.Duration) Option { return func(c *config) { c.startDelay = d } }

// WithReadinessDelay sets how long a running pod takes to pass its readiness
// probe (default 3s). A pod becomes available minReadySeconds (of its
// ReplicaSet) after it became ready.
func WithReadinessDelay(d time.Duration) Option { return func(c *config) { c.readyDelay = d } }

// WithTerminationDelay sets how long a deleted pod lingers as terminating
// before it is gone (the part of its grace period the containers take to
// stop; default 5s).
func WithTerminationDelay(d time.Duration) Option { return func(c *config) { c.terminateDelay = d } }

// WithReadyStagger makes the pods become ready one at a time, spaced by
// at least d (default 0: every pod becomes ready at its due time, its
// creation plus the start and readiness delays, so the pods of one batch
// become ready together). With d > 0 the ready times are slots of a grid
// of d from the start (0, d, 2d, ...), each held by at most one pod: a pod
// becomes ready at the first free slot at or after its due time, the pods
// in the order they were created. It models a kubelet, or a test's pod
// driver, that reports one pod's readiness at a time; with d well above
// the controllers' reaction time (a few to tens of milliseconds) a real
// control plane reacts to each ready pod separately, as the simulator does
// at a tick below d. Failing pods hold no slot, and a pod deleted before
// its slot gives it back: the pods queued behind move up (each still no
// earlier than its due time), so which pods of a batch a scale-down takes
// does not change when the others become ready.
func WithReadyStagger(d time.Duration) Option { return func(c *config) { c.readyStagger = d } }

// WithFailureRate sets the probability (0 to 1) that a pod created during the
// run never becomes ready: it runs but fails its readiness probe forever, as a
// crash-looping container does under restartPolicy Always. The draw uses the
// seed (see [WithSeed]); default 0.
func WithFailureRate(p float64) Option { return func(c *config) { c.failureRate = p } }

// WithFailingImage makes every pod created during the run from a template
// that has a container (or init container) with this image never become
// ready, whatever the failure rate: a broken release. It may be given several
// times.
func WithFailingImage(image string) Option {
	return func(c *config) {
		if c.failingImages == nil {
			c.failingImages = map[string]bool{}
		}
		c.failingImages[image] = true
	}
}

// WithRefusedImage makes the apiserver refuse every pod created during the
// run from a template with a container (or init container) of this image,
// with message as its error, as an admission policy, Pod Security or a
// webhook that denies the pods does; message is the error's text as the
// apiserver words it (the ReplicaSet's ReplicaFailure condition carries
// it). It may be given several times.
//
// What the world then does is upstream's ReplicaSet controller's: a sync
// of a ReplicaSet short of pods tries a first slow-start batch of one pod,
// whose refusal ends the sync (the other creates are skipped); the status
// write sets ReplicaFailure (reason FailedCreate, the message) unless the
// ReplicaSet has one already, and the sync is retried with backoff, each
// retry refused again, so no pod is ever made. The condition is removed
// by the first sync with nothing to create (the ReplicaSet scaled down to
// the pods it has). The Deployment controller copies it into the
// Deployment's ReplicaFailure condition, and counts the ReplicaSet's
// missing pods neither as pods nor as available, while maxSurge and
// maxUnavailable count ReplicaSet sizes: a rolling update goes on as if
// the pods existed (of 10 replicas at 25%, the old ReplicaSet to 8 and the
// new one to 5) and stalls there, 2 pods fewer available. The step where
// a ReplicaSet is first refused lists it (see [Step.Refused]).
func WithRefusedImage(image, message string) Option {
	return WithRefusedImageUntil(image, message, 0)
}

// WithRefusedImageUntil is [WithRefusedImage] until until (measured from
// the start; 0: to the end of the run), when the refusal is lifted (a
// policy's binding removed, a webhook fixed): no event of any object, so
// the ReplicaSet controller creates the pods at its first retry at or
// after until. The world keeps its workqueue for each refused ReplicaSet,
// as for the Deployment (see [WithRefusedReplicaSets]): the first sync of
// the ReplicaSet fails, its ReplicaFailure write is an event and brings
// another sync, and each failed sync adds the ReplicaSet rate-limited
// (5ms, doubled by each failure in a row, at most 1000s, waited from the
// sync's end; the ReplicaSet controller never drops a key), the earliest
// pending add kept; a write of the ReplicaSet by the Deployment
// controller (a scale) is an event and a failed sync too, and its status
// write (observedGeneration) one more; so are the changes of its own
// pods (running; ready or gone, with a status write). Syncs take time
// ([WithReplicaSetSyncTime]), and what comes during one waits for its
// end. The step whose world move makes the pods lists the retry (see
// [Step.Admitted]). In the scenario "refused pods then allowed" (10
// replicas, the new ReplicaSet made at 0 and scaled to 5 at 10ms, the
// refusal ended at 7s) the retry at 10.252s, after 11 failed syncs,
// creates the pods; kube-controller-manager's ReplicaSet controller was
// refused 11 times too, its first gaps within 5 ms of these, and created
// them at +10.194s to +10.273s (e2e/README.md). A refusal that ends
// within the first syncs shows no ReplicaFailure at all when both fall
// within one tick (3ms: the sync the condition's write brings, at 8ms,
// makes the pods; the world's step at 10ms shows neither).
func WithRefusedImageUntil(image, message string, until time.Duration) Option {
	return func(c *config) {
		if c.refusedImages == nil {
			c.refusedImages = map[string]imageRefusal{}
		}
		c.refusedImages[image] = imageRefusal{message: message, until: until}
	}
}

// imageRefusal is the apiserver's error for an image's pods and when the
// refusal ends (0: never).
type imageRefusal struct {
	message string
	until   time.Duration
}

// WithRefusedReplicaSets makes the apiserver refuse the Deployment
// controller's ReplicaSet creates from the start of the run until until
// (measured from the start; 0: to the end), with message as its error, as
// a ResourceQuota on count/replicasets.apps that is full, or an admission
// policy on ReplicaSets, does until someone raises or lifts it.
//
// What the controller then does is upstream's (see
// [github.com/deploysync/deploysync/execute.ResolveCreateFailed]): the
// sync that would create the new ReplicaSet sets Progressing False with
// reason ReplicaSetCreateError, emits a Warning event and fails, and the
// rest of its plan is not done. The workqueue retries the Deployment with
// backoff (5ms, doubled by each failure in a row); only the first failure's
// status write changes the Deployment, so later failures bring no event
// and each retry waits its full backoff. After 15 retries the controller
// drops the key: it syncs the Deployment again only when the Deployment
// changes. Lifting the refusal is no Deployment event either: the rollout
// resumes at the first retry after until, or, past the 15 retries, at the
// next change. Each failed step says when it is retried (see
// [Step.RetryAfter], [Step.Dropped]).
func WithRefusedReplicaSets(until time.Duration, message string) Option {
	return func(c *config) { c.refusedRS = &rsRefusal{until: until, message: message} }
}

// rsRefusal is WithRefusedReplicaSets' window and message.
type rsRefusal struct {
	until   time.Duration
	message string
}

// refusing reports whether a ReplicaSet create at now is refused.
func (r *rsRefusal) refusing(now time.Duration) bool {
	return r != nil && (r.until == 0 || now < r.until)
}

// WithPodQuota puts a ResourceQuota named name with a hard limit of pods
// on the Deployment's namespace, the world's pods being all it holds: the
// apiserver's ResourceQuota admission refuses a pod create that would take
// the pods it counts past the limit, with its error ("pods \"web-…-\" is
// forbidden: exceeded quota: NAME, requested: pods=1, used: pods=U,
// limited: pods=L"; the simulator names the pod by the ReplicaSet's
// generateName, the apiserver by the generated name). The quota counts
// terminating pods until they are gone (their grace period is longer than
// the termination delay), so a rolling update with maxUnavailable waits
// for each deleted pod's end before its replacement is admitted.
//
// The ReplicaSet controller's side is [WithRefusedImageUntil]'s workqueue:
// a sync short of room creates the pods the quota has room for (its
// slow-start batches stop at the first refusal, so the creates admitted
// are exactly the room), sets ReplicaFailure and fails, and each failed
// sync adds the ReplicaSet rate-limited; the room a deleted pod leaves is
// no event of the ReplicaSet, so its pods come at its first retry, or
// event, after the room appears. Its own pods' changes are events: a pod
// running (one sync), ready or gone (two: the status write is another).
// A sync that creates some pods but not all fails three times in a row:
// itself, the sync its pods' add events bring (they come while it runs),
// and the one that sync's status write brings; the backoff is not reset,
// so a partial room can make the rest wait long. In the scenario "pod
// quota with maxSurge 0" (4 replicas, a quota of 4, maxSurge 0 and
// maxUnavailable 1) each new pod comes at the 11th sync, 10 of them
// refused, as on kube-controller-manager (e2e/README.md, "A pod quota
// the rollout waits on"); a room within some 100 ms of a retry makes a
// real cluster's rollout take either path, which no model predicts.
// pods must not be negative (a quota of 0 admits none).
func WithPodQuota(name string, pods int64) Option {
	return func(c *config) { c.podQuota = &podQuota{name: name, pods: pods} }
}

// podQuota is WithPodQuota's ResourceQuota.
type podQuota struct {
	name string
	pods int64
}

// message is the ResourceQuota admission's error for a pod of rs refused
// with used pods counted.
func (q *podQuota) message(rs string, used int64) string {
	return fmt.Sprintf("pods %q is forbidden: exceeded quota: %s, requested: pods=1, used: pods=%d, limited: pods=%d", rs+"-", q.name, used, q.pods)
}

// WithReplicaSetSyncTime sets how long a sync of the ReplicaSet
// controller whose creates the apiserver refuses takes (see
// [WithRefusedImageUntil], [WithPodQuota]): create for the refused
// create's round trip, status more for a sync that writes the
// ReplicaSet's status (default 4ms and 4ms). What comes while a sync runs
// — an event, a retry falling due — waits for its end and is one sync
// for all of it (the workqueue's dirty set), and the retry a failed sync
// asks for waits its backoff from the sync's end. On the e2e cluster each
// rate-limited retry of a refused ReplicaSet came 1 to 16 ms (medians 2.9
// to 4 ms in three runs) after the limiter's wait from the one before,
// and a sync with a status write took 7 to 14 ms (e2e/README.md); with 0
// and 0 syncs are instantaneous, as the simulator had them until
// 2026-12-07, and the retry after a refusal lifted at 7s comes 90 to
// 190 ms before the cluster's.
func WithReplicaSetSyncTime(create, status time.Duration) Option {
	return func(c *config) { c.rsSync = syncTime{create: create, status: status} }
}

// WithSeed seeds the failure draws (default 0). The same state, options and
// seed give the same timeline.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithCacheOrder lists each ReplicaSet's pods to the deletion ranking in
// an order drawn from seed, a new uniform shuffle at every scale-down,
// instead of the order they were created in (the default). It stands for
// kube-controller-manager's ReplicaSet controller, which ranks the pods in
// the order its informer lists them, a Go map's, different from sync to
// sync. Upstream's comparison is not a total order (see
// [github.com/deploysync/deploysync/replicaset.DeletionOrder]), so where a
// deletion is marked [Deletion.Tied] or [Deletion.Unsettled] another seed
// can delete other pods, and the rest of the rollout then runs with other
// pods; a run in which no deletion is marked is the same for every seed.
// Running a scenario with a few seeds shows which of its figures (peak
// pods, lowest availability, duration) the cache's order can move.
// A uniform shuffle stands in for the map: Go's map iteration starts at
// a random place rather than drawing every order alike, so how often the
// seeds make a choice is not how often a cluster makes it, only whether
// it can. The draws are the seed's alone: they do not change the failure
// draws of [WithSeed].
func WithCacheOrder(seed uint64) Option {
	return func(c *config) { c.cacheOrder = &seed }
}

// WithBurstReplicas sets how many pods the ReplicaSet controller creates or
// deletes for one ReplicaSet in one step (upstream's burstReplicas, default
// 500).
func WithBurstReplicas(n int32) Option { return func(c *config) { c.burst = n } }

// WithNodes sets the number of nodes the pods run on, named node-1 to
// node-n. Without it the world has one node, node-1, or, when the input's
// pods (see [Run]) name nodes, exactly those. Each pod created is placed at
// once on the node with the fewest active pods of the Deployment, ties to
// the first node: a deterministic model of the default scheduler's
// spreading, not the scheduler (no resources, affinities or taints). Input
// pods stay on the nodes they name; with WithNodes, those join node-1 to
// node-n. The nodes matter to a
// scale-down, which deletes first the pods on the nodes with more of the
// Deployment's pods (see [github.com/deploysync/deploysync/replicaset.DeletionOrder]).
func WithNodes(n int) Option { return func(c *config) { c.nodes, c.nodesSet = n, true } }

// WithMaxPods sets how many pods the world may hold at once (default
// 1,000,000): a run that grows past it ends with an error instead of
// exhausting memory.
func WithMaxPods(n int64) Option { return func(c *config) { c.maxPods = n } }

// WithMaxSteps sets the step limit (default 100,000). A run that reaches it
// ends with [StepLimit]. The default leaves room for what the controller
// really does: a Recreate whose Progressing condition is past its deadline
// syncs 10 times a second while its old pods terminate (the workqueue's
// rate limiter), so an old pod's hour of termination grace is 36,085 steps,
// about 0.3 s of simulation for a small Deployment.
func WithMaxSteps(n int) Option { return func(c *config) { c.maxSteps = n } }

// WithEveryTick makes the run sync at every tick. By default a run skips the
// ticks at which nothing can change — no pod changes state, no scripted
// change is due, the last sync wrote nothing and asked for no requeue
// before then — as a real controller, which syncs on events and requeues,
// would; the timeline is the same either way except for the skipped idle
// steps. Not so for a sync that fails (a refused ReplicaSet create): every
// tick is then a failed sync, sooner than the workqueue's backoff would
// retry it, and the controller gives up on the Deployment after 15 ticks.
func WithEveryTick() Option { return func(c *config) { c.everyTick = true } }

// WithChanges scripts edits of the Deployment during the run (see [Change]).
func WithChanges(changes ...Change) Option {
	return func(c *config) { c.changes = append(c.changes, changes...) }
}

// WithSyncOptions passes options to every [deploysync.Sync] of the run.
func WithSyncOptions(opts ...deploysync.Option) Option {
	return func(c *config) { c.syncOpts = append(c.syncOpts, opts...) }
}

func (c *config) validate() error {
	if c.versionErr != nil {
		return c.versionErr
	}
	switch {
	case c.tick <= 0:
		return fmt.Errorf("simulate: tick %v must be positive", c.tick)
	case c.startDelay < 0 || c.readyDelay < 0 || c.terminateDelay < 0:
		return fmt.Errorf("simulate: delays must not be negative (start %v, readiness %v, termination %v)", c.startDelay, c.readyDelay, c.terminateDelay)
	case c.readyStagger < 0:
		return fmt.Errorf("simulate: ready stagger %v must not be negative", c.readyStagger)
	case math.IsNaN(c.failureRate) || c.failureRate < 0 || c.failureRate > 1:
		return fmt.Errorf("simulate: failure rate %v must be between 0 and 1", c.failureRate)
	case c.burst <= 0:
		return fmt.Errorf("simulate: burst replicas %d must be positive", c.burst)
	case c.nodes <= 0:
		return fmt.Errorf("simulate: node count %d must be positive", c.nodes)
	case c.maxSteps <= 0:
		return fmt.Errorf("simulate: step limit %d must be positive", c.maxSteps)
	case c.maxPods <= 0:
		return fmt.Errorf("simulate: pod limit %d must be positive", c.maxPods)
	}
	for image, r := range c.refusedImages {
		if r.message == "" {
			return fmt.Errorf("simulate: refused image %q has no message (the apiserver's error for its pods)", image)
		}
		if r.until < 0 {
			return fmt.Errorf("simulate: refused image %q until %v: the refusal cannot end before the start", image, r.until)
		}
	}
	if r := c.refusedRS; r != nil && (r.message == "" || r.until < 0) {
		return fmt.Errorf("simulate: refused ReplicaSets until %v with message %q: want a message (the apiserver's error) and a time not before the start", r.until, r.message)
	}
	if d := c.rsSync; d.create < 0 || d.status < 0 {
		return fmt.Errorf("simulate: ReplicaSet sync time %v and %v must not be negative", d.create, d.status)
	}
	if q := c.podQuota; q != nil && (q.name == "" || q.pods < 0) {
		return fmt.Errorf("simulate: pod quota %q of %d pods: want a name and a limit not negative", q.name, q.pods)
	}
	for i, ch := range c.changes {
		if ch.At < 0 {
			return fmt.Errorf("simulate: change %d (%s) is at %v, before the start", i, ch.Description, ch.At)
		}
		if ch.Edit == nil {
			return fmt.Errorf("simulate: change %d (%s) has no Edit", i, ch.Description)
		}
	}
	return nil
}

// fails reports whether a template's pods are broken by WithFailingImage.
func (c *config) fails(t *corev1.PodTemplateSpec) bool {
	if len(c.failingImages) == 0 {
		return false
	}
	_, ok := firstImage(t, func(image string) bool { return c.failingImages[image] })
	return ok
}

// refuses returns the apiserver's error for the pods of a template that
// WithRefusedImage refuses (the first such image's, init containers
// first), and whether it refuses them at all during the run; until is when
// the template's pods are admitted again (the latest end of its refused
// images), 0 for never.
func (c *config) refuses(t *corev1.PodTemplateSpec) (msg string, until time.Duration, refused bool) {
	if len(c.refusedImages) == 0 {
		return "", 0, false
	}
	for _, list := range [][]corev1.Container{t.Spec.InitContainers, t.Spec.Containers} {
		for _, ct := range list {
			r, ok := c.refusedImages[ct.Image]
			if !ok {
				continue
			}
			if r.until == 0 {
				if !refused {
					msg = r.message
				}
				return msg, 0, true
			}
			if !refused {
				msg, refused = r.message, true
			}
			until = max(until, r.until)
		}
	}
	return msg, until, refused
}

// firstImage returns the first image of t's init containers, then its
// containers, for which match is true.
func firstImage(t *corev1.PodTemplateSpec, match func(string) bool) (string, bool) {
	for _, list := range [][]corev1.Container{t.Spec.InitContainers, t.Spec.Containers} {
		for _, ct := range list {
			if match(ct.Image) {
				return ct.Image, true
			}
		}
	}
	return "", false
}

// WithSyncFunc replaces the sync of every step: f is called instead of
// [deploysync.Sync] (with the options of [WithSyncOptions]) and its plan is
// applied. A differential test uses it to run another controller beside
// Sync on every state of a rollout, then continue with Sync's plan.
func WithSyncFunc(f func(deploysync.State) (deploysync.Plan, error)) Option {
	return func(c *config) { c.syncFunc = f }
}
