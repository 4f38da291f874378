import Foundation

/// Why a request path cannot be served from a presentation folder.
enum ContentPathError: Error, Equatable {
    case traversal(String)
    case notFound(String)

    var status: Int {
        switch self {
        case .traversal: return 403
        case .notFound: return 404
        }
    }

    var message: String {
        switch self {
        case .traversal(let path): return "Refused: '\(path)' leaves the presentation folder"
        case .notFound(let path): return "Not found: '\(path)'"
        }
    }
}

/// Maps the part of a URL path below `/p/<id>/` to a file inside a presentation folder, refusing
/// anything that could leave it: `..` and `.` segments, encoded slashes or backslashes, NUL bytes,
/// and symbolic links that resolve outside the folder.
struct ContentPath {
    /// The decoded path relative to the presentation root, with `/` separators.
    let relative: String
    /// The file on disk.
    let file: URL

    init(rawRelativePath raw: String, root: URL) throws(ContentPathError) {
        let lowered = raw.lowercased()
        guard !lowered.contains("%2f"), !lowered.contains("%5c"), !lowered.contains("%00") else {
            throw .traversal(raw)
        }
        guard let decoded = raw.removingPercentEncoding, !decoded.contains("\\"), !decoded.contains("\0") else {
            throw .traversal(raw)
        }
        var segments: [String] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            guard segment != "..", segment != "." else { throw .traversal(raw) }
            segments.append(String(segment))
        }
        if segments.isEmpty { segments = [ "index.html" ] }
        let relative = segments.joined(separator: "/")
        let candidate = root.appendingPathComponent(relative)
        let resolved = candidate.resolvingSymlinksInPath().standardizedFileURL.path
        let rootPath = root.resolvingSymlinksInPath().standardizedFileURL.path
        guard resolved == rootPath || resolved.hasPrefix(rootPath + "/") else { throw .traversal(raw) }
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
