package headless

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// streamGCPercent is the garbage collector's target once agent exec's
// answer streams (an explicit GOGC wins): the heap is then mostly the
// stream's garbage (events per delta) over a small live set, and the short
// process has no use for a large heap. Set at the first delta, not at
// start-up, where it would cost a collection before the request is sent.
// On the 50,000-delta benchmark stream: peak RSS 20.9 -> 18.9 MiB; a short
// turn pays one collection, +0.7 MiB (BENCHMARKS.md).
const streamGCPercent = 50

// streamHeadroom is how far above what the Go runtime holds at the first
// delta its soft memory limit is set (an explicit GOMEMLIMIT wins): at
// least this much, or half of what it holds, whichever is more, so a
// resumed session with a large history is not collected over and over.
// With the limit the runtime collects and returns freed pages before the
// process grows past it; without it the stream's garbage (go-sse's strings
// per event) is returned too late for a process this short. On the
// 50,000-delta stream: peak RSS median 20.3 -> 19.0 MB, CPU unchanged
// (2 MiB cost CPU; 4 MiB kept 19.4 MB; BENCHMARKS.md).
const streamHeadroom = 3 << 20

// StreamGC sets the collector's target and soft memory limit for the
// rest of an exec process once its answer streams (call it at the first
// delta, [Options].OnStream); GOGC and GOMEMLIMIT in the environment win.
func StreamGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(streamGCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		held := runtimeMemory()
		debug.SetMemoryLimit(held + max(streamHeadroom, held/2))
	}
}

// runtimeMemory is the memory the Go runtime's soft limit counts: all it
// has mapped, less the heap pages returned to the system.
func runtimeMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// bigStep is what a step of a turn must have allocated for its end to be
// worth a collection.
const bigStep = 8 << 20

// StepGC returns what an exec process calls between the steps of a turn
// ([Options].OnStep: the end of a message, a response, a tool call): when more
// than 8 MiB was allocated since its last collection, it collects, and
// reports so. A response carrying a 10 MiB call leaves its read buffers,
// and the tool its copy of the arguments, as garbage the pacer would not
// collect before the next request's body is built (the heap may double
// first): collected here, the body goes where they were, not into fresh
// pages (10 MiB call arguments: peak RSS 69 -> 59 MiB, BENCHMARKS.md);
// likewise a 10 MiB answer's deltas, collected once its message is done,
// leave room for the completed response that lists it again. A
// collection of such a heap, mostly text, costs about a millisecond.
// GOGC=off in the environment turns it off.
func StepGC(getenv func(string) string) func() bool {
	var last uint64
	return func() bool {
		if getenv("GOGC") == "off" {
			return false
		}
		s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
		metrics.Read(s)
		now := s[0].Value.Uint64()
		if now-last < bigStep {
			return false
		}
		runtime.GC()
		last = now
		return true
	}
}
