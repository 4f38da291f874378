import GRDB
import Synchronization

/// Group commit: writes that arrive while a transaction is being written wait, and then go into
/// the next transaction together, so a burst of writes costs one commit (one WAL sync) instead of
/// one each. Every write is still committed before its caller hears of success: a caller resumes
/// only after the transaction that holds its changes has committed (and, the writer connection
/// being `synchronous = FULL`, after the log holding it was synced); if that commit fails, every
/// write in it fails with the commit's error.
///
/// A write that throws undoes only its own changes and fails alone; the others commit. The writes
/// of a shared transaction first run together in one savepoint; when one of them throws, that
/// savepoint is rolled back and each write runs again in a savepoint of its own. So `updates` runs
/// at most twice, each time from the same database state: it must change nothing outside the
/// database except through ``afterCommit(_:)`` (whose hooks of a rolled-back run are dropped). A
/// transaction that holds a single write runs it without a savepoint.
///
/// Every batch runs on GRDB's writer queue (`asyncWrite`), serialized with every other write to
/// the database, never on the caller's thread: a caller waiting for another process's write lock
/// (up to the busy timeout) suspends, and holds no thread of Swift's cooperative pool.
///
/// A write can also hand the transaction something to finish with (``stage(_:)``): the items the
/// batch's writes staged are collected per write, exactly like the after-commit hooks (dropped with
/// a write whose savepoint rolls back, never doubled when a write runs again), and once the batch's
/// writes are final the transaction's before-commit step receives them all, in order, and writes
/// what they stand for (the database's audit log writes one entry for the whole batch). What the
/// items are is the step's business, not this type's.
final class GroupCommit<Staged: Sendable>: Sendable {
    /// One waiting write: runs its updates in the open transaction and returns how to answer its
    /// caller once the transaction has ended (with the commit's error, if the commit failed), and
    /// whether its updates failed.
    private struct Waiting: Sendable {
        let run: @Sendable (Database, _ inSavepoint: Bool) -> Ran
        /// Answers the caller with `error` when its transaction could not even begin.
        let fail: @Sendable (any Error) -> Void
    }

    /// What one run of a write left: its failure, how to answer its caller once the transaction
    /// has ended (with the commit's error, if the commit failed), and, when it succeeded, the hooks
    /// and items it asked for.
    private struct Ran: Sendable {
        var failure: (any Error)?
        var answer: @Sendable ((any Error)?) -> Void
        var collected: Collected
    }

    /// What a write asked for while it ran: hooks to run after the commit, items for the
    /// before-commit step.
    private struct Collected: Sendable {
        var hooks: [@Sendable () -> Void] = []
        var staged: [Staged] = []

        static func += (lhs: inout Collected, rhs: Collected) {
            lhs.hooks += rhs.hooks
            lhs.staged += rhs.staged
        }
    }

    private struct Queue {
        var waiting: [Waiting] = []
        /// Whether a batch is scheduled or being written; the next one is scheduled when it ends.
        var writing = false
    }

    private let pool: DatabasePool
    private let queue = Mutex(Queue())
    /// What the write being run wants done once its transaction has committed, and what it staged
    /// for the before-commit step; `nil` outside a write of this group commit.
    private let collecting = Mutex<Collected?>(nil)
    /// Runs inside each transaction once its writes are final, with what they staged (never with
    /// none); a throw rolls the transaction back and fails every write of it with that error.
    private let beforeCommit: @Sendable (Database, [Staged]) throws -> Void

    /// A group commit on `pool`; `beforeCommit` finishes each transaction whose writes staged
    /// something (``stage(_:)``).
    init(pool: DatabasePool, beforeCommit: @escaping @Sendable (Database, [Staged]) throws -> Void) {
        self.pool = pool
        self.beforeCommit = beforeCommit
    }

    /// How many writes wait for the next transaction.
    var waitingCount: Int { queue.withLock { $0.waiting.count } }

    /// From inside a write's `updates`: runs `hook` after the transaction holding the write has
    /// committed (GRDB's `afterNextTransaction`, registered once the batch's writes are final), on
    /// GRDB's writer queue before any caller of that transaction is answered, and so in commit
    /// order. Not run when the write fails or the commit does. Returns false when called outside a
    /// write of this group commit.
    func afterCommit(_ hook: @escaping @Sendable () -> Void) -> Bool {
        collecting.withLock { collected in
            guard collected != nil else { return false }
            collected!.hooks.append(hook)
            return true
        }
    }

    /// From inside a write's `updates`: hands `item` to the before-commit step of the transaction
    /// holding the write, kept only if the write succeeds (and once when it runs twice). Returns
    /// false when called outside a write of this group commit.
    func stage(_ item: Staged) -> Bool {
        collecting.withLock { collected in
            guard collected != nil else { return false }
            collected!.staged.append(item)
            return true
        }
    }

