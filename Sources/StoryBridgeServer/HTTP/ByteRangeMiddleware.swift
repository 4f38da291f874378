import Foundation
import HTTPTypes
import Hummingbird
import StoryBridge

/// Puts a request's `Range` into the one form Hummingbird's `FileMiddleware` reads correctly
/// (`bytes=first-last`, both inside the file) before it gets there: a suffix range (`bytes=-500`,
/// the last 500 bytes) and an open or over-long end are resolved against the file's size; a range
/// that starts past the end is answered 416 with `Content-Range: bytes */size`; a multi-range
/// request is served whole (200), as RFC 9110 allows.
struct ByteRangeMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext

    let files: PresentationFiles
    let urlBasePath: String

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.range], request.uri.path.hasPrefix(urlBasePath + "/"),
            let path = String(request.uri.path.dropFirst(urlBasePath.count)).removingPercentEncoding,
            let id = files.getFileIdentifier(path), let size = try await files.getAttributes(id: id)?.size
        else {
            return try await next(request, context)
        }
        var head = request.head
        switch ByteRangeRequest(header: header, size: Int64(size)) {
        case .whole:
            head.headerFields[.range] = nil
        case .part(let range):
            head.headerFields[.range] = "bytes=\(range.lowerBound)-\(range.upperBound)"
        case .unsatisfiable:
            var headers = HTTPFields()
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        return try await next(Request(head: head, body: request.body), context)
    }
}
