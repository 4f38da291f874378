import Foundation
import Hummingbird

/// JSON response bodies, encoded the same way for every route.
enum JSONReply {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A response whose body is `value` as JSON.
    static func response(status: HTTPResponse.Status = .ok, _ value: some Encodable, headers extra: HTTPFields = [:]) -> Response {
        // The wire types are plain structs of strings, numbers and arrays: encoding cannot fail.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var headers = extra
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
