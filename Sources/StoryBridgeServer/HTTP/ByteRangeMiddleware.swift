import Foundation
import HTTPTypes
import Hummingbird

/// Puts a request's `Range` into the one form Hummingbird's `FileMiddleware` reads correctly
/// (`bytes=first-last`, both inside the file) before it gets there: a suffix range (`bytes=-500`,
/// the last 500 bytes) and an open or over-long end are resolved against the file's size; a range
/// that starts past the end is answered 416 with `Content-Range: bytes */size`; a multi-range
/// request is served whole (200), as RFC 9110 allows.
struct ByteRangeMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext

    let files: PresentationFiles
    let urlBasePath: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.range], request.uri.path.hasPrefix(urlBasePath + "/"),
            let path = String(request.uri.path.dropFirst(urlBasePath.count)).removingPercentEncoding,
            let id = files.getFileIdentifier(path), let size = try await files.getAttributes(id: id)?.size
        else {
            return try await next(request, context)
        }
        var head = request.head
        switch Self.resolve(header, size: size) {
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

    enum Resolved: Equatable {
        case whole
        case part(ClosedRange<Int>)
        case unsatisfiable
    }

    /// What a `Range` header asks of a file of `size` bytes.
    static func resolve(_ header: String, size: Int) -> Resolved {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return .whole }
        let first = spec[0].isEmpty ? nil : Int(spec[0])
        let last = spec[1].isEmpty ? nil : Int(spec[1])
        switch (first, last) {
        case (let first?, let last?) where first <= last:
            return first < size ? .part(first...min(last, size - 1)) : .unsatisfiable
        case (let first?, nil) where !spec[1].contains(where: { !$0.isNumber }):
            return first < size ? .part(first...(size - 1)) : .unsatisfiable
        case (nil, let suffix?) where spec[0].isEmpty:
            return suffix > 0 && size > 0 ? .part(max(0, size - suffix)...(size - 1)) : .unsatisfiable
        default:
            // Not a syntax this host understands: the header is ignored, as RFC 9110 says.
            return .whole
        }
    }
}
