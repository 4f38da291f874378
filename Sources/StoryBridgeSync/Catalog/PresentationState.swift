/// Where a synced presentation stands on this machine.
package enum PresentationState: String, Codable, Sendable, CaseIterable {
    /// Known from the service, no content here yet.
    case notDownloaded
    /// Installed, and the service has a newer package revision.
    case updateAvailable
    /// A download or install is under way (or was interrupted; the next sync resumes it).
    case downloading
    /// The installed package is the service's current one.
    case ready
    /// The last download or install failed; `lastError` says why. An installed older revision,
    /// if any, is still served.
    case failed
    /// Gone from the service (no longer listed, or answered 204/404): off the launcher, still on
    /// disk, removed once it stays gone for the removal grace period (or by `sync --prune`).
    case withdrawn

    /// As `sync --status` prints it.
    package var label: String {
        switch self {
        case .notDownloaded: return "not downloaded"
        case .updateAvailable: return "update available"
        case .downloading: return "downloading"
        case .ready: return "ready"
        case .failed: return "failed"
        case .withdrawn: return "withdrawn"
        }
    }
}
