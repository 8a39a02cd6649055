package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
)

// fakeServer answers every request with one ReplicaSet and counts the
// writes that reached it.
func fakeServer(t *testing.T, reached *atomic.Int64) *restclient.Config {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Method != http.MethodGet {
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
		rates := issue16Faults
		inj := newFaultInjector(seed, &rates)
		cs, err := kubernetes.NewForConfig(inj.wrap(fakeServer(t, &reached)))
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
			case apierrors.IsInternalError(err):
				o.internal++
			case errors.As(err, &lr):
				o.lost++
			default:
				t.Fatalf("write %d: unclassified error %v", i, err)
			}
			failedAt = append(failedAt, i)
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
