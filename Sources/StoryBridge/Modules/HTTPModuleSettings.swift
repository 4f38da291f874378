import Foundation
import Synchronization

/// What the HTTP module may reach, and how. The `http` section of the config file.
///
/// By default nothing is reachable: content's requests are refused until hosts are allowed, so a
/// presentation cannot make the host fetch from the network (or the local machine) unasked.
public struct HTTPModuleSettings: Sendable, Hashable, Codable {
    /// Hosts content may reach: `api.example.com`, `*.example.com` (any sub-domain), `127.0.0.1`,
    /// or `*` (any host). Empty: none.
    public var allowedHosts: [String]
    /// Schemes content may use; only `http` and `https` are ever honoured.
    public var allowedSchemes: [String]
    /// Seconds a request may take, redirects included.
    public var timeoutSeconds: Double
    /// The largest request or response body, in bytes.
    public var maxBodyBytes: Int
    /// Redirects followed (each one checked against the allow-list) before giving up.
    public var maxRedirects: Int

    /// Settings; by default no host is allowed, over HTTPS or HTTP, 15 seconds, 10 MiB, 5 redirects.
    public init(
        allowedHosts: [String] = [], allowedSchemes: [String] = ["https", "http"], timeoutSeconds: Double = 15,
        maxBodyBytes: Int = 10 << 20, maxRedirects: Int = 5
    ) {
        self.allowedHosts = allowedHosts
        self.allowedSchemes = allowedSchemes
        self.timeoutSeconds = timeoutSeconds
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
    }

    /// Reads the config file's `http` section; an absent key keeps its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = HTTPModuleSettings()
        allowedHosts = try c.decodeIfPresent([String].self, forKey: .allowedHosts) ?? defaults.allowedHosts
        allowedSchemes = try c.decodeIfPresent([String].self, forKey: .allowedSchemes) ?? defaults.allowedSchemes
        timeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .timeoutSeconds) ?? defaults.timeoutSeconds
        maxBodyBytes = try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? defaults.maxBodyBytes
        maxRedirects = try c.decodeIfPresent(Int.self, forKey: .maxRedirects) ?? defaults.maxRedirects
    }

    /// Why `url` may not be fetched, or `nil` when it may. `reserved` are the host's own
    /// `host:port` addresses, whose reserved paths are never reachable.
    package func refusal(for url: URL, reserved: Set<String>) -> String? {
        guard let scheme = url.scheme?.lowercased() else { return "'\(url.absoluteString)' has no scheme" }
        guard scheme == "http" || scheme == "https" else { return "scheme '\(scheme):' is never allowed" }
        guard allowedSchemes.map({ $0.lowercased() }).contains(scheme) else {
            return "scheme '\(scheme)' is not in http.allowedSchemes"
        }
        guard let host = url.host?.lowercased(), !host.isEmpty else { return "'\(url.absoluteString)' has no host" }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let address = "\(host):\(port)"
        if reserved.contains(address), url.path.hasPrefix(ContentPaths.reservedPrefix) || url.path.hasPrefix("/__storybridge") {
            return "the host's own reserved paths are never reachable"
        }
        let allowed = allowedHosts.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern == "*" { return true }
            if pattern.hasPrefix("*.") { return host.hasSuffix(String(pattern.dropFirst(1))) }
            return pattern == host || pattern == address
        }
        guard allowed else { return "host '\(host)' is not in http.allowedHosts" }
        return nil
    }
}

/// The host's own addresses (`host:port`), learned when the server binds.
package final class HostAddresses: Sendable {
    private let addresses = Mutex<Set<String>>([])

    package init() {}

    /// Adds the address a server listens on.
    package func add(host: String, port: Int) {
        addresses.withLock { set in
            set.insert("\(host.lowercased()):\(port)")
            if host == "127.0.0.1" || host == "localhost" || host == "0.0.0.0" || host == "::" {
                set.insert("localhost:\(port)")
                set.insert("127.0.0.1:\(port)")
                set.insert("[::1]:\(port)")
            }
        }
    }

    package var all: Set<String> { addresses.withLock { $0 } }
}
