package upstream

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

// eventLog is a record.EventRecorder that keeps the events in order.
type eventLog struct {
	events []Event
}

var _ record.EventRecorder = (*eventLog)(nil)

func (l *eventLog) Event(_ runtime.Object, eventtype, reason, message string) {
	l.events = append(l.events, Event{Type: eventtype, Reason: reason, Message: message})
}

func (l *eventLog) Eventf(obj runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	l.Event(obj, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (l *eventLog) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventtype, reason, messageFmt string, args ...any) {
	l.Eventf(obj, eventtype, reason, messageFmt, args...)
}

// queueLog is a work queue that records what the sync asks of it and never
// hands out work.
type queueLog struct {
	rateLimited bool
	after       time.Duration
	log         *[]string // the store's action log, for diagnostics
}

var _ workqueue.TypedRateLimitingInterface[string] = (*queueLog)(nil)

func (q *queueLog) note(format string, args ...any) {
	*q.log = append(*q.log, fmt.Sprintf(format, args...))
}

func (q *queueLog) Add(item string)        { q.note("queue add %s", item) }
func (q *queueLog) Len() int               { return 0 }
func (q *queueLog) Get() (string, bool)    { return "", true }
func (q *queueLog) Done(string)            {}
func (q *queueLog) ShutDown()              {}
func (q *queueLog) ShutDownWithDrain()     {}
func (q *queueLog) ShuttingDown() bool     { return true }
func (q *queueLog) Forget(item string)     { q.note("queue forget %s", item) }
func (q *queueLog) NumRequeues(string) int { return 0 }
func (q *queueLog) AddRateLimited(item string) {
	q.rateLimited = true
	q.note("queue add rate-limited %s", item)
}
func (q *queueLog) AddAfter(item string, d time.Duration) {
	q.after = d
	q.note("queue add after %s %s", d, item)
}
