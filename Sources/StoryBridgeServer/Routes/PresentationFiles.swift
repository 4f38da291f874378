import Foundation
import Hummingbird
import StoryBridge

/// The files of the library's presentations, for Hummingbird's `FileMiddleware` mounted at `/p`:
/// `/<id>/<path>` is `<path>` inside presentation `<id>`'s folder. The middleware brings ETags,
/// `If-None-Match`, `Last-Modified`, `Range` and `If-Range`; this provider keeps every file inside
/// its presentation folder (a symbolic link that leads out is refused with 403). A presentation
/// that is not installed or is blocked (`lockout`) has no files here: the request goes on to
/// ``ContentRoutes``, which answers with the page that says why.
struct PresentationFiles: FileProvider {
    struct Attributes: FileMiddlewareFileAttributes, Sendable {
        let isFolder: Bool
        let size: Int
        let modificationDate: Date
    }

    /// A file of a presentation, as the URL names it.
    struct FileID: Sendable {
        let root: URL
        let relative: String
    }

    let library: PresentationLibrary
    let fileIO: FileIO

    func getFileIdentifier(_ path: String) -> FileID? {
        let parts = path.drop { $0 == "/" }.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let id = Int(parts[0]), let presentation = library.presentation(id: id),
            !presentation.flags.isWithheld
        else { return nil }
        return FileID(root: presentation.root, relative: String(parts[1]))
    }

    /// The file's size and date, or nil when there is none; the path is resolved and the file
    /// stat'ed on the blocking pool (``BlockingIO``), never on a cooperative thread.
    func getAttributes(id: FileID) async throws -> Attributes? {
        try await BlockingIO.run { () throws -> Attributes? in
            let file: ContentPath
            switch Result(catching: { () throws(ContentPathError) in try ContentPath(decodedRelativePath: id.relative, root: id.root) }) {
            case .success(let found): file = found
            case .failure(.notFound): return nil
            case .failure(let refused): throw refused
            }
            return Attributes(isFolder: false, size: file.status.size, modificationDate: file.status.modified)
        }
    }

    func loadFile(id: FileID, context: some RequestContext) async throws -> ResponseBody {
        try await fileIO.loadFile(path: id.root.appendingPathComponent(id.relative).path, context: context)
    }

    func loadFile(id: FileID, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        try await fileIO.loadFile(path: id.root.appendingPathComponent(id.relative).path, range: range, context: context)
    }
}
