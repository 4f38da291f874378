import Foundation
import GRDB

/// A client of the account (`syncClient`).
package struct SyncedClient: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "syncClient"
    package var id: Int
    package var name: String
    package var shortDescription: String
    package var syncedAt: Date
}

/// A presentation the service offers (`syncPresentation`), with its local state.
package struct SyncedPresentation: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "syncPresentation"
    package var id: Int
    package var clientId: Int
    package var name: String
    package var shortDescription: String
    package var longDescription: String
    package var sortOrder: Int
    /// The revision the client list reports.
    package var listedRevision: Int
    /// The revision of the presentation object last fetched; nil before the first fetch.
    package var fetchedRevision: Int?
    package var skip: Bool
    package var debug: Bool
    package var lockout: Bool
    package var visibility: Bool
    package var needConfirmation: Bool
    package var mapEnabled: Bool
    /// JSON array of the ids of presentations this one needs.
    package var dependencies: String
    package var packageId: Int?
    /// The package (`sourcesFolder`) revision the service offers.
    package var packageRevision: Int?
    package var packageBlobId: String?
    /// The package size the service declares, in bytes.
    package var packageSize: Int64?
    /// The package revision installed in the library; nil when no content is here.
    package var installedRevision: Int?
    /// The presentation revision at the time of that install.
    package var installedPresentationRevision: Int?
    package var state: PresentationState
    package var lastError: String?
    package var updatedAt: Date
    /// When the presentation was first seen gone from the service (state `withdrawn`).
    package var withdrawnAt: Date?
    /// Which part of a sync failed: ``FailureStage``'s raw value.
    package var failedDuring: String?
    /// A warning kept with the installed package (its size differed from the declared one).
    package var warning: String?
    /// The package object (`sourcesFolder.id`) installed.
    package var installedPackageId: Int?

    /// The part of a sync a failure happened in.
    enum FailureStage: String, Sendable {
        /// Fetching the presentation object: cleared by the next successful fetch.
        case metadata
        /// Downloading or installing the package: kept until the package changes or installs.
        case content
    }

    /// The state with its reason, as `sync --status` prints it.
    package var stateLabel: String {
        if state == .failed, let lastError { return "failed (\(lastError))" }
        if state == .notDownloaded, fetchedRevision != nil, packageRevision == nil { return "not downloaded (no package)" }
        if state == .withdrawn, let withdrawnAt {
            return "withdrawn (gone from the service since \(ISO8601DateFormatter().string(from: withdrawnAt)))"
        }
        if let warning { return "\(state.label) (warning: \(warning))" }
        return state.label
    }
}

/// A media file a presentation lists (`syncMediaFile`).
package struct SyncedMediaFile: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "syncMediaFile"
    package var presentationId: Int
    package var id: Int
    package var revision: Int
    package var fileSize: Int64
}

/// A slide a presentation lists (`syncSlide`).
package struct SyncedSlide: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "syncSlide"
    package var presentationId: Int
    package var id: Int
    package var revision: Int
}

extension SyncedPresentation {
    /// The state that follows from what is installed and what the service offers: the package
    /// object (`sourcesFolder.id`) and its revision are both compared.
    var settledState: PresentationState {
        guard let installedRevision else { return .notDownloaded }
        guard let packageRevision else { return .ready }
        if let installedPackageId, let packageId, installedPackageId != packageId { return .updateAvailable }
        return installedRevision != packageRevision ? .updateAvailable : .ready
    }

    /// Whether the offered package differs from the installed one (or nothing is installed).
    var needsPackage: Bool {
        guard let packageRevision else { return false }
        if let installedPackageId, let packageId, installedPackageId != packageId { return true }
        return installedRevision != packageRevision
    }
}
