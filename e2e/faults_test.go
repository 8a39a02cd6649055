package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	restclient "k8s.io/client-go/rest"
)

// faultRates are the fractions of a controller's writes (creates,
// updates, patches and deletes of Deployments and ReplicaSets) that fail.
// The three outcomes are exclusive; the rest of the writes go through.
type faultRates struct {
	// conflict: the write is not sent; the caller gets 409 Conflict.
	conflict float64
	// internal: the write is not sent; the caller gets 500.
	internal float64
	// lostReply: the write is sent and takes effect, then the caller gets
	// a timeout instead of the reply (it cannot know the write happened).
	lostReply float64
	// watches: watches are cut after 5–20 s, their stream ended as a
	// server or a dropped connection ends one (see cutAfter: informers
	// watch again at once from their last resourceVersion), and one in
	// twelve of the watches that follow is refused with 410 Gone, as an
	// apiserver refuses a resourceVersion it no longer holds (informers
	// list again, after the reflector's backoff: 0.8 s doubling to 30 s,
	// reset 2 min after its last reset). More refusals would measure that
	// backoff rather than the controller: refusing a third of the watches
	// kept our informers stale for tens of seconds at a time.
	watches bool
}

// issue16Faults are the rates issue 16 asks for.
var issue16Faults = faultRates{conflict: 0.10, internal: 0.02, lostReply: 0.01, watches: true}

// apiCounts counts what one component's client sent and got. Every field
// is a running total.
type apiCounts struct {
	writes        atomic.Int64 // Deployment and ReplicaSet writes the caller asked for, injected failures included
	conflicts     atomic.Int64 // 409s the apiserver itself answered to those writes
	injConflict   atomic.Int64
	injInternal   atomic.Int64
	injLostReply  atomic.Int64
	watchesCut    atomic.Int64
	watchesGone   atomic.Int64
	eventsWritten atomic.Int64
	// concurrentWrites: the writes of another writer that make an injected
	// 409 a real conflict (see concurrentWrite).
	concurrentWrites atomic.Int64
}

// snapshot copies the totals.
func (c *apiCounts) snapshot() apiTotals {
	return apiTotals{Writes: c.writes.Load(), Conflicts: c.conflicts.Load(), InjConflict: c.injConflict.Load(),
		InjInternal: c.injInternal.Load(), InjLostReply: c.injLostReply.Load(), WatchesCut: c.watchesCut.Load(),
		WatchesGone: c.watchesGone.Load(), Events: c.eventsWritten.Load()}
}

type apiTotals struct {
	Writes, Conflicts, InjConflict, InjInternal, InjLostReply, WatchesCut, WatchesGone, Events int64
}

func (a apiTotals) minus(b apiTotals) apiTotals {
	return apiTotals{a.Writes - b.Writes, a.Conflicts - b.Conflicts, a.InjConflict - b.InjConflict, a.InjInternal - b.InjInternal,
		a.InjLostReply - b.InjLostReply, a.WatchesCut - b.WatchesCut, a.WatchesGone - b.WatchesGone, a.Events - b.Events}
}

// faultInjector wraps a client's transport: it counts the client's writes
// and conflicts and, when rates are set, injects faults. Whether a request
// fails is a function of the seed, the request's method and path, and how
// many requests with that method and path came before it, so a run with
// the same seed injects the same faults into the same objects' n-th writes
// (which write of an object comes n-th still depends on timing).
type faultInjector struct {
	seed   int64
	rates  *faultRates // nil: count only
	counts *apiCounts
	// A watch is cut cutMin plus up to cutSpan after it starts (5 s and
	// 15 s; shorter in the injector's own tests).
	cutMin, cutSpan time.Duration

	mu  sync.Mutex
	seq map[string]uint64
	// refused counts, by request path, the writes that did not take
	// effect: injected 409s and 500s, and the apiserver's own 409s.
	refused map[string]int
	// failed counts, by the Deployment a write belongs to (see
	// deploymentOf), the writes its controller saw fail: those refused
	// and those whose reply was lost. Either ends that sync before its
	// status write.
	failed map[string]int
}

func newFaultInjector(seed int64, rates *faultRates) *faultInjector {
	return &faultInjector{seed: seed, rates: rates, counts: &apiCounts{}, cutMin: 5 * time.Second, cutSpan: 15 * time.Second, seq: map[string]uint64{}, refused: map[string]int{}, failed: map[string]int{}}
}

// wrap returns a copy of cfg whose requests go through the injector.
func (f *faultInjector) wrap(cfg *restclient.Config) *restclient.Config {
	c := restclient.CopyConfig(cfg)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &faultTransport{f: f, next: rt} })
	return c
}

// draw returns a number in [0, 1) for the n-th request with this key.
func (f *faultInjector) draw(key string) float64 {
	f.mu.Lock()
	n := f.seq[key]
	f.seq[key] = n + 1
	f.mu.Unlock()
	return unit(f.seed, key, n)
}