    /// Runs `updates` in the next transaction and returns its result once that transaction has
    /// committed.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            enqueue([waiting(updates) { continuation.resume(with: $0) }])
        }
    }

    /// Queues `writes` together, one after another in the next transaction (each a write of its
    /// own, so each runs at most twice), and returns each one's outcome, in order, once that
    /// transaction has ended.
    func writeEach(_ writes: [@Sendable (Database) throws -> Void]) async -> [Result<Void, any Error>] {
        guard !writes.isEmpty else { return [] }
        return await withCheckedContinuation { (continuation: CheckedContinuation<[Result<Void, any Error>], Never>) in
            let outcomes = Mutex([Result<Void, any Error>?](repeating: nil, count: writes.count))
            let left = Atomic(writes.count)
            enqueue(
                writes.enumerated().map { index, updates in
                    waiting(updates) { outcome in
                        outcomes.withLock { $0[index] = outcome }
                        // The last answer resumes the caller with all of them.
                        guard left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
                        continuation.resume(returning: outcomes.withLock { $0.map { $0! } })
                    }
                })
        }
    }

    /// A waiting write of `updates` that answers `answer` once its transaction has ended.
    private func waiting<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T, answer: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> Waiting {
        Waiting(
            run: { [self] db, inSavepoint in
                let outcome: Result<(T, Collected), any Error> = Result {
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
                // A write that failed changed nothing: it has no hooks and staged nothing.
                let collected = (try? outcome.get())?.1 ?? Collected()
                return Ran(
                    failure: failure,
                    answer: { commitFailure in
                        // A write that failed on its own reports its own error; one whose changes
                        // were lost with the transaction reports the commit's.
                        if let commitFailure, failure == nil {
                            answer(.failure(commitFailure))
                        } else {
                            answer(outcome.map(\.0))
                        }
                    },
                    collected: collected)
            },
            fail: { answer(.failure($0)) })
    }

    /// Adds `writes` to the next batch, and schedules it when no batch is being written.
    private func enqueue(_ writes: [Waiting]) {
        let lead = queue.withLock { queue -> Bool in
            queue.waiting += writes
            guard !queue.writing else { return false }
            queue.writing = true
            return true
        }
        if lead { writeBatch() }
    }

    /// Runs `updates` with the after-commit hooks (``afterCommit(_:)``) and staged items
    /// (``stage(_:)``) it asks for collected, and returns them with its result; when it throws,
    /// they are dropped. Called on the writer queue.
    private func collectingHooks<T>(_ updates: () throws -> T) throws -> (T, Collected) {
        collecting.withLock { $0 = Collected() }
        let value: T
        do {
            value = try updates()
        } catch {
            collecting.withLock { $0 = nil }
            throw error
        }
        let collected = collecting.withLock { collected in
            defer { collected = nil }
            return collected ?? Collected()
        }
        return (value, collected)
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
                var asked = Collected()
                var collected: [@Sendable ((any Error)?) -> Void] = []
                if batch.count == 1 {
                    let ran = batch[0].run(db, false)
                    soleFailure = ran.failure
                    asked = ran.collected
                    collected = [ran.answer]
                } else if let together = try? Self.runTogether(batch, db: db) {
                    (collected, asked) = together
                } else {
                    // A write failed (or the shared savepoint did): with the batch undone, each
                    // write runs again in a savepoint of its own, so only the failing one fails,
                    // and every caller gets an answer.
                    collected = batch.map { waiting in
                        let ran = waiting.run(db, true)
                        asked += ran.collected
                        return ran.answer
                    }
                }
                answers.list.withLock { $0 = collected }
                let hooks = asked.hooks
                // The batch's final hooks, in order, run by GRDB right after the COMMIT (on this
                // queue, before the completion answers the callers); dropped when it rolls back.
                // Hooks are collected per write first (``collectingHooks(_:)``), not handed to
                // GRDB as each write asks: a write of a shared savepoint that was rolled back and
                // run again would otherwise hook twice, and GRDB's hooks cannot be taken back.
                if !hooks.isEmpty {
                    let committed = hooks
                    db.afterNextTransaction(onCommit: { _ in for hook in committed { hook() } })
                }
                // A lone write that failed has no savepoint: rolling the transaction back undoes
                // its partial changes.
                if let soleFailure { throw soleFailure }
                // The writes are final: what they staged is written once, for all of them.
                if !asked.staged.isEmpty { try beforeCommit(db, asked.staged) }
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
                for answer in answers.list.withLock({ $0 }) { answer(failure) }
                let more = queue.withLock { queue -> Bool in
                    queue.writing = !queue.waiting.isEmpty
                    return queue.writing
                }
                if more { writeBatch() }
            })
    }

    /// Runs the writes of `batch` one after another in one savepoint; returns their answers and
    /// what they asked for, or `nil` with the savepoint rolled back when one of them failed.
    private static func runTogether(
        _ batch: [Waiting], db: Database
    ) throws -> ([@Sendable ((any Error)?) -> Void], Collected)? {
        // Runs one write after the other, with nothing that could throw between them, so a
        // throw here comes from the savepoint itself.
        var answers: [@Sendable ((any Error)?) -> Void] = []
        var asked = Collected()
        answers.reserveCapacity(batch.count)
        var failed = false
        try db.inSavepoint {
            for waiting in batch {
                let ran = waiting.run(db, false)
                if ran.failure != nil {
                    failed = true
                    return .rollback
                }
                answers.append(ran.answer)
                asked += ran.collected
            }
            return .commit
        }
        return failed ? nil : (answers, asked)
    }

    /// The callers of one batch, handed from the transaction to its completion.
    private final class BatchAnswers: Sendable {
        let list = Mutex<[@Sendable ((any Error)?) -> Void]>([])
        /// Whether the transaction took its batch from the queue.
        let taken = Atomic<Bool>(false)
    }
}
