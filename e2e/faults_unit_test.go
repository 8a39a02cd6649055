package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
)

// fakeServer answers every request with one ReplicaSet and counts the
// writes that reached it; the injector's concurrent writes (see
// concurrentWrite) it records in bumps, as "path body", apart.
func fakeServer(t *testing.T, reached *atomic.Int64, bumps *[]string) *restclient.Config {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.HasSuffix(r.UserAgent(), "/"+injectorAgent):
			if r.Method != http.MethodPatch || r.Header.Get("Content-Type") != "application/merge-patch+json" {
				t.Errorf("concurrent write %s %s (%s), want a merge patch", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			}
			mu.Lock()
			*bumps = append(*bumps, r.URL.Path+" "+string(body))
			mu.Unlock()
		case r.Method != http.MethodGet:
			reached.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"rs","namespace":"ns"}}`))
	}))
	t.Cleanup(srv.Close)
	return &restclient.Config{Host: srv.URL, QPS: 1e6, Burst: 1e6}
}

// TestFaultInjector checks the injector through a clientset: the rates,
// the errors' classes, that a lost reply's write reached the server, and
// that a seed decides the same faults again.
func TestFaultInjector(t *testing.T) {
	const writes = 20000
	type outcome struct{ conflict, internal, lost, ok int }
	runWith := func(seed int64) (outcome, int64, []int) {
		var reached atomic.Int64
		var bumps []string
		rates := issue16Faults
		inj := newFaultInjector(seed, &rates)
		cs, err := kubernetes.NewForConfig(inj.wrap(fakeServer(t, &reached, &bumps)))
		if err != nil {
			t.Fatal(err)
		}
		var o outcome
		var failedAt []int
		for i := range writes {
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("rs-%d", i%50), Namespace: "ns"}}
			_, err := cs.AppsV1().ReplicaSets("ns").Update(context.Background(), rs, metav1.UpdateOptions{})
			var lr lostReply
			switch {
			case err == nil:
				o.ok++
				continue
			case apierrors.IsConflict(err):
				o.conflict++
				// A real conflict: another writer changed the object
				// before the caller got its 409 (set a label, removed it).
				want := []string{
					`/apis/apps/v1/namespaces/ns/replicasets/` + rs.Name + ` {"metadata":{"labels":{"` + bumpLabel + `":"1"}}}`,
					`/apis/apps/v1/namespaces/ns/replicasets/` + rs.Name + ` {"metadata":{"labels":{"` + bumpLabel + `":null}}}`,
				}
				if len(bumps) < 2 || fmt.Sprint(bumps[len(bumps)-2:]) != fmt.Sprint(want) {
					t.Fatalf("write %d: 409 after the concurrent writes %q, want %q last", i, bumps, want)
				}
			case apierrors.IsInternalError(err):
				o.internal++
			case errors.As(err, &lr):
				o.lost++
			default:
				t.Fatalf("write %d: unclassified error %v", i, err)
			}
			failedAt = append(failedAt, i)
		}
		if want := 2 * o.conflict; len(bumps) != want {
			t.Errorf("%d concurrent writes, want two per injected 409 (%d)", len(bumps), want)
		}
		return o, reached.Load(), failedAt
	}
	o, reached, failed := runWith(16)
	tests := []struct {
		name     string
		got      int
		rate     float64
		reason   string
		tolerant float64
	}{
		{name: "conflicts", got: o.conflict, rate: 0.10, tolerant: 0.01, reason: "issue 16: 409 on 10% of writes"},
		{name: "internal errors", got: o.internal, rate: 0.02, tolerant: 0.005, reason: "issue 16: 500 on 2%"},
		{name: "lost replies", got: o.lost, rate: 0.01, tolerant: 0.004, reason: "issue 16: a timeout after the write took effect on 1%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			if f := float64(tt.got) / writes; f < tt.rate-tt.tolerant || f > tt.rate+tt.tolerant {
				t.Errorf("%d of %d writes (%.4f), want %.3f ± %.3f (%s)", tt.got, writes, f, tt.rate, tt.tolerant, tt.reason)
			}
		})
	}
	if want := int64(o.ok + o.lost); reached != want {
		t.Errorf("%d writes reached the server, want %d (the successful ones and the lost replies; refused ones are not sent)", reached, want)
	}
	again, _, failedAgain := runWith(16)
	if again != o || fmt.Sprint(failedAgain) != fmt.Sprint(failed) {
		t.Errorf("seed 16 twice: %+v then %+v; the same seed must fail the same writes", o, again)
	}
	other, _, failedOther := runWith(17)
	if fmt.Sprint(failedOther) == fmt.Sprint(failed) {
		t.Errorf("seeds 16 and 17 failed the same writes (%+v, %+v)", o, other)
	}
}

// watchServer streams one ADDED ReplicaSet to every watch and then holds
// the stream open until the client goes away, as an apiserver does while
// nothing changes. It speaks HTTP/2 over TLS, as kube-apiserver does to
// client-go: how a body closed by the client fails a pending read depends
// on the protocol (HTTP/1.1's "use of closed network connection" passes
// client-go's probable-EOF test, HTTP/2's "response body closed" does not).
func watchServer(t *testing.T) *restclient.Config {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			http.Error(w, "watches only", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"rs","namespace":"ns","resourceVersion":"7"}}}` + "\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &restclient.Config{Host: srv.URL, QPS: 1e6, Burst: 1e6, TLSClientConfig: restclient.TLSClientConfig{Insecure: true}}
}

// TestFaultInjectorWatchCut checks that a cut watch ends as a server or a
// dropped connection ends one: its result channel closes with no error
// event, which client-go's reflector answers by watching again at once
// from its resourceVersion (an error event would make it list again
// after its backoff, which grows to 30 s); and that a refused watch is
// the apiserver's 410 for a resourceVersion it no longer holds.
func TestFaultInjectorWatchCut(t *testing.T) {
	rates := issue16Faults
	inj := newFaultInjector(16, &rates)
	inj.cutMin, inj.cutSpan = 20*time.Millisecond, 30*time.Millisecond
	cs, err := kubernetes.NewForConfig(inj.wrap(watchServer(t)))
	if err != nil {
		t.Fatal(err)
	}
	const watches = 40
	streamed, refused := 0, 0
	for i := range watches {
		w, err := cs.AppsV1().ReplicaSets("ns").Watch(context.Background(), metav1.ListOptions{ResourceVersion: "7"})
		if err != nil {
			if !apierrors.IsResourceExpired(err) {
				t.Fatalf("watch %d: refused with %v, want 410 Gone (Expired)", i, err)
			}
			refused++
			continue
		}
		streamed++
		var got []watch.EventType
		timeout := time.After(10 * time.Second)
	read:
		for {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					break read
				}
				got = append(got, ev.Type)
				if ev.Type == watch.Error {
					t.Errorf("watch %d: error event %v; a cut must end the stream as a server does (no error)", i, ev.Object)
				}
			case <-timeout:
				w.Stop()
				t.Fatalf("watch %d: not cut within 10 s (events %v)", i, got)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint([]watch.EventType{watch.Added}) {
			t.Errorf("watch %d: events %v, want the one ADDED the server sent", i, got)
		}
	}
	if cut := inj.counts.watchesCut.Load(); cut != int64(streamed) {
		t.Errorf("%d watches cut, want every one that streamed (%d)", cut, streamed)
	}
	if gone := inj.counts.watchesGone.Load(); gone != int64(refused) || refused == 0 || refused > watches/4 {
		t.Errorf("%d watches refused (counted %d) of %d, want about one in twelve", refused, gone, watches)
	}
}
