import Foundation
import Hummingbird
import StoryBridge

/// A file served behind a signed link, with its validators.
struct BlobSource: Sendable {
    var file: URL
    var size: Int64
    /// The strong entity tag, quotes included.
    var etag: String
    var lastModified: Date
    var contentType: String
    var downloadName: String?
}

/// Answers `GET`/`HEAD` of a blob: `Content-Length`, strong `ETag`, `Last-Modified`,
/// `Accept-Ranges: bytes`, one `Range` → 206 with `Content-Range` (unless an `If-Range` validator
/// does not match, then the whole blob with 200), 416 past the end. The body streams from disk.
struct BlobResponder: Sendable {
    let fileIO: FileIO
    let faults: FaultCounters

    func respond(to request: Request, context: ContentRequestContext, blob: BlobSource) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = blob.contentType
        headers[.eTag] = blob.etag
        headers[.lastModified] = HTTPDate.string(blob.lastModified)
        if let delay = faults.faults.blobDelay { try await Task.sleep(for: delay) }
        let ignoresRanges = faults.faults.ignoreRanges
        headers[.acceptRanges] = ignoresRanges ? "none" : "bytes"
        headers[.cacheControl] = "private, max-age=0"
        if let name = blob.downloadName { headers[.contentDisposition] = #"attachment; filename="\#(name)""# }

        var range = ByteRangeRequest(header: request.headers[.range], size: blob.size)
        if range != .whole, ignoresRanges || request.headers[.ifRange].map({ !ifRangeMatches($0, blob: blob) }) == true {
            range = .whole
        }
        let status: HTTPResponse.Status
        let bytes: ClosedRange<Int64>?
        switch range {
        case .unsatisfiable:
            throw ContentAPIError.rangeNotSatisfiable(size: blob.size)
        case .whole:
            status = .ok
            bytes = blob.size > 0 ? 0...(blob.size - 1) : nil
        case .part(let part):
            status = .partialContent
            bytes = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(blob.size)"
        }
        let length = bytes.map { $0.upperBound - $0.lowerBound + 1 } ?? 0
        headers[.contentLength] = String(length)
        guard request.method == .get, let bytes else {
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        var body = try await fileIO.loadFile(
            path: blob.file.path, range: Int(bytes.lowerBound)...Int(bytes.upperBound), context: context)
        if let limit = faults.dropLimit() {
            let whole = body
            body = ResponseBody(contentLength: whole.contentLength) { writer in
                try await whole.write(DroppingBodyWriter(base: writer, remaining: limit, eventLoop: context.eventLoop))
            }
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether `If-Range` names the current blob: the same strong tag, or exactly its date.
    private func ifRangeMatches(_ validator: String, blob: BlobSource) -> Bool {
        let value = validator.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("\"") || value.hasPrefix("W/") { return value == blob.etag }
        guard let date = HTTPDate.parse(value) else { return false }
        return Int64(date.timeIntervalSince1970) == Int64(blob.lastModified.timeIntervalSince1970)
    }
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for `Last-Modified` and `If-Range`.
enum HTTPDate {
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    static func string(_ date: Date) -> String { formatter().string(from: date) }
    static func parse(_ text: String) -> Date? { formatter().date(from: text) }
}
