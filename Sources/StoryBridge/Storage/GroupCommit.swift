import GRDB
import Synchronization

/// Group commit: writes that arrive while a transaction is being written wait, and then go into
/// the next transaction together, so a burst of writes costs one commit (one WAL sync) instead of
/// one each. Every write is still committed before its caller hears of success: a caller resumes
/// only after the transaction that holds its changes has committed; if that commit fails, every
/// write in it fails with the commit's error.
///
/// A write that throws undoes only its own changes and fails alone; the others commit. The writes
/// of a shared transaction first run together in one savepoint; when one of them throws, that
/// savepoint is rolled back and each write runs again in a savepoint of its own. So `updates` may
/// run twice, each time from the same database state: it must change nothing outside the
/// database except through ``afterCommit(_:)`` (whose hooks of a rolled-back run are dropped).
/// A transaction that holds a single write runs it without a savepoint.
///
/// The batches run on GRDB's writer queue (`asyncWrite`), serialized with every other write to the
/// database; no task is started for them. A write that finds nothing being written (no batch, no
/// write counted by ``separately(_:)``) runs at once in a transaction of its own, on its caller's
/// thread through GRDB's synchronous access, which an idle writer queue runs on the thread that
/// asks: a lone write then costs no hop to the writer's thread and back (about a quarter of a
/// sequential write's round trip on a 2-core machine; docs/BENCHMARKS.md). A write to the pool
/// made around this type (not through ``separately(_:)``) can make such a caller's thread wait for
/// it, as can another process's transaction (up to the busy timeout).
final class GroupCommit: Sendable {
    /// One waiting write: runs its updates in the open transaction and returns how to answer its
    /// caller once the transaction has ended (with the commit's error, if the commit failed), and
    /// whether its updates failed.
    private struct Waiting: Sendable {
        let run:
            @Sendable (Database, _ inSavepoint: Bool) -> (
                failure: (any Error)?, answer: @Sendable ((any Error)?) -> Void, hooks: [@Sendable () -> Void]
            )
        /// Answers the caller with `error` when its transaction could not even begin.
        let fail: @Sendable (any Error) -> Void
    }

    private struct Queue {
        var waiting: [Waiting] = []
        /// Whether a batch is scheduled or being written; the next one is scheduled when it ends.
        var writing = false
    }

    private let pool: DatabasePool
    private let queue = Mutex(Queue())
    /// Writes to the pool outside the group commit (``separately(_:)``) that are queued or being
    /// written: while there is one, a write does not run on its caller's thread, which would wait
    /// for it.
    private let separateWrites = Atomic<Int>(0)
    /// What the write being run wants done once its transaction has committed; `nil` outside a
    /// write of this group commit.
    private let commitHooks = Mutex<[@Sendable () -> Void]?>(nil)

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// How many writes wait for the next transaction.
    var waitingCount: Int { queue.withLock { $0.waiting.count } }

    /// From inside a write's `updates`: runs `hook` after the transaction holding the write has
    /// committed, on GRDB's writer queue before any caller of that transaction is answered, and
    /// so in commit order. Not run when the write fails or the commit does. Returns false when
    /// called outside a write of this group commit.
    func afterCommit(_ hook: @escaping @Sendable () -> Void) -> Bool {
        commitHooks.withLock { hooks in
            guard hooks != nil else { return false }
            hooks!.append(hook)
            return true
        }
    }

