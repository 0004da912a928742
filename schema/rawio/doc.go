// Package rawio reads and writes non-blocking descriptors (pipes to and
// from providers, a bridge's socket to its Terraform provider) by raw
// system calls, so that a process waiting on its peer does not wake the
// Go runtime's monitor thread at every message.
//
// While a process waits for its peer it often has nothing else to do:
// every processor goes idle and the runtime's monitor (sysmon) sleeps.
// The first system call made through package syscall after that (the
// read of the answer) wakes it (entersyscall): a futex wake of another
// thread, then the monitor's 20 µs polling until the process is idle
// again, at every message. The monitor watches system calls so that one
// that blocks does not hold its processor; a read or write of a
// non-blocking descriptor never blocks (it returns EAGAIN, and Go's
// poller waits), so it needs no watching, as the runtime's own
// non-blocking calls get none. Waiting, deadlines and closing stay the
// poller's, through [syscall.RawConn].
//
// On systems other than Linux nothing is wrapped.
package rawio
