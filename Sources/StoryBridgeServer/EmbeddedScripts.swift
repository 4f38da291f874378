import Foundation

/// The host's own scripts, served under the reserved path: `client.js` (injected into every slide)
/// and `storyclm.js` (the project's StoryCLM API implementation). They are compiled in from `js/`
/// by the EmbedScripts build plugin.
enum EmbeddedScripts {
    /// Script file name → contents.
    static let all: [String: String] = EmbeddedScriptSources.base64.compactMapValues { encoded in
        Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) }
    }
}