func (f *faultInjector) noteRefused(req *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused[req.URL.Path]++
	f.failed[deploymentOf(req)]++
}

// noteFailed records a write whose reply was lost: it may have taken
// effect, but the controller saw an error.
func (f *faultInjector) noteFailed(req *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed[deploymentOf(req)]++
}

// failedWrites returns how many writes of the Deployment namespace/name,
// or of an object of its namespace the injector could not attribute,
// failed as its controller saw them.
func (f *faultInjector) failedWrites(namespace, name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed[namespace+"/"+name] + f.failed[namespace+"/*"]
}

// deploymentOf names the Deployment an apps write belongs to, as
// namespace/name: the Deployment's own path, or a ReplicaSet's name
// without its "-<pod-template-hash>" (the load's ReplicaSets are all named
// so); for a create, the name in the body. namespace/* when neither tells.
func deploymentOf(req *http.Request) string {
	rest, ok := strings.CutPrefix(req.URL.Path, "/apis/apps/v1/namespaces/")
	if !ok {
		return "*/*"
	}
	parts := strings.Split(rest, "/")
	ns := parts[0]
	switch {
	case len(parts) >= 3 && parts[1] == "deployments":
		return ns + "/" + parts[2]
	case len(parts) >= 3 && parts[1] == "replicasets":
		if i := strings.LastIndex(parts[2], "-"); i > 0 {
			return ns + "/" + parts[2][:i]
		}
	case len(parts) == 2 && parts[1] == "replicasets" && req.GetBody != nil:
		var obj struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if body, err := req.GetBody(); err == nil {
			err = json.NewDecoder(body).Decode(&obj)
			_ = body.Close()
			if i := strings.LastIndex(obj.Metadata.Name, "-"); err == nil && i > 0 {
				return ns + "/" + obj.Metadata.Name[:i]
			}
		}
	}
	return ns + "/*"
}

// unit hashes (seed, key, n) to [0, 1).
func unit(seed int64, key string, n uint64) float64 {
	h := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(seed))
	binary.LittleEndian.PutUint64(b[8:], n)
	_, _ = h.Write(b[:])
	_, _ = h.Write([]byte(key))
	// FNV's high bits are poorly mixed for short inputs (measured: 11.8%
	// conflicts for a rate of 10%); splitmix64's finalizer mixes them.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / float64(1<<53)
}

type faultTransport struct {
	f    *faultInjector
	next http.RoundTripper
}

// isAppsWrite: a write of a Deployment or a ReplicaSet (status included).
func isAppsWrite(req *http.Request) bool {
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return false
	}
	p := req.URL.Path
	return strings.HasPrefix(p, "/apis/apps/v1/") && (strings.Contains(p, "/deployments") || strings.Contains(p, "/replicasets"))
}

func isEventWrite(req *http.Request) bool {
	return req.Method != http.MethodGet && (strings.Contains(req.URL.Path, "/events"))
}

