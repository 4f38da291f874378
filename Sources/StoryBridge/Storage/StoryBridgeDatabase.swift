import Foundation
import GRDB
import Logging

/// The host's SQLite database (WAL mode, checkpointed in the background, versioned migrations):
/// the presentation catalog, and the analytics records.
///
/// Writes through ``write(_:)`` share transactions (group commit) and reads through ``read(_:)``
/// share read accesses (group read); both run on GRDB's own queues, never on the caller's thread,
/// so a caller that waits for the database (another process's write lock, up to the 10 s busy
/// timeout) only suspends. The writer connection is `synchronous = FULL`: a commit returns once
/// the write-ahead log holding it is synced, so every answered write survives a power loss (one
/// sync covers every write of a group commit).
public final class StoryBridgeDatabase: Sendable {
    /// The connection pool.
    package let pool: DatabasePool
    /// The database file.
    public let file: URL
    /// Whether writes succeed; see ``write(_:)``.
    package let health = StorageHealth()
    /// The decks of sessions, for the audit entries of their writes.
    let auditDecks = AuditDeckCache()
    /// What the host set up for the audit log: checkpoint key and interval, head file.
    package let auditLog: AuditLogState
    /// Puts the writes that arrive together into one transaction, which ends with one audit entry
    /// for the parts its writes staged (``stageAuditPart(_:)``).
    private let groupCommit: GroupCommit<AuditPart>
    /// Puts the reads that arrive together into one read access.
    private let groupRead: GroupRead
    /// Copies the write-ahead log into the database file in the background (``WALCheckpointer``);
    /// `nil` when its connection could not be opened, and SQLite's own checkpoint does it instead.
    private let checkpointer: WALCheckpointer?
    /// The checkpointer's loop, cancelled when the database is released.
    private let checkpointing: Task<Void, Never>?

    /// How long a connection waits for a lock another process holds before it fails, in seconds.
    static let busyTimeout: TimeInterval = 10

