import Foundation
import Synchronization

/// Where the `sas` links point: `--public-url` when given, else the server's own configured name
/// (the bound address, or the first `--allowed-host` name when bound to every interface) with the
/// port it listens on. Never a request header: a request's `Host` cannot redirect a link.
final class LinkBase: Sendable {
    /// `https://content.lan:8443`, without a trailing slash, when `--public-url` is given.
    private let fixed: String?
    private let scheme: String
    /// The host part, brackets around an IPv6 literal.
    private let host: String
    private let port = Atomic<Int>(0)

    init(publicURL: PublicURL?, scheme: String, host: String, port: Int) {
        fixed = publicURL?.base
        self.scheme = scheme
        self.host = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        self.port.store(port, ordering: .relaxed)
    }

    /// Records the port the server was bound to (for `--port 0`).
    func bound(to port: Int) {
        self.port.store(port, ordering: .relaxed)
    }

    /// `scheme://host:port` or the public URL.
    var base: String {
        fixed ?? "\(scheme)://\(host):\(port.load(ordering: .relaxed))"
    }
}

/// A checked `--public-url`: `http` or `https`, a host, an optional port and path prefix; no query.
struct PublicURL: Sendable, Hashable {
    /// The URL without a trailing slash.
    package let base: String
    /// Its host name, lower-cased (added to the names the server answers to).
    package let host: String

    /// Checks `text`; `nil` with the reason when it is not a usable base URL.
    package init(_ text: String) throws(ContentServerSetupError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw .invalidOption("--public-url '\(text)' is not an http:// or https:// URL with a host")
        }
        guard components.query == nil, components.fragment == nil, components.user == nil else {
            throw .invalidOption("--public-url '\(text)' must not carry a query, a fragment or credentials")
        }
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        base = trimmed
        self.host = host.lowercased()
    }
}
