import Foundation
import Hummingbird

/// The server's own origins, which a state-changing fleet request's `Origin` header must name
/// when it has one (docs/design/FLEET.md §5.4): `--public-url`'s scheme, host and port, and the
/// server's scheme with the request's `Host` (already checked against the server's names).
struct FleetOrigin: Sendable {
    /// `http` or `https`.
    let scheme: String
    /// The origin of `--public-url`, lower-cased, if given.
    let publicOrigin: String?

    /// The origins of a server on `scheme` with `publicURL`.
    init(scheme: String, publicURL: String?) {
        self.scheme = scheme
        publicOrigin = publicURL.flatMap { text in
            guard let components = URLComponents(string: text), let scheme = components.scheme, let host = components.host else {
                return nil
            }
            return "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")".lowercased()
        }
    }

    /// Whether `request` has no `Origin` header or one naming this server.
    func admits(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin]?.lowercased() else { return true }
        if origin == publicOrigin { return true }
        guard let authority = request.head.authority?.lowercased() else { return false }
        return origin == "\(scheme)://\(authority)"
    }

    /// Whether cookies must be `Secure`: served over TLS, or behind an `https` `--public-url`.
    var secureCookies: Bool { scheme == "https" || (publicOrigin?.hasPrefix("https://") ?? false) }
}
