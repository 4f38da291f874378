import NIOCore
import Synchronization

/// A task executor that runs jobs on one NIO event loop: a page connection's reading task prefers
/// the event loop of the connection's own channel while the page waits for its answers
/// (``ReadingPlacement``), and with ``ServerConfiguration/connectionsOnEventLoop`` all of the
/// connection's tasks do, so a frame read, the answer made from memory and its write run on the
/// thread that reads and writes the socket, with no hop to Swift's global executor and back for
/// each frame (measured in docs/BENCHMARKS.md).
///
/// Jobs wait in a queue of the executor's own, run in batches: one `execute` on the event loop
/// for every job that arrives while a batch is pending or running, rather than one each, and
/// the jobs a batch's jobs queue run in the same batch, so the answers they write meet one flush.
///
/// Work that blocks still goes elsewhere (SQLite on GRDB's queues, files on `BlockingIO`), as
/// it must off the global executor too.
final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    private let eventLoop: any EventLoop
    private struct Queue: ~Copyable {
        var jobs: [UnownedJob] = []
        /// Whether a batch is waiting on the event loop or running.
        var scheduled = false
    }
    private let queue = Mutex(Queue())

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let schedule = queue.withLock { queue -> Bool in
            queue.jobs.append(job)
            guard !queue.scheduled else { return false }
            queue.scheduled = true
            return true
        }
        if schedule { eventLoop.execute { self.runBatch() } }
    }

    /// Runs the queued jobs, and those they queue in turn (a task resumed by another, an actor's
    /// hop), until none is left or ``jobsPerBatch`` have run; then the loop reads and writes its
    /// sockets (a page socket's held flush among them: ``FlushCoalescingHandler``) before the
    /// next batch, a task of the event loop of its own.
    private func runBatch() {
        let executor = asUnownedTaskExecutor()
        var ran = 0
        while ran < Self.jobsPerBatch {
            var batch: [UnownedJob] = []
            let more = queue.withLock { queue -> Bool in
                swap(&batch, &queue.jobs)
                if batch.isEmpty { queue.scheduled = false }
                return !batch.isEmpty
            }
            guard more else { return }
            for job in batch { job.runSynchronously(on: executor) }
            ran += batch.count
        }
        // Jobs left after a full batch: the next batch waits behind the loop's I/O.
        eventLoop.execute { self.runBatch() }
    }

    /// How many jobs one batch runs at most before the loop turns to its sockets.
    static let jobsPerBatch = 256
}
