import Foundation

/// The config file's `fleet` section: `serve` reporting to a fleet hub (docs/design/FLEET.md
/// §3.1). Each key is the default of its `--fleet-…` option; an option given on the command line
/// wins. The token itself is never in the config: `tokenFile` names a file holding it.
///
/// ```json
/// "fleet": {"url": "https://hub.site.lan:8095", "tokenFile": "/etc/storybridge/fleet-token",
///           "interval": "30s", "name": "lobby-1", "labels": {"site": "berlin"}}
/// ```
package struct FleetSettings: Sendable, Hashable, Codable {
    /// The hub's base URL (`--fleet`).
    package var url: String?
    /// The file holding this kiosk's device token (`--fleet-token-file`).
    package var tokenFile: String?
    /// The beat interval, `30s`, `2m` or seconds (`--fleet-interval`).
    package var interval: String?
    /// The name shown on the hub (`--fleet-name`).
    package var name: String?
    /// Labels (`--fleet-label KEY=VALUE`); labels given on the command line are added to these and
    /// replace one of the same key.
    package var labels: [String: String]?
    /// Where Prometheus can scrape this kiosk's metrics (`--fleet-advertise`).
    package var advertise: String?
    /// The CA that signed the hub's certificate (`--fleet-ca-file`).
    package var caFile: String?

    package init(
        url: String? = nil, tokenFile: String? = nil, interval: String? = nil, name: String? = nil, labels: [String: String]? = nil,
        advertise: String? = nil, caFile: String? = nil
    ) {
        self.url = url
        self.tokenFile = tokenFile
        self.interval = interval
        self.name = name
        self.labels = labels
        self.advertise = advertise
        self.caFile = caFile
    }

    /// Whether the section sets anything.
    package var isEmpty: Bool { self == FleetSettings() }
}
