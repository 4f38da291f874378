import Foundation
import HTTPTypes
import Hummingbird
import StoryBridge

/// Why a request path cannot be served from a presentation folder.
enum ContentPathError: Error, Equatable {
    case traversal(String)
    case notFound(String)
}

extension ContentPathError: HTTPResponseError {
    var status: HTTPResponse.Status {
        switch self {
        case .traversal: return .forbidden
        case .notFound: return .notFound
        }
    }

    var message: String {
        switch self {
        case .traversal(let path): return "Refused: '\(path)' leaves the presentation folder"
        case .notFound(let path): return "Not found: '\(path)'"
        }
    }

    func response(from request: Request, context: some RequestContext) -> Response {
        .text(status, message)
    }
}

/// Maps the part of a URL path below `/p/<id>/` to a file inside a presentation folder, refusing
/// anything that could leave it: `..` and `.` segments, encoded slashes or backslashes, NUL bytes,
/// and symbolic links that resolve outside the folder.
struct ContentPath {
    /// The decoded path relative to the presentation root, with `/` separators.
    let relative: String
    /// The file on disk, symbolic links resolved.
    let file: URL
    /// Its size and modification time, read when the path was resolved.
    let status: FileStatus

    /// A path as it appears in the URL, percent-encoded.
    init(rawRelativePath raw: String, root: URL) throws(ContentPathError) {
        try self.init(decodedRelativePath: try Self.decode(raw), root: root)
    }

    /// `raw` percent-decoded, refusing (without touching the disk) what could only be an attempt
    /// to leave the folder: encoded slashes, backslashes or NUL bytes, and `.` or `..` segments.
    @discardableResult
    static func decode(_ raw: String) throws(ContentPathError) -> String {
        guard !Self.hasEncodedSeparator(raw) else { throw .traversal(raw) }
        guard let decoded = raw.removingPercentEncoding, !Self.hasBackslashOrNul(decoded) else {
            throw .traversal(raw)
        }
        guard !decoded.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { throw .traversal(raw) }
        return decoded
    }

    /// A path already percent-decoded.
    ///
    /// Links are resolved by `realpath(3)` and the file's kind read by one `stat` (``FileStatus``):
    /// a slide's HTML resolves every file it links this way, so this is on the path of each slide
    /// load (Foundation's `resolvingSymlinksInPath` and `standardizedFileURL` cost about ten times
    /// as much).
    init(decodedRelativePath decoded: String, root: URL) throws(ContentPathError) {
        guard !Self.hasBackslashOrNul(decoded) else { throw .traversal(decoded) }
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            guard segment != "..", segment != "." else { throw .traversal(decoded) }
            segments.append(segment)
        }
        let relative = segments.isEmpty ? "index.html" : segments.joined(separator: "/")
        // Nothing there (or a link that leads nowhere): not found, wherever it would lead.
        guard let rootPath = Self.realPath(root.path), let resolved = Self.realPath(rootPath + "/" + relative) else {
            throw .notFound(relative)
        }
        guard resolved == rootPath || resolved.hasPrefix(rootPath + "/") else { throw .traversal(decoded) }
        guard let status = FileStatus(path: resolved), !status.isDirectory else { throw .notFound(relative) }
        self.relative = relative
        self.file = URL(fileURLWithPath: resolved, isDirectory: false)
        self.status = status
    }

    /// `path` with every symbolic link resolved and no `.`, `..` or repeated `/`, or nil when
    /// something on it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `raw` holds `%2F`, `%5C` or `%00` (any letter case): an encoded separator or NUL.
    private static func hasEncodedSeparator(_ raw: String) -> Bool {
        let bytes = Array(raw.utf8)
        guard bytes.count >= 3 else { return false }
        for index in 0..<(bytes.count - 2) where bytes[index] == UInt8(ascii: "%") {
            switch (bytes[index + 1], bytes[index + 2] | 0x20) {
            case (UInt8(ascii: "2"), UInt8(ascii: "f")), (UInt8(ascii: "5"), UInt8(ascii: "c")), (UInt8(ascii: "0"), UInt8(ascii: "0")):
                return true
            default:
                continue
            }
        }
        return false
    }

    /// Whether `text` holds a backslash or a NUL byte.
    private static func hasBackslashOrNul(_ text: String) -> Bool {
        text.utf8.contains { $0 == UInt8(ascii: "\\") || $0 == 0 }
    }

    /// Whether the file is a slide (a root `*.html`), which gets the client script injected.
    var isSlide: Bool { !relative.contains("/") && relative.hasSuffix(".html") }
}
