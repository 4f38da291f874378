import Crypto
import Foundation

/// The host's own scripts, served under the reserved path: `client.js` (injected into every slide)
/// and `storyclm.js` (the project's StoryCLM API implementation). They are compiled in from `js/`
/// by the EmbedScripts build plugin.
enum EmbeddedScripts {
    /// Script file name → contents.
    static let all: [String: String] = EmbeddedScriptSources.base64.compactMapValues { encoded in
        Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Script file name → a version of its contents (16 hex digits of its SHA-256). A URL that
    /// carries the current version (``versionedPath(_:)``) may be cached for good: another build
    /// of the host with other contents names another URL.
    static let versions: [String: String] = all.mapValues { text in
        SHA256.hash(data: Data(text.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// `/__storybridge/<name>?v=<version>`: the path slides load the script from.
    static func versionedPath(_ name: String) -> String {
        "/__storybridge/\(name)?v=\(versions[name] ?? "0")"
    }
}
