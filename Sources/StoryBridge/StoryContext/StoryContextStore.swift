import Foundation
import GRDB

/// The Story contexts in the host's database: per presentation and user, the objects that have
/// changed since their starting values. Each change is read, applied and written in one
/// transaction, so changes from pages, the CLI and the HTTP endpoint never overwrite each other.
package struct StoryContextStore: Sendable {
    let database: StoryBridgeDatabase
    let clock: any HostClock

    package init(database: StoryBridgeDatabase, clock: any HostClock = SystemHostClock()) {
        self.database = database
        self.clock = clock
    }

    /// A file next to the database that is replaced after every change of a context, by this
    /// process or another (`storybridge context set` while `serve` runs): its ``FileStamp`` tells
    /// a host that what it read before may be out of date, without reading the database.
    var changeStampPath: String { database.file.path + "-storycontext" }

    /// The stamp of the last change, `nil` before the first.
    var changeStamp: FileStamp? { FileStamp(path: changeStampPath) }

    /// The context of `presentationId` for `userId`: `definition`'s starting values with the
    /// stored objects over them. Stored objects the scheme no longer declares are left out.
    package func context(presentationId: Int, userId: String, definition: StoryContextDefinition) async throws -> StoryContext {
        try await database.read { db in
            try Self.read(db, presentationId: presentationId, userId: userId, definition: definition)
        }
    }

    /// Applies `changes` in order, each on its own: one the scheme forbids is refused and the
    /// others still apply. Returns the context after them and each change's outcome.
    package func apply(
        _ changes: [StoryChange], by writer: StoryWriter, presentationId: Int, userId: String,
        definition: StoryContextDefinition
    ) async throws -> StoryContextOutcome {
        let now = clock.now
        let outcome = try await database.write { db in
            var context = try Self.read(db, presentationId: presentationId, userId: userId, definition: definition)
            var refusals: [StoryContextError?] = []
            var changed: Set<String> = []
            for change in changes {
                do throws(StoryContextError) {
                    if try context.apply(change, by: writer) { changed.insert(change.address.objectName) }
                    refusals.append(nil)
                } catch {
                    refusals.append(error)
                }
            }
            for name in changed.sorted() {
                try StoredStoryObject(
                    presentationId: presentationId, userId: userId, objectName: name,
                    value: StoryContextJSON.text(context.objects[name] ?? .emptyObject), updated: now
                ).save(db)
            }
            return StoryContextOutcome(context: context, refusals: refusals, changed: !changed.isEmpty)
        }
        if outcome.changed { await markChanged() }
        return outcome
    }

    /// Forgets what changed in `presentationId`'s context for `userId`: it starts again from its
    /// starting values. Returns how many objects were reset.
    @discardableResult
    package func reset(presentationId: Int, userId: String) async throws -> Int {
        let count = try await database.write { db in
            try StoredStoryObject.filter(
                StoredStoryObject.CodingKeys.presentationId == presentationId && StoredStoryObject.CodingKeys.userId == userId
            ).deleteAll(db)
        }
        if count > 0 { await markChanged() }
        return count
    }

    /// Replaces the change stamp. When that fails (a read-only folder) a running host in another
    /// process shows the change only from its next start; this process keeps its own count.
    /// Written on the blocking pool (``BlockingIO``).
    private func markChanged() async {
        await BlockingIO.run { [changeStampPath] in try? FileStamp.touch(changeStampPath) }
    }

    private static func read(
        _ db: Database, presentationId: Int, userId: String, definition: StoryContextDefinition
    ) throws -> StoryContext {
        var context = definition.startingContext
        let rows = try StoredStoryObject.readAll(
            db, cachedSQL: "SELECT * FROM storyContextObject WHERE presentationId = ? AND userId = ?",
            arguments: [presentationId, userId])
        for row in rows where context.scheme[row.objectName] != nil {
            context.objects[row.objectName] = try row.object()
        }
        return context
    }
}

/// What applying changes did.
package struct StoryContextOutcome: Sendable {
    /// The context after the changes.
    package let context: StoryContext
    /// For each change, in order: `nil` when it applied, else why it was refused.
    package let refusals: [StoryContextError?]
    /// Whether any object changed.
    package let changed: Bool
}
