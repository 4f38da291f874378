import HTTPTypes
import Hummingbird
import NIOCore
import StoryBridge

extension Response {
    /// A plain-text answer (a message ends with a newline).
    static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        body(message + "\n", type: "text/plain; charset=utf-8", status: status)
    }

    /// One of the host's own HTML pages; never cached.
    static func html(_ page: String) -> Response {
        body(page, type: "text/html; charset=utf-8", cache: "no-store")
    }

    /// A slide as served (its bytes, the client script in them): asked for again on every load
    /// (`no-cache`, no validator), yet not `no-store`, which keeps a page out of Chromium's
    /// back/forward cache, and a page with an open WebSocket out of the browsing-instance swap that
    /// lets the next slide's document start before this one is torn down (docs/PROTOCOL.md §1.2).
    static func html(_ page: ByteBuffer) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: page))
    }

    /// A JSON document; never cached.
    static func json(_ value: JSONValue) -> Response {
        body(value.jsonString(), type: "application/json", cache: "no-store")
    }

    /// `text` with its media type and cache policy.
    static func body(
        _ text: String, type: String, cache: String? = nil, status: HTTPResponse.Status = .ok
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        if let cache { headers[.cacheControl] = cache }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
