import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import StoryBridge
import Synchronization

/// What a page sends when it opens its WebSocket:
/// `/__storybridge/ws?viewer=…&presentation=…&slide=…&load=…&token=…`.
struct PageConnectionRequest: Sendable, Equatable {
    var viewerId: String
    var presentationId: Int
    var slide: String
    var pageLoad: String
    var viaDeepLink: Bool
}

/// Why a WebSocket upgrade was refused; the HTTP answer is derived from the case.
enum ConnectionRefusal: Error, Equatable {
    case missingParameter(String)
    case badToken
    case unknownPresentation(Int)
    case unknownSlide(String)
    case badOrigin(String)
    case tooManyConnections(Int)

    var status: HTTPResponse.Status {
        switch self {
        case .missingParameter, .unknownSlide, .unknownPresentation: return .badRequest
        case .badToken, .badOrigin: return .forbidden
        case .tooManyConnections: return .serviceUnavailable
        }
    }

    var message: String {
        switch self {
        case .missingParameter(let name): return "WebSocket refused: query parameter '\(name)' is missing or invalid"
        case .badToken: return "WebSocket refused: missing or wrong token (only pages served by this host may connect)"
        case .unknownPresentation(let id): return "WebSocket refused: presentation \(id) is not in the library"
        case .unknownSlide(let slide): return "WebSocket refused: '\(slide)' is not a slide of that presentation"
        case .badOrigin(let origin): return "WebSocket refused: origin '\(origin)' is not this host"
        case .tooManyConnections(let limit): return "WebSocket refused: the host already serves \(limit) connections"
        }
    }
}

/// Decides whether a WebSocket upgrade request may connect a page to the bridge.
struct ConnectionGate: Sendable {
    static let path = ContentPaths.reservedPrefix + "ws"

    let token: String
    let library: PresentationLibrary
    let connections: ConnectionCounter

    /// Whether `rawPath` (path and query) is the bridge endpoint.
    static func isEndpoint(_ rawPath: String) -> Bool {
        URI(rawPath).path == path
    }

    func admit(rawPath: String, origin: String?, authority: String?) -> Result<PageConnectionRequest, ConnectionRefusal> {
        let query = URI(rawPath).queryParameters
        func value(_ name: String) -> String? {
            guard let value = query[Substring(name)], !value.isEmpty else { return nil }
            return String(value)
        }
        guard let given = value("token"), constantTimeEqual(given, token) else { return .failure(.badToken) }
        if let origin, let refused = Self.foreignOrigin(origin, authority: authority) {
            return .failure(.badOrigin(refused))
        }
        guard let viewer = value("viewer"), viewer.count <= 128 else { return .failure(.missingParameter("viewer")) }
        guard let presentationText = value("presentation"), let presentationId = Int(presentationText) else {
            return .failure(.missingParameter("presentation"))
        }
        guard let slide = value("slide") else { return .failure(.missingParameter("slide")) }
        guard let presentation = library.presentation(id: presentationId) else {
            return .failure(.unknownPresentation(presentationId))
        }
        guard presentation.hasSlide(slide) else { return .failure(.unknownSlide(slide)) }
        guard connections.current < connections.limit else { return .failure(.tooManyConnections(connections.limit)) }
        let load = value("load") ?? UUID().uuidString
        return .success(
            PageConnectionRequest(
                viewerId: viewer, presentationId: presentationId, slide: slide, pageLoad: load,
                viaDeepLink: value("deeplink") == "1"))
    }

    /// The first web origin in an `Origin` header that is not this host, if any. Browsers always send
    /// the page's origin, so a page of another site (cross-site WebSocket hijacking) or an opaque
    /// `null` origin is refused; non-web origins sent by native clients (`ws://…`) are not a
    /// browser page and pass (they still need the token).
    static func foreignOrigin(_ header: String, authority: String?) -> String? {
        for origin in header.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let lowered = origin.lowercased()
            if lowered == "null" { return origin }
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { continue }
            guard let authority, lowered == "http://\(authority.lowercased())" || lowered == "https://\(authority.lowercased())"
            else { return origin }
        }
        return nil
    }

    private func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

/// Open bridge connections, against a limit.
final class ConnectionCounter: Sendable {
    let limit: Int
    private let count = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    var current: Int { count.withLock { $0 } }

    /// Takes a place; `false` when the limit is reached.
    func open() -> Bool {
        count.withLock { value in
            guard value < limit else { return false }
            value += 1
            return true
        }
    }

    func close() {
        count.withLock { $0 -= 1 }
    }
}
