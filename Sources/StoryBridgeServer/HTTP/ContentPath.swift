import Foundation
import HTTPTypes
import Hummingbird

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

    /// A path as it appears in the URL, percent-encoded.
    init(rawRelativePath raw: String, root: URL) throws(ContentPathError) {
        try self.init(decodedRelativePath: try Self.decode(raw), root: root)
    }

    /// `raw` percent-decoded, refusing (without touching the disk) what could only be an attempt
    /// to leave the folder: encoded slashes, backslashes or NUL bytes, and `.` or `..` segments.
    @discardableResult
    static func decode(_ raw: String) throws(ContentPathError) -> String {
        let lowered = raw.lowercased()
        guard !lowered.contains("%2f"), !lowered.contains("%5c"), !lowered.contains("%00") else {
            throw .traversal(raw)
        }
        guard let decoded = raw.removingPercentEncoding, !decoded.contains("\\"), !decoded.contains("\0") else {
            throw .traversal(raw)
        }
        guard !decoded.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { throw .traversal(raw) }
        return decoded
    }

    /// A path already percent-decoded.
    init(decodedRelativePath decoded: String, root: URL) throws(ContentPathError) {
        guard !decoded.contains("\\"), !decoded.contains("\0") else { throw .traversal(decoded) }
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            guard segment != "..", segment != "." else { throw .traversal(decoded) }
            segments.append(segment)
        }
        let relative = segments.isEmpty ? "index.html" : segments.joined(separator: "/")
        let resolved = root.appendingPathComponent(relative).resolvingSymlinksInPath().standardizedFileURL.path
        let rootPath = root.resolvingSymlinksInPath().standardizedFileURL.path
        guard resolved == rootPath || resolved.hasPrefix(rootPath + "/") else { throw .traversal(decoded) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw .notFound(relative)
        }
        self.relative = relative
        self.file = URL(fileURLWithPath: resolved)
    }

    /// Whether the file is a slide (a root `*.html`), which gets the client script injected.
    var isSlide: Bool { !relative.contains("/") && relative.hasSuffix(".html") }
}
