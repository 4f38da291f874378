import Foundation

/// Where Prometheus scrapes a kiosk (`serve --fleet-advertise URL`, docs/design/FLEET.md §7.2–7.3),
/// split as Prometheus's HTTP service discovery wants it: `http://10.20.0.17:9180/__storybridge/metrics`
/// is scheme `http`, address `10.20.0.17:9180` (the default port written out) and path
/// `/__storybridge/metrics`.
package struct MetricsTarget: Sendable, Hashable {
    /// `http` or `https`.
    package var scheme: String
    /// `host:port` (`[v6]:port` for an IPv6 address).
    package var address: String
    /// The metrics path, `/` when the URL has none.
    package var path: String

    /// Why an advertised URL is refused.
    package enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case notHTTP
        case noHost
        case credentials
        case queryOrFragment

        package var description: String {
            switch self {
            case .notHTTP: "is not an http:// or https:// URL"
            case .noHost: "names no host"
            case .credentials: "carries a user name or password (the hub would publish them)"
            case .queryOrFragment: "has a query or fragment (Prometheus's service discovery has only a path)"
            }
        }
    }

    /// The target of `text`, or why it is not one.
    package static func parse(_ text: String) -> Result<MetricsTarget, Refusal> {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return .failure(.notHTTP) }
        guard let host = url.host, !host.isEmpty else { return .failure(.noHost) }
        guard url.user == nil, url.password == nil else { return .failure(.credentials) }
        guard url.query == nil, url.fragment == nil else { return .failure(.queryOrFragment) }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return .success(
            MetricsTarget(scheme: scheme, address: "\(bracketed.lowercased()):\(port)", path: url.path.isEmpty ? "/" : url.path))
    }
}