func isWatch(req *http.Request) bool {
	w := req.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

func (t *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f := t.f
	switch {
	case isAppsWrite(req):
		f.counts.writes.Add(1)
		if f.rates != nil {
			u := f.draw(req.Method + " " + req.URL.Path)
			r := f.rates
			switch {
			case u < r.conflict:
				f.counts.injConflict.Add(1)
				f.noteRefused(req)
				if req.Method != http.MethodPost {
					t.concurrentWrite(req)
				}
				return statusResponse(req, http.StatusConflict, metav1.StatusReasonConflict,
					"injected: Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again"), nil
			case u < r.conflict+r.internal:
				f.counts.injInternal.Add(1)
				f.noteRefused(req)
				return statusResponse(req, http.StatusInternalServerError, metav1.StatusReasonInternalError, "injected: internal error"), nil
			case u < r.conflict+r.internal+r.lostReply:
				resp, err := t.next.RoundTrip(req)
				if err != nil {
					return nil, err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				f.counts.injLostReply.Add(1)
				if resp.StatusCode == http.StatusConflict {
					f.counts.conflicts.Add(1)
					f.noteRefused(req)
				} else {
					f.noteFailed(req)
				}
				return nil, lostReply{status: resp.StatusCode}
			}
		}
		resp, err := t.next.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusConflict {
			f.counts.conflicts.Add(1)
			f.noteRefused(req)
		}
		return resp, err
	case isEventWrite(req):
		f.counts.eventsWritten.Add(1)
	case isWatch(req) && f.rates != nil && f.rates.watches:
		key := "WATCH " + req.URL.Path
		u := f.draw(key)
		// A watch that lists (sendInitialEvents) is not refused: the
		// reflector would fall back to a plain list, which the next
		// refusal cannot reach.
		if req.URL.Query().Get("sendInitialEvents") != "true" && u < 1.0/12 {
			f.counts.watchesGone.Add(1)
			return statusResponse(req, http.StatusGone, metav1.StatusReasonExpired, "injected: too old resource version"), nil
		}
		resp, err := t.next.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			return resp, err
		}
		after := f.cutMin + time.Duration(math.Mod(u*1e6, 1)*float64(f.cutSpan))
		resp.Body = cutAfter(resp.Body, after, &f.counts.watchesCut)
		return resp, nil
	}
	return t.next.RoundTrip(req)
}

// bumpLabel is the label a concurrent writer sets and removes again.
const bumpLabel = "e2e.deploysync.io/concurrent-write"

// concurrentWrite makes an injected 409 what an apiserver's 409 always is:
// another writer changed the object since the caller read it. Before the
// caller gets its 409, the object (the one a status path belongs to) gets a
// label and loses it again, two writes under the user agent e2e-injector
// (not counted as any controller's), so the object ends as it was but for
// its resourceVersion, and the caller's informers deliver the change, as
// they would deliver the write that beat it. A label, not an annotation: a
// Deployment's annotations bump its generation. Without the change (the
// first version), a 409 came with nothing for the caller to see:
// kube-controller-manager drops the error of an old ReplicaSet's
// scale-down (rolling.go, reconcileOldReplicaSets: "if err != nil { return
// false, nil }") and forgets the key, so such a Deployment waited for an
// unrelated event (in the all-faulted runs, the next relist: 51 s and
// 146 s); after a real conflict, the event of the write that won enqueues
// it again. A create gets no such write (there is nothing to change).
func (t *faultTransport) concurrentWrite(req *http.Request) {
	path := strings.TrimSuffix(strings.TrimSuffix(req.URL.Path, "/status"), "/scale")
	for _, value := range []string{`"1"`, `null`} {
		body := `{"metadata":{"labels":{"` + bumpLabel + `":` + value + `}}}`
		u := *req.URL
		u.Path, u.RawQuery = path, ""
		bump, err := http.NewRequestWithContext(req.Context(), http.MethodPatch, u.String(), strings.NewReader(body))
		if err != nil {
			return
		}
		bump.Header = req.Header.Clone()
		bump.Header.Set("Content-Type", "application/merge-patch+json")
		bump.Header.Set("Accept", "application/json")
		bump.Header.Set("User-Agent", "e2e.test/"+injectorAgent)
		bump.Header.Del("Content-Length")
		resp, err := t.next.RoundTrip(bump)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return // gone, or refused: nothing changed
		}
		t.f.counts.concurrentWrites.Add(1)
	}
}

// injectorAgent is the user agent of the injector's concurrent writes.
const injectorAgent = "e2e-injector"

// lostReply is the error a caller gets for a write that took effect.
type lostReply struct{ status int }

func (e lostReply) Error() string {
	return fmt.Sprintf("injected: timeout awaiting the reply (the write was applied; the server answered %d)", e.status)
}
func (lostReply) Timeout() bool   { return true }
func (lostReply) Temporary() bool { return true }

// statusResponse is an apiserver's error reply.
func statusResponse(req *http.Request, code int, reason metav1.StatusReason, msg string) *http.Response {
	body, _ := json.Marshal(&metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Reason: reason, Code: int32(code),
	})
	return &http.Response{
		StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req,
	}
}

// cutAfter ends a watch's stream after d as a server or the network ends
// one: the reader sees io.EOF (what is read in the same call is dropped,
// as a connection drop loses it), so client-go's StreamWatcher closes the
// watch without an error event and the reflector watches again at once
// from the last resourceVersion it holds. Closing the body from the
// client's side instead (the first version) makes the pending read fail
// with "http2: response body closed", an error no server or network
// produces; the StreamWatcher passes it on as an error event, and the
// reflector answers every such cut with a new list after its backoff
// (0.8 s doubling to 30 s, with up to as much again in jitter, reset only
// 2 min after the last reset), which left informers of every flavour blind
// for 20–35 s at a time late in the all-faulted runs of 2026-12-02.
func cutAfter(body io.ReadCloser, d time.Duration, cut *atomic.Int64) io.ReadCloser {
	c := &cutBody{ReadCloser: body}
	c.timer = time.AfterFunc(d, func() {
		cut.Add(1)
		c.ended.Store(true)
		// Unblocks a pending Read, whose error Read turns into io.EOF.
		_ = c.ReadCloser.Close()
	})
	return c
}

type cutBody struct {
	io.ReadCloser
	timer *time.Timer
	ended atomic.Bool
	once  sync.Once
	err   error
}

func (c *cutBody) Read(p []byte) (int, error) {
	if c.ended.Load() {
		return 0, io.EOF
	}
	n, err := c.ReadCloser.Read(p)
	if c.ended.Load() {
		return 0, io.EOF
	}
	return n, err
}

func (c *cutBody) Close() error {
	c.once.Do(func() {
		c.timer.Stop()
		c.err = c.ReadCloser.Close()
	})
	return c.err
}
