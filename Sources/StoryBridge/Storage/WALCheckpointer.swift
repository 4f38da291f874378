import GRDB
import Logging

/// Copies the write-ahead log back into the database file from a connection of its own, in the
/// background, so that no write waits for it.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the log past 1,000 pages, and
/// that write's caller waits for it: on the development machine a sequential write took 3 to 4 ms
/// instead of 0.2, once every 800 or so (docs/BENCHMARKS.md). The host's connections are opened
/// with the automatic checkpoint off, and this checkpointer looks every ``interval`` whether
/// another connection has committed (SQLite's `data_version`) and, if so, runs a passive
/// checkpoint: it copies what it can without waiting for readers or writers, and writers go on
/// appending to the log meanwhile. A committed write is in the log whether or not it has been
/// copied yet, so a killed process loses nothing. The checkpointer's connection is closed before
/// the database's own (``close()``), so the last of those copies the rest and removes the log.
final class WALCheckpointer: Sendable {
    /// How many pages the log held, and how many of them are now in the database file.
    struct Outcome: Sendable, Equatable {
        let logPages: Int
        let copiedPages: Int
    }

    /// How often the checkpointer looks for new commits.
    static let interval = Duration.milliseconds(250)

    private let connection: DatabaseQueue

    /// Opens the checkpointer's own connection to the database at `path`, which must exist and be
    /// in WAL mode.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "WALCheckpointer"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Runs a passive checkpoint now, on the checkpointer's connection (off the caller's
    /// cooperative thread: GRDB runs it on the connection's queue).
    @discardableResult
    func checkpoint() async throws -> Outcome {
        try await connection.writeWithoutTransaction { db in try Self.checkpoint(db) }
    }

    private static func checkpoint(_ db: Database) throws -> Outcome {
        let result = try db.checkpoint(.passive)
        return Outcome(logPages: result.walFrameCount, copiedPages: result.checkpointedFrameCount)
    }

    /// Closes the checkpointer's connection, after the checkpoint in progress if there is one. The
    /// database's own connections close after it, and the last of them copies the rest of the log
    /// and removes it, as when there was no checkpointer.
    func close() {
        try? connection.close()
    }

    /// Checkpoints after every ``interval`` in which another connection committed, until the
    /// calling task is cancelled. A failing checkpoint is logged once per run of failures and
    /// tried again at the next look: the log keeps every write meanwhile. One that finds another
    /// checkpoint running (`SQLITE_BUSY`) or is interrupted by a closing connection is not a
    /// failure: it is tried again too.
    func run(logger: Logger) async {
        var seen: Int?
        var failing = false
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.interval)
                // One access per look: whether anything was committed since the last checkpoint,
                // and if so the checkpoint.
                let last = seen
                seen = try await connection.writeWithoutTransaction { db in
                    let version = try Int.fetchOne(db, sql: "PRAGMA data_version")
                    if version != last { _ = try Self.checkpoint(db) }
                    return version
                }
                failing = false
            } catch is CancellationError {
                return
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_INTERRUPT {
                // Another connection's checkpoint (another storybridge process on the same library,
                // or a connection closing) holds the checkpoint lock: it copies the log itself;
                // this one tries again after the next commit.
                logger.debug("database: checkpoint deferred", metadata: ["error": "\(error)"])
            } catch {
                // Cancelled and closed while a look was under way: not a failure.
                if Task.isCancelled { return }
                if !failing {
                    logger.warning("database: cannot copy the write-ahead log into the database file", metadata: ["error": "\(error)"])
                }
                failing = true
            }
        }
    }
}
