import Foundation

/// The config file's `trust` section: signed packages on a kiosk (docs/design/TRUST.md 2.1).
///
/// ```json
/// "trust": {"rootFile": "/etc/storybridge/root.pub.json", "requireSigned": true}
/// ```
package struct TrustSettings: Sendable, Hashable, Codable {
    /// The pinned root's public key file; when set it wins over `trust/root.pub.json` in the data
    /// folder (and `storybridge trust add` refuses, naming it). A root-owned file here keeps a
    /// kiosk-user compromise from swapping the root.
    package var rootFile: String?
    /// Refuse unsigned packages (as `sync --require-signed`).
    package var requireSigned: Bool?

    package init(rootFile: String? = nil, requireSigned: Bool? = nil) {
        self.rootFile = rootFile
        self.requireSigned = requireSigned
    }
}
