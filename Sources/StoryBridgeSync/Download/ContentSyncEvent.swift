/// What a content sync reports as it goes, for progress displays.
package enum ContentSyncEvent: Sendable {
    /// The run will fetch `packages` packages, `totalBytes` in all (`onDiskBytes` of them already
    /// here from interrupted downloads).
    case planned(packages: Int, totalBytes: Int64, onDiskBytes: Int64)
    /// A package starts (or resumes, from `onDisk` bytes).
    case started(presentationId: Int, name: String, size: Int64, onDisk: Int64)
    /// A package is updated as a delta of the installed revision: `fetching` bytes of its
    /// `packageSize` are requested (progress events then count the fetched bytes).
    case delta(presentationId: Int, name: String, fetching: Int64, packageSize: Int64)
    /// A delta update is not possible (`reason`); the whole package is downloaded.
    case deltaDeclined(presentationId: Int, reason: String)
    /// Bytes of a package on disk so far.
    case progress(presentationId: Int, bytesOnDisk: Int64)
    /// The package is verified and being unpacked and installed.
    case installing(presentationId: Int)
    /// The package is installed (`revision` of the package).
    case installed(presentationId: Int, revision: Int)
    /// The package failed; an installed older revision, if any, stays.
    case failed(presentationId: Int, error: SyncError)
}
