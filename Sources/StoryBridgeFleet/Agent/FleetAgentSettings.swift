import Foundation
import StoryBridge

/// What `serve --fleet` tells its agent (docs/design/FLEET.md §3.1).
package struct FleetAgentSettings: Sendable, CustomStringConvertible {
    /// The hub's base URL (`http(s)://host:port`).
    package var hub: URL
    /// The device token (read once from a file or the environment; never from the command line).
    package var token: String
    /// The beat interval, 1 s to 1 h.
    package var interval: Duration
    /// The kiosk's name on the dashboard.
    package var name: String
    /// The kiosk's own labels.
    package var labels: [String: String]
    /// Where Prometheus may scrape this kiosk, if anywhere.
    package var advertise: String?
    /// A PEM file of a CA to trust for the hub, besides the system's roots.
    package var caFile: String?

    /// Settings.
    package init(
        hub: URL, token: String, interval: Duration = .seconds(30), name: String, labels: [String: String] = [:],
        advertise: String? = nil, caFile: String? = nil
    ) {
        self.hub = hub
        self.token = token
        self.interval = interval
        self.name = name
        self.labels = labels
        self.advertise = advertise
        self.caFile = caFile
    }

    /// Everything but the token.
    package var description: String { "FleetAgentSettings(hub: \(hub), name: \(name), interval: \(interval))" }

    /// The socket's URL: the hub's with `ws`/`wss` and `/v1/fleet/connect`.
    var socketURL: String {
        let secure = hub.scheme?.lowercased() == "https"
        return "\(secure ? "wss" : "ws")://\(authority)\(FleetWire.connectPath)"
    }

    /// The hub's origin as the hello signs it: `scheme://host:port`, the port written out.
    package var origin: String {
        let scheme = hub.scheme?.lowercased() ?? "http"
        let port = hub.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(hostForURL.lowercased()):\(port)"
    }

    private var hostForURL: String {
        let host = hub.host ?? "127.0.0.1"
        return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    private var authority: String {
        hub.port.map { "\(hostForURL):\($0)" } ?? hostForURL
    }
}
