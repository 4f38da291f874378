import Foundation
import HTTPTypes
import Hummingbird
import StoryBridge
import Synchronization

/// What a page sends when it opens its WebSocket:
/// `/__storybridge/ws?viewer=…&presentation=…&slide=…&load=…&story=…&token=…`.
struct PageConnectionRequest: Sendable, Equatable {
    var viewerId: String
    var presentationId: Int
    var slide: String
    var pageLoad: String
    var viaDeepLink: Bool
    /// The version of the Story context the page was given (its slide or a push), when it has
    /// one: the host sends the current state when it differs (docs/PROTOCOL.md §9.5).
    var storyVersion: String? = nil
}

/// Decides whether a page that passed the host-name and token checks may connect to the bridge:
/// its origin, its query parameters, its presentation (installed, not blocked) and slide.
struct PageAdmission: Sendable {
    let library: PresentationLibrary

    func admit(_ request: Request) -> Result<PageConnectionRequest, RequestRefusal> {
        if let origin = request.headers[.origin], let refused = Self.foreignOrigin(origin, authority: request.head.authority) {
            return .failure(.badOrigin(refused))
        }
        let query = request.uri.queryParameters
        func value(_ name: String) -> String? {
            guard let value = query[Substring(name)], !value.isEmpty else { return nil }
            return String(value)
        }
        guard let viewer = value("viewer"), viewer.count <= 128 else { return .failure(.missingParameter("viewer")) }
        guard let presentationText = value("presentation"), let presentationId = Int(presentationText) else {
            return .failure(.missingParameter("presentation"))
        }
        guard let slide = value("slide") else { return .failure(.missingParameter("slide")) }
        guard let presentation = library.presentation(id: presentationId) else {
            return .failure(.unknownPresentation(presentationId))
        }
        guard !presentation.flags.isWithheld else { return .failure(.blockedPresentation(presentationId)) }
        guard presentation.hasSlide(slide) else { return .failure(.unknownSlide(slide)) }
        return .success(
            PageConnectionRequest(
                viewerId: viewer, presentationId: presentationId, slide: slide, pageLoad: value("load") ?? UUID().uuidString,
                viaDeepLink: value("deeplink") == "1", storyVersion: value("story").flatMap { $0.count <= 64 ? $0 : nil }))
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