    /// Runs `updates` in the next transaction and returns its result once that transaction has
    /// committed.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let alone = queue.withLock { queue -> Bool in
            guard !queue.writing, separateWrites.load(ordering: .acquiring) == 0 else { return false }
            queue.writing = true
            return true
        }
        if alone { return try writeAlone(updates) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let waiting = Waiting(
                run: { [self] db, inSavepoint in
                    let outcome: Result<(T, [@Sendable () -> Void]), any Error> = Result {
                        try collectingHooks {
                            guard inSavepoint else { return try updates(db) }
                            var value: T?
                            try db.inSavepoint {
                                value = try updates(db)
                                return .commit
                            }
                            // inSavepoint returns only after running the closure, which set the value.
                            return value!
                        }
                    }
                    let failure: (any Error)? = if case .failure(let error) = outcome { error } else { nil }
                    // A write that failed changed nothing: it has no hooks.
                    let hooks = (try? outcome.get())?.1 ?? []
                    return (
                        failure,
                        { commitFailure in
                            // A write that failed on its own reports its own error; one whose changes
                            // were lost with the transaction reports the commit's.
                            if let commitFailure, failure == nil {
                                continuation.resume(throwing: commitFailure)
                            } else {
                                continuation.resume(with: outcome.map(\.0))
                            }
                        },
                        hooks
                    )
                },
                fail: { continuation.resume(throwing: $0) })
            let lead = queue.withLock { queue -> Bool in
                queue.waiting.append(waiting)
                guard !queue.writing else { return false }
                queue.writing = true
                return true
            }
            if lead { writeBatch() }
        }
    }

    /// Runs `write`, a write to the pool outside the group commit, counted while it runs so that no
    /// write of the group commit waits for it on its caller's thread.
    func separately<T, Failure: Error>(_ write: () throws(Failure) -> T) throws(Failure) -> T {
        separateWrites.add(1, ordering: .acquiringAndReleasing)
        defer { separateWrites.subtract(1, ordering: .acquiringAndReleasing) }
        return try write()
    }

    /// Runs `write`, a write to the pool outside the group commit, counted from the call until it
    /// has ended (queued for the writer or being written), so that no write of the group commit
    /// waits for it on its caller's thread.
    func separatelyAsync<T>(_ write: () async throws -> T) async throws -> T {
        separateWrites.add(1, ordering: .acquiringAndReleasing)
        defer { separateWrites.subtract(1, ordering: .acquiringAndReleasing) }
        return try await write()
    }

    /// Runs one write in a transaction of its own on the caller's thread, when no batch is being
    /// written: GRDB's writer queue, idle, runs a synchronous access on the thread that asks for it,
    /// so the write and its answer take no hop to the writer's thread and back. Writes that arrive
    /// meanwhile wait for the next batch, scheduled when this one ends.
    private func writeAlone<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) throws -> T {
        defer { writingEnded() }
        return try pool.write { db in
            let (value, hooks) = try collectingHooks { try updates(db) }
            // Run on the writer queue right after the commit, before `write` returns.
            db.afterNextTransaction(onCommit: { _ in for hook in hooks { hook() } })
            return value
        }
    }

    /// Runs `updates` with the after-commit hooks it asks for (``afterCommit(_:)``) collected, and
    /// returns them with its result; when it throws, they are dropped. Called on the writer queue.
    private func collectingHooks<T>(_ updates: () throws -> T) throws -> (T, [@Sendable () -> Void]) {
        commitHooks.withLock { $0 = [] }
        let value: T
        do {
            value = try updates()
        } catch {
            commitHooks.withLock { $0 = nil }
            throw error
        }
        let hooks = commitHooks.withLock { hooks in
            defer { hooks = nil }
            return hooks ?? []
        }
        return (value, hooks)
    }

    /// Writes everything waiting when the writer queue gets to it, as one transaction, then answers
    /// its callers and schedules the next batch if more arrived meanwhile.
    private func writeBatch() {
        let answers = BatchAnswers()
        pool.asyncWrite(
            { [self] db in
                let batch = queue.withLock { queue in
                    defer { queue.waiting.removeAll(keepingCapacity: true) }
                    return queue.waiting
                }
                answers.taken.store(true, ordering: .releasing)
                var soleFailure: (any Error)?
                var hooks: [@Sendable () -> Void] = []
                var collected: [@Sendable ((any Error)?) -> Void] = []
                if batch.count == 1 {
                    let (failure, answer, writeHooks) = batch[0].run(db, false)
                    soleFailure = failure
                    hooks = writeHooks
                    collected = [answer]
                } else if let together = try? Self.runTogether(batch, db: db) {
                    (collected, hooks) = together
                } else {
                    // A write failed (or the shared savepoint did): with the batch undone, each
                    // write runs again in a savepoint of its own, so only the failing one fails,
                    // and every caller gets an answer.
                    collected = batch.map { waiting in
                        let (_, answer, writeHooks) = waiting.run(db, true)
                        hooks += writeHooks
                        return answer
                    }
                }
                answers.list.withLock { $0 = collected }
                answers.hooks.withLock { $0 = hooks }
                // A lone write that failed has no savepoint: rolling the transaction back undoes
                // its partial changes.
                if let soleFailure { throw soleFailure }
            },
            completion: { [self] _, result in
                let failure: (any Error)? = if case .failure(let error) = result { error } else { nil }
                if let failure, !answers.taken.load(ordering: .acquiring) {
                    // The transaction failed before it took its batch (BEGIN failed: the file
                    // became read-only, I/O error): the writes waiting now fail with that error
                    // instead of waiting for a batch that would fail the same way forever.
                    let stranded = queue.withLock { queue in
                        defer { queue.waiting.removeAll(keepingCapacity: true) }
                        return queue.waiting
                    }
                    for waiting in stranded { waiting.fail(failure) }
                }
                if failure == nil {
                    for hook in answers.hooks.withLock({ $0 }) { hook() }
                }
                for answer in answers.list.withLock({ $0 }) { answer(failure) }
                writingEnded()
            })
    }

    /// After a batch or a lone write: schedules the next batch if writes wait, or marks that
    /// nothing is being written.
    private func writingEnded() {
        let more = queue.withLock { queue -> Bool in
            queue.writing = !queue.waiting.isEmpty
            return queue.writing
        }
        if more { writeBatch() }
    }

    /// Runs the writes of `batch` one after another in one savepoint; returns their answers and
    /// hooks, or `nil` with the savepoint rolled back when one of them failed.
    private static func runTogether(
        _ batch: [Waiting], db: Database
    ) throws -> ([@Sendable ((any Error)?) -> Void], [@Sendable () -> Void])? {
        // Runs one write after the other, with nothing that could throw between them, so a
        // throw here comes from the savepoint itself.
        var answers: [@Sendable ((any Error)?) -> Void] = []
        var hooks: [@Sendable () -> Void] = []
        answers.reserveCapacity(batch.count)
        var failed = false
        try db.inSavepoint {
            for waiting in batch {
                let (failure, answer, writeHooks) = waiting.run(db, false)
                if failure != nil {
                    failed = true
                    return .rollback
                }
                answers.append(answer)
                hooks += writeHooks
            }
            return .commit
        }
        return failed ? nil : (answers, hooks)
    }

    /// The callers of one batch, handed from the transaction to its completion.
    private final class BatchAnswers: Sendable {
        let list = Mutex<[@Sendable ((any Error)?) -> Void]>([])
        /// What the committed writes asked to run after the commit, in order.
        let hooks = Mutex<[@Sendable () -> Void]>([])
        /// Whether the transaction took its batch from the queue.
        let taken = Atomic<Bool>(false)
    }
}
