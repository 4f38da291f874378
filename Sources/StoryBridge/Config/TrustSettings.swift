import Foundation

/// The config file's `trust` section: signed packages on a kiosk (docs/design/TRUST.md 2.1).
///
/// ```json
/// "trust": {"rootFile": "/etc/storybridge/root.pub.json", "requireSigned": true, "verifyEvery": "6h"}
/// ```
package struct TrustSettings: Sendable, Hashable, Codable {
    /// The pinned root's public key file; when set it wins over `trust/root.pub.json` in the data
    /// folder (and `storybridge trust add` refuses, naming it). A root-owned file here keeps a
    /// kiosk-user compromise from swapping the root.
    package var rootFile: String?
    /// Refuse unsigned packages (as `sync --require-signed`).
    package var requireSigned: Bool?
    /// How often `serve` of the library checks the served decks' files (`storybridge verify` in
    /// the background); default 6 hours, `none` or 0 turns it off.
    package var verifyEvery: TimeLimit?

    package init(rootFile: String? = nil, requireSigned: Bool? = nil, verifyEvery: TimeLimit? = nil) {
        self.rootFile = rootFile
        self.requireSigned = requireSigned
        self.verifyEvery = verifyEvery
    }

    /// The interval of serve's verification: `verifyEvery`, else 6 hours; `nil` when off.
    package var verifyInterval: Duration? {
        guard let every = verifyEvery else { return .seconds(6 * 3600) }
        guard let duration = every.duration, duration > .zero else { return nil }
        return duration
    }
}
