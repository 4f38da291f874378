import Foundation
import GRDB

/// A presentation rolled back and pinned (`revisionPin`): sync leaves it on the revision it
/// serves until `storybridge unpin` or until the service offers a package newer than the one it
/// was rolled back from.
package struct RevisionPin: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "revisionPin"
    package var presentationId: Int
    /// The library revision (and package revision, when synced) pinned.
    package var revision: Int
    package var packageRevision: Int?
    /// The revision served before the first rollback of this pin.
    package var rolledBackFromRevision: Int
    package var rolledBackFromPackageRevision: Int?
    package var pinnedAt: Date

    /// Whether an offered package revision lifts the pin: it is newer than the one rolled back from.
    package func isLifted(byOfferedPackageRevision offered: Int?) -> Bool {
        guard let offered, let from = rolledBackFromPackageRevision else { return false }
        return offered > from
    }

    /// Every pin, by presentation id.
    package static func all(_ db: Database) throws -> [Int: RevisionPin] {
        Dictionary(uniqueKeysWithValues: try RevisionPin.fetchAll(db).map { ($0.presentationId, $0) })
    }
}

/// Why a rollback or unpin was refused.
package enum RollbackError: Error, Sendable, Equatable, CustomStringConvertible {
    case notInstalled(Int)
    case noEarlierRevision(Int)
    case notPinned(Int)
    case storage(String)

    package var description: String {
        switch self {
        case .notInstalled(let id): return "no presentation with id \(id) is installed"
        case .noEarlierRevision(let id):
            return "presentation \(id) has no earlier revision kept on disk (see --keep-revisions)"
        case .notPinned(let id): return "presentation \(id) is not pinned"
        case .storage(let reason): return "library storage failed: \(reason)"
        }
    }
}

/// What a rollback did.
package struct RollbackOutcome: Sendable, Hashable {
    package var presentationId: Int
    /// The library (and package) revision served before and after.
    package var fromRevision: Int
    package var fromPackageRevision: Int?
    package var toRevision: Int
    package var toPackageRevision: Int?
}
