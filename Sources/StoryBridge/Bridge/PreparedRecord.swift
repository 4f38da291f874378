import GRDB

/// What a recording command (``BridgeCommand/recording(_:deadline:handler:)``) hands the router
/// for one request: the single database write the request makes, and the answer's `Data` once
/// that write has committed.
///
/// The router commits the records one page sends together (consecutive recording requests
/// waiting in the page's queue) as one write of the database's group commit: one hand-over to
/// the writer and one commit for all of them, instead of one each. Each is answered in the order
/// sent, only after the transaction holding it has committed. A record whose write throws fails
/// alone: the others are written again without it.
public struct PreparedRecord: Sendable {
    /// The database the record is written to.
    public let database: StoryBridgeDatabase
    /// The `Data` of the `Success` answer, sent once the write has committed.
    public let data: JSONValue
    /// The write. It runs at most twice (again after another record of its transaction threw),
    /// each time from the same database state, so it must change nothing outside the database except
    /// through ``StoryBridgeDatabase/afterCommit(_:_:)``.
    public let updates: @Sendable (Database) throws -> Void

    /// A record written by `updates` to `database`, answered with `data` once committed.
    public init(database: StoryBridgeDatabase, data: JSONValue = .emptyObject, updates: @escaping @Sendable (Database) throws -> Void) {
        self.database = database
        self.data = data
        self.updates = updates
    }
}
