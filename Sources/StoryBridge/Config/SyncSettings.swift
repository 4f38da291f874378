import Foundation

/// The config file's `sync` section: serve's built-in sync (`serve --sync-every` and friends,
/// which win over these).
///
/// ```json
/// "sync": {"every": "15m", "window": "01:00-05:00", "limitRate": "2M"}
/// ```
package struct SyncSettings: Sendable, Hashable, Codable {
    /// How often serve syncs the library (`none`, or absent, for never).
    package var every: TimeLimit?
    /// The hours when packages may download, `HH:MM-HH:MM` in local time.
    package var window: String?
    /// The download speed limit, as `--limit-rate` writes it (`2M`).
    package var limitRate: String?
    /// Earlier revisions of each presentation kept on disk for `storybridge rollback` (default 1).
    package var keepRevisions: Int?

    package init(every: TimeLimit? = nil, window: String? = nil, limitRate: String? = nil, keepRevisions: Int? = nil) {
        self.every = every
        self.window = window
        self.limitRate = limitRate
        self.keepRevisions = keepRevisions
    }
}
