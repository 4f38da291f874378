import Foundation
import GRDB
import StoryBridge

/// The fleet hub's own database, `content-server/hub.sqlite` in the data folder
/// (docs/design/FLEET.md §5.6): a GRDB `DatabasePool` in WAL mode with a 10 s busy timeout, apart
/// from the library's database so that the hub's writes never contend with installs.
///
/// The `content-server device …` commands and a running hub open the same file with the same
/// migrations; either may run while the other does, and several first opens at once take turns
/// at the migrations.
package final class HubDatabase: Sendable {
    /// The pool.
    package let pool: DatabasePool
    /// The database file.
    package let file: URL

    /// How long a writer waits for another one.
    static let busyTimeout: TimeInterval = 10

    /// `content-server/hub.sqlite` of `directory`.
    package static func file(in directory: DataDirectory) -> URL {
        directory.root.appendingPathComponent("content-server/hub.sqlite")
    }

    /// Opens (creating and migrating as needed) the hub database of `directory`.
    package init(directory: DataDirectory) throws(HubStoreError) {
        let file = Self.file(in: directory)
        self.file = file
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create the folder \(file.deletingLastPathComponent().path): \(SystemProblem(error))")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "storybridge.hub"
        do {
            pool = try DatabasePool(path: file.path, configuration: configuration)
            try Self.migrator.migrateTakingTurns(pool, file: file)
        } catch {
            throw .storage("cannot open the hub database \(file.path): \(error)")
        }
    }

    /// The hub's migrations, each in its own file.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-fleet", migrate: HubFleetSchema.create)
        migrator.registerMigration("v2-history", migrate: HubHistorySchema.create)
        migrator.registerMigration("v3-admin-sessions", migrate: HubSessionSchema.create)
        migrator.registerMigration("v4-webhooks", migrate: HubWebhookSchema.create)
        migrator.registerMigration("v5-checkpoints", migrate: HubCheckpointSchema.create)
        migrator.registerMigration("v6-screenshots", migrate: HubScreenshotSchema.create)
        return migrator
    }
}

/// Why a device could not be added, listed, revoked or verified.
package enum HubStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The hub database could not be opened, read or written.
    case storage(String)
    /// A name, label or other input that is not allowed (the reason names it).
    case invalid(String)
    /// A device not revoked already has this name.
    case nameTaken(String)
    /// No device has this name or id.
    case unknownDevice(String)
    /// The device is revoked already.
    case alreadyRevoked(String)

    /// What is wrong, in words.
    package var description: String {
        switch self {
        case .storage(let reason): reason
        case .invalid(let reason): reason
        case .nameTaken(let name): "a device named \"\(name)\" exists already (revoke it first, or choose another name)"
        case .unknownDevice(let what): "no device has the name or id \"\(what)\" (see `content-server device list`)"
        case .alreadyRevoked(let what): "the device \"\(what)\" is revoked already"
        }
    }

    /// The command's exit status: 74 storage, 65 everything else (bad input).
    package var exitStatus: Int32 {
        if case .storage = self { return 74 }
        return 65
    }
}
