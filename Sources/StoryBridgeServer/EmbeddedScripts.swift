import Crypto
import Foundation
import StoryBridge

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

    /// The source map of `client.js`, served at `/__storybridge/client.js.map` and named by the
    /// script's last line (`//# sourceMappingURL=client.js.map`): see ``sourceMap(of:named:)``.
    static let clientSourceMap: String? = all["client.js"].map { sourceMap(of: $0, named: "client.js") }

    /// A source map that maps each line of `text` (the script `name`) to itself and puts it on
    /// the browser's ignore list (`x_google_ignoreList`, and `ignoreList`, its standard name): a
    /// line the page logs through a wrapper of the script (the client forwards the page's
    /// console) is shown by DevTools at the page's own file and line, not at the wrapper. Made
    /// from the script the host serves when the host starts, so it cannot go stale.
    static func sourceMap(of text: String, named name: String) -> String {
        // One segment per line, at its first column: the first line maps to the source's first
        // line (`AAAA`: columns and indexes 0), each next one to the next source line (`AACA`).
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        let mappings = "AAAA" + String(repeating: ";AACA", count: max(lines - 1, 0))
        let map: JSONValue = [
            "version": 3, "file": .string(name), "sources": [.string(name)], "sourcesContent": [.string(text)],
            "names": [], "mappings": .string(mappings), "ignoreList": [0], "x_google_ignoreList": [0],
        ]
        return map.jsonString()
    }

    /// `/__storybridge/<name>?v=<version>`: the path slides load the script from.
    static func versionedPath(_ name: String) -> String {
        "/__storybridge/\(name)?v=\(versions[name] ?? "0")"
    }
}