    /// Opens the pool, again while SQLITE_BUSY for up to the busy timeout: two openers turning a new
    /// file to WAL at once (`serve` and `sync` on a new folder) deadlock, which SQLite ends at once.
    static func openPool(_ path: String, _ configuration: Configuration) throws -> DatabasePool {
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do { return try DatabasePool(path: path, configuration: configuration) } catch let error as DatabaseError
                where error.resultCode == .SQLITE_BUSY && Date() < deadline
            { usleep(20_000) }
        }
    }

    /// Opens (creating if needed) the database at `file` and brings its schema up to date.
    /// `maxPageCount` caps the file's size in pages (SQLite's `PRAGMA max_page_count`): a write
    /// past it fails as ``StorageError/full(path:)``, as on a full disk. The write-ahead log is
    /// copied into the file in the background (``WALCheckpointer``), never by a commit; `logger`
    /// hears when that cannot be done.
    public init(file: URL, maxPageCount: Int? = nil, logger: Logger = Logger(label: "storybridge")) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(Self.busyTimeout)
        if let maxPageCount {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)") }
        }
        // No commit waits for a checkpoint: the checkpointer's connection makes them (below).
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        self.file = file
        pool = try Self.openPool(file.path, configuration)
        // After the pool is open: GRDB sets its WAL connections to NORMAL (no sync at commit) when it
        // opens them. The writer is the pool's only connection that commits, and it lasts as long
        // as the pool; readers commit nothing and stay NORMAL.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let auditLog = AuditLogState()
        self.auditLog = auditLog
        // The transaction's before-commit step: one entry for every write's part, written once the
        // batch's writes are final; its after-commit work (the head file) is the transaction's.
        groupCommit = GroupCommit(pool: pool) { db, parts in
            try AuditLog.commit(db, parts: parts, state: auditLog) { hook in db.afterNextTransaction(onCommit: { _ in hook() }) }
        }
        groupRead = GroupRead(pool: pool)
        let openedPool = pool
        try PhaseTiming.measure("database migrations checked") { try Self.migrator.migrateTakingTurns(openedPool, file: file) }
        do {
            let checkpointer = try WALCheckpointer(path: file.path)
            self.checkpointer = checkpointer
            checkpointing = Task.detached(priority: .utility) { await checkpointer.run(logger: logger) }
        } catch {
            logger.warning(
                "database: no connection for background checkpoints; commits make them", metadata: ["error": "\(error)"])
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 1000") }
            checkpointer = nil
            checkpointing = nil
        }
    }

    deinit {
        // Before the pool's connections close (after this), so that the last of them copies the
        // rest of the log into the file and removes it.
        checkpointing?.cancel()
        checkpointer?.close()
    }

    /// Copies the write-ahead log into the database file now, as the background checkpointer does
    /// every quarter second after a commit; returns the log's pages and how many are in the file.
    /// `nil` when there is no background checkpointer (SQLite checkpoints in the commits then).
    func checkpointNow() async throws -> WALCheckpointer.Outcome? {
        try await checkpointer?.checkpoint()
    }

    /// Runs `updates` in a write transaction and returns once that transaction has committed.
    /// Writes that arrive while another transaction is being written share the next transaction
    /// (group commit): one that throws undoes only its own changes. `updates` runs at most twice in
    /// its transaction (when a write queued with it throws, the others run again, each in a savepoint
    /// of its own), so it must change nothing outside the database except through ``afterCommit(_:_:)``.
    /// A failure of the storage (disk full, size limit,
    /// read-only file, I/O error) is thrown as a ``StorageError`` and reported to ``health``, once
    /// per episode; the first write that succeeds afterwards ends the episode. Other errors are
    /// thrown as they are.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            let result = try await groupCommit.write(updates)
            health.writeSucceeded()
            return result
        } catch {
            throw reported(error)
        }
    }

    /// `error` as a write's caller gets it: a failure of the storage as a ``StorageError``, reported
    /// to ``health``; anything else as it is.
    private func reported(_ error: any Error) -> any Error {
        guard let storage = StorageError.from(error, path: file.path) else { return error }
        health.writeFailed(storage)
        return storage
    }

    /// Runs `updates` in a write transaction of its own, outside the group commit, and returns its
    /// result once it has committed: for writes that must not share a transaction, such as a
    /// presentation's catalog rows when it is installed. It blocks the calling thread (for the
    /// synchronous library commands); from async code use the asynchronous form.
    public func writeSeparately<T>(_ updates: (Database) throws -> T) throws -> T {
        try pool.write(updates)
    }

    /// Runs `updates` in a write transaction of its own, outside the group commit, without
    /// blocking the caller's thread while it waits for the writer: the asynchronous form of the
    /// synchronous `writeSeparately(_:)`.
    public func writeSeparately<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.write(updates)
    }

    /// Queues independent writes together as writes of the group commit (one hand-over to the
    /// writer, one commit) and returns each one's outcome, in order, once their transaction has
    /// committed. Each is a write of its own, as through ``write(_:)``: one that throws fails
    /// alone, and each runs at most twice. Storage failures are reported as by ``write(_:)``.
    package func writeEach(_ writes: [@Sendable (Database) throws -> Void]) async -> [Result<Void, any Error>] {
        let outcomes = await groupCommit.writeEach(writes).map { $0.mapError(reported) }
        if outcomes.contains(where: { (try? $0.get()) != nil }) { health.writeSucceeded() }
        return outcomes
    }

    /// The one way a write reaches memory (``SessionMirror``, ``CustomEventCache``): from inside the
    /// `updates` of ``write(_:)`` or ``writeEach(_:)``, runs `hook` once the transaction holding the
    /// write has committed, before its callers are answered, in commit order (on GRDB's writer
    /// queue: keep it short). Not run when the write fails (a run undone by its savepoint drops its
    /// hooks, so a write that runs twice hooks once) or the commit does. Inside any other write
    /// transaction of the pool it runs after that transaction commits (GRDB's
    /// `afterNextTransaction`).
    public func afterCommit(_ db: Database, _ hook: @escaping @Sendable () -> Void) {
        if !groupCommit.afterCommit(hook) { db.afterNextTransaction(onCommit: { _ in hook() }) }
    }

    /// From inside the `updates` of ``write(_:)`` or ``writeEach(_:)``: keeps `part` for the one
    /// audit entry the write's transaction ends with (dropped when the write fails, kept once when
    /// it runs twice). Returns false outside a write of the group commit, where the caller appends
    /// its entry at once.
    func stageAuditPart(_ part: AuditPart) -> Bool {
        groupCommit.stage(part)
    }

    /// Runs `value` in a read-only transaction that sees every write committed before the call.
    /// Reads that arrive together share one transaction on one reader connection (group read).
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await groupRead.read(value)
    }

    /// How many writes wait for the next group-commit transaction.
    var writesWaiting: Int { groupCommit.waitingCount }

    /// The schema versions applied so far, in order.
    package func appliedMigrations() throws -> [String] {
        try pool.read { db in try Self.migrator.appliedMigrations(db) }
    }
}
