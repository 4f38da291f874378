import Foundation
import GRDB

/// A client of the account (`syncClient`).
public struct SyncedClient: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "syncClient"
    public var id: Int
    public var name: String
    public var shortDescription: String
    public var syncedAt: Date
}

/// A presentation the service offers (`syncPresentation`), with its local state.
public struct SyncedPresentation: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "syncPresentation"
    public var id: Int
    public var clientId: Int
    public var name: String
    public var shortDescription: String
    public var longDescription: String
    public var sortOrder: Int
    /// The revision the client list reports.
    public var listedRevision: Int
    /// The revision of the presentation object last fetched; nil before the first fetch.
    public var fetchedRevision: Int?
    public var skip: Bool
    public var debug: Bool
    public var lockout: Bool
    public var visibility: Bool
    public var needConfirmation: Bool
    public var mapEnabled: Bool
    /// JSON array of the ids of presentations this one needs.
    public var dependencies: String
    public var packageId: Int?
    /// The package (`sourcesFolder`) revision the service offers.
    public var packageRevision: Int?
    public var packageBlobId: String?
    /// The package size the service declares, in bytes.
    public var packageSize: Int64?
    /// The package revision installed in the library; nil when no content is here.
    public var installedRevision: Int?
    /// The presentation revision at the time of that install.
    public var installedPresentationRevision: Int?
    public var state: PresentationState
    public var lastError: String?
    public var updatedAt: Date
    /// When the presentation was first seen gone from the service (state `withdrawn`).
    public var withdrawnAt: Date?
    /// Which part of a sync failed: ``FailureStage``'s raw value.
    public var failedDuring: String?
    /// A warning kept with the installed package (its size differed from the declared one).
    public var warning: String?
    /// The package object (`sourcesFolder.id`) installed.
    public var installedPackageId: Int?

    /// The part of a sync a failure happened in.
    public enum FailureStage: String, Sendable {
        /// Fetching the presentation object: cleared by the next successful fetch.
        case metadata
        /// Downloading or installing the package: kept until the package changes or installs.
        case content
    }

    /// The state with its reason, as `sync --status` prints it.
    public var stateLabel: String {
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
public struct SyncedMediaFile: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "syncMediaFile"
    public var presentationId: Int
    public var id: Int
    public var revision: Int
    public var fileSize: Int64
}

/// A slide a presentation lists (`syncSlide`).
public struct SyncedSlide: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "syncSlide"
    public var presentationId: Int
    public var id: Int
    public var revision: Int
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
