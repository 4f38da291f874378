import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StoryBridge

/// Presentation files named by version (docs/PROTOCOL.md §1.3). A slide's scripts and style
/// sheets (``SlideAssetLinks``) are linked as `FILE?v=VERSION`, the version made of the file's
/// modification time and size (what its ETag is made of); a request whose `v` is the file's
/// version now is answered `Cache-Control: public, max-age=31536000, immutable`, so the browser
/// keeps it from slide to slide without asking again, as it keeps a plain static server's files
/// (which send no `Cache-Control` and are reused by heuristic freshness). When a file changes (a
/// sync, a rollback, an edit under live reload), the slides link its new version: a new URL, never
/// a stale copy. Any other request of a file keeps `no-cache`.
enum VersionedFiles {
    /// The long-lived policy of a file asked for by its current version.
    static let immutable = "public, max-age=31536000, immutable"

    /// The version of a file of `size` bytes last modified at `modified`.
    static func version(size: Int, modified: Date) -> String {
        let microseconds = Int64((modified.timeIntervalSince1970 * 1_000_000).rounded())
        return String(microseconds, radix: 36) + "-" + String(size, radix: 36)
    }

    /// The version of `file`, or `nil` when it cannot be read.
    static func version(of file: URL) -> String? {
        guard let status = FileStatus(path: file.path), !status.isDirectory else { return nil }
        return version(size: status.size, modified: status.modified)
    }

    /// The version of the file `path` names, from the status read when it was resolved.
    static func version(of path: ContentPath) -> String {
        version(size: path.status.size, modified: path.status.modified)
    }

    /// `html` (the slide at `slide`, a path relative to `root`, the presentation's folder) with
    /// `?v=VERSION` after the URL of each script and style sheet it links that is a file of the
    /// presentation, resolved against the slide's own folder; `html` itself when there is none.
    /// Reads the disk: run it on the blocking pool.
    static func linkingVersions(in html: Data, slide: String, root: URL) -> Data {
        let links = html.withUnsafeBytes { SlideAssetLinks.links(in: $0) }
        guard !links.isEmpty else { return html }
        let folder = slide.split(separator: "/", omittingEmptySubsequences: false).dropLast().map { $0 + "/" }.joined()
        var insertions: [(offset: Int, text: String)] = []
        for link in links {
            let version: String?
            if link.url.lowercased().hasSuffix(".css") {
                // A style sheet's version covers the files it names (``VersionedStyleSheets``).
                version = VersionedStyleSheets.named(folder + link.url, root: root)?.version
            } else {
                version = (try? ContentPath(rawRelativePath: folder + link.url, root: root)).map { Self.version(of: $0) }
            }
            guard let version else { continue }
            insertions.append((link.range.upperBound, "?v=" + version))
        }
        guard !insertions.isEmpty else { return html }
        var result = Data(capacity: html.count + insertions.count * 20)
        var copied = 0
        for insertion in insertions {
            result.append(html[html.startIndex + copied..<html.startIndex + insertion.offset])
            result.append(contentsOf: insertion.text.utf8)
            copied = insertion.offset
        }
        result.append(html[(html.startIndex + copied)...])
        return result
    }
}

/// Gives a presentation file asked for by its current version (`?v=`, ``VersionedFiles``) the
/// long-lived cache policy; sits in front of the `FileMiddleware` that serves `/p`.
struct VersionedFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let files: PresentationFiles

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let asked = request.uri.queryParameters["v"], request.uri.path.hasPrefix("/p/") else {
            return try await next(request, context)
        }
        if request.uri.path.lowercased().hasSuffix(".css"), let styleSheet = try await styleSheet(request, asked: asked) {
            return styleSheet
        }
        var response = try await next(request, context)
        guard response.status == .ok || response.status == .notModified || response.status == .partialContent,
            let id = files.getFileIdentifier(String(request.uri.path.dropFirst(2))),
            let attributes = try? await files.getAttributes(id: id), !attributes.isFolder,
            VersionedFiles.version(size: attributes.size, modified: attributes.modificationDate) == asked
        else { return response }
        response.headers[.cacheControl] = VersionedFiles.immutable
        return response
    }

    /// A style sheet that names files, asked for by its current version: its bytes with those
    /// files named by version (``VersionedStyleSheets``), `immutable`. Nil for anything else (a
    /// style sheet that names none, an older version, a range request), which the file
    /// middleware answers as any file.
    private func styleSheet(_ request: Request, asked: Substring) async throws -> Response? {
        let path = String(request.uri.path.dropFirst(2))
        guard request.headers[.range] == nil, !path.contains("%"), let id = files.getFileIdentifier(path) else { return nil }
        let rewritten = await BlockingIO.run { () -> [UInt8]? in
            guard let named = VersionedStyleSheets.named(id.relative, root: id.root), !named.references.isEmpty,
                named.version == asked, let file = try? ContentPath(rawRelativePath: id.relative, root: id.root),
                let bytes = try? Data(contentsOf: file.file),
                VersionedFiles.version(of: file.file) == named.own  // not changed while it was read
            else { return nil }
            return VersionedStyleSheets.rewritten([UInt8](bytes), named)
        }
        guard let rewritten else { return nil }
        var headers = HTTPFields()
        headers[.contentType] = "text/css"
        headers[.cacheControl] = VersionedFiles.immutable
        headers[.contentLength] = String(rewritten.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: rewritten)))
    }
}
