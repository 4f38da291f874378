import Foundation
import StoryBridge
import Synchronization

/// Style sheets named by version, with the files they name (docs/PROTOCOL.md §1.3). A style sheet's
/// version is its own (``VersionedFiles/version(size:modified:)``) followed by a hash of the
/// versions of the files it names (``StyleSheetReferences``: fonts, images, imported style sheets,
/// whose own versions cover theirs in turn). A slide links it by that version; asked for by it, the
/// host answers the style sheet with `?v=VERSION` after each of those URLs, `immutable`. So a font a
/// style sheet names is kept by the browser from slide to slide, as a plain static server's is,
/// and a changed font changes the style sheet's URL as well as its own: nothing stale is used.
enum VersionedStyleSheets {
    /// The largest style sheet whose references are named by version; a larger one is named by
    /// its own version only.
    static let maxBytes = 2 << 20
    /// How deep imported style sheets are followed (an import cycle ends here).
    static let maxDepth = 4

    /// A style sheet's own version, and each file it names that exists, with that file's version.
    struct Named {
        let own: String
        let references: [(reference: StyleSheetReferences.Reference, version: String)]

        /// The version the slides name the style sheet by.
        var version: String {
            guard !references.isEmpty else { return own }
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for (reference, version) in references {
                for byte in (reference.url + "=" + version + ";").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            return own + "-" + String(hash, radix: 36)
        }
    }

    /// The references of each style sheet read, by path, while its own version stays the same.
    private static let parsed = Mutex<[String: (own: String, references: [StyleSheetReferences.Reference])]>([:])
    /// How many style sheets' references are kept.
    private static let keptAtMost = 512

    /// The style sheet at `relative` (a plain path inside `root`) with the files it names, or nil
    /// when it is not a file of the presentation. Reads the disk: run it on the blocking pool.
    static func named(_ relative: String, root: URL, depth: Int = 0) -> Named? {
        guard let file = try? ContentPath(rawRelativePath: relative, root: root) else { return nil }
        let own = VersionedFiles.version(of: file)
        var named: [(reference: StyleSheetReferences.Reference, version: String)] = []
        for reference in references(of: file.file, own: own) {
            guard let target = resolve(reference.url, from: relative) else { continue }
            let version: String?
            if depth < maxDepth, target.lowercased().hasSuffix(".css") {
                version = Self.named(target, root: root, depth: depth + 1)?.version
            } else {
                version = (try? ContentPath(rawRelativePath: target, root: root)).map { VersionedFiles.version(of: $0) }
            }
            if let version { named.append((reference, version)) }
        }
        return Named(own: own, references: named)
    }

    /// `css` with `?v=VERSION` after each URL of `named`.
    static func rewritten(_ css: [UInt8], _ named: Named) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(css.count + named.references.count * 24)
        var copied = 0
        for (reference, version) in named.references where reference.range.upperBound <= css.count {
            result.append(contentsOf: css[copied..<reference.range.upperBound])
            result.append(contentsOf: Array(("?v=" + version).utf8))
            copied = reference.range.upperBound
        }
        result.append(contentsOf: css[copied...])
        return result
    }

    /// `url` resolved against the folder of the file at `relative`: a plain path inside the
    /// presentation, or nil when it climbs out of it.
    static func resolve(_ url: String, from relative: String) -> String? {
        var parts = relative.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
        for part in url.split(separator: "/", omittingEmptySubsequences: false) {
            switch part {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            case "": return nil
            default: parts.append(String(part))
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }

    /// The references of the style sheet at `file`, read once per version of it.
    private static func references(of file: URL, own: String) -> [StyleSheetReferences.Reference] {
        if let kept = parsed.withLock({ $0[file.path] }), kept.own == own { return kept.references }
        guard let data = try? Data(contentsOf: file), data.count <= maxBytes else { return [] }
        let found = StyleSheetReferences.references(in: [UInt8](data))
        parsed.withLock { parsed in
            if parsed.count >= keptAtMost { parsed.removeAll() }
            parsed[file.path] = (own, found)
        }
        return found
    }
}
