import GRDB
import Synchronization

/// Group reads: reads that arrive while others are being read wait, and then run together in one
/// read access (one read-only transaction, on one of GRDB's reader connections). A burst of small
/// reads then costs one hop to a reader and one transaction instead of one each, and no thread
/// waits for a free reader connection. Every read runs on a reader's queue (`asyncRead`), never on
/// the caller's thread.
///
/// Each read still sees every write committed before it was asked for: a batch's transaction
/// starts after all of its reads were queued.
final class GroupRead: Sendable {
    private struct Waiting: Sendable {
        let run: @Sendable (Result<Database, any Error>) -> Void
    }

    private struct Queue {
        var waiting: [Waiting] = []
        /// Batches scheduled or being read.
        var batches = 0
    }

    private let pool: DatabasePool
    private let queue = Mutex(Queue())
    /// At most this many batches are read at once, each on a reader connection of its own.
    let concurrentBatches: Int

    init(pool: DatabasePool, concurrentBatches: Int = 2) {
        self.pool = pool
        self.concurrentBatches = max(1, concurrentBatches)
    }

    /// Runs `value` in the next batch and returns its result.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let waiting = Waiting { access in
                continuation.resume(with: Result { try value(try access.get()) })
            }
            let start = queue.withLock { queue -> Bool in
                queue.waiting.append(waiting)
                guard queue.batches < concurrentBatches else { return false }
                queue.batches += 1
                return true
            }
            if start { readBatch() }
        }
    }

    /// Reads everything waiting when a reader connection is free, then goes on while more waits.
    private func readBatch() {
        pool.asyncRead { [self] access in
            let batch = queue.withLock { queue in
                defer { queue.waiting.removeAll(keepingCapacity: true) }
                return queue.waiting
            }
            for waiting in batch { waiting.run(access) }
            batchEnded()
        }
    }

    /// Gives the slot of a batch that ended to the reads waiting, if any, or frees it.
    private func batchEnded() {
        let more = queue.withLock { queue -> Bool in
            guard !queue.waiting.isEmpty else {
                queue.batches -= 1
                return false
            }
            return true
        }
        if more { readBatch() }
    }
}
