import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeFleet

/// serve's `--fleet…` options (docs/design/FLEET.md §3.1): report to a fleet hub. The device
/// token comes from `--fleet-token-file` or `$STORYBRIDGE_FLEET_TOKEN`, never from the command line.
struct FleetOptions: ParsableArguments {
    @Option(
        name: .customLong("fleet"),
        help: ArgumentHelp(
            "Report to the fleet hub at this base URL (a content-server --fleet): http(s)://host:port.", valueName: "URL"))
    var url: String?

    @Option(
        help: ArgumentHelp(
            "A file holding this kiosk's device token (content-server device add --token-out); else $STORYBRIDGE_FLEET_TOKEN.",
            valueName: "path"))
    var fleetTokenFile: String?

    @Option(help: ArgumentHelp("The beat interval, 1 s to 1 h: 30s (default), 5s, 2m, or seconds.", valueName: "duration"))
    var fleetInterval: String?

    @Option(help: ArgumentHelp("The name shown on the hub (default: the host name).", valueName: "name"))
    var fleetName: String?

    @Option(name: .customLong("fleet-label"), help: ArgumentHelp("A label KEY=VALUE (repeatable, at most 16).", valueName: "KEY=VALUE"))
    var fleetLabels: [String] = []

    @Option(
        help: ArgumentHelp(
            "Where Prometheus can scrape this kiosk's metrics (http(s)://host:port/path, behind a proxy: docs/KIOSK.md), listed by the hub's /v1/fleet/prometheus-sd; without it the hub re-exports the beat's figures.",
            valueName: "URL"))
    var fleetAdvertise: String?

    @Option(help: ArgumentHelp("A PEM file of the CA that signed the hub's certificate (default: the system's roots).", valueName: "path"))
    var fleetCaFile: String?

    /// The agent's settings, or nil without `--fleet` (or the config's `fleet.url`); each option
    /// given wins over its key of the config's `fleet` section. A usage error names what is wrong.
    func resolve(
        config: FleetSettings = FleetSettings(), environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> FleetAgentSettings? {
        var options = self
        options.url = url ?? config.url
        options.fleetTokenFile = fleetTokenFile ?? config.tokenFile
        options.fleetInterval = fleetInterval ?? config.interval
        options.fleetName = fleetName ?? config.name
        options.fleetAdvertise = fleetAdvertise ?? config.advertise
        options.fleetCaFile = fleetCaFile ?? config.caFile
        // The config's labels first (in key order), then the command line's: a key given twice keeps the last.
        options.fleetLabels = (config.labels ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + fleetLabels
        return try options.resolveOptions(environment: environment)
    }

    private func resolveOptions(environment: [String: String]) throws -> FleetAgentSettings? {
        guard let url else {
            if fleetTokenFile != nil || fleetInterval != nil || fleetName != nil || !fleetLabels.isEmpty || fleetAdvertise != nil
                || fleetCaFile != nil
            {
                throw ValidationError("the --fleet-… options (or the config's fleet keys) need --fleet URL (or fleet.url)")
            }
            return nil
        }
        guard let hub = URL(string: url), let scheme = hub.scheme?.lowercased(), scheme == "http" || scheme == "https", hub.host != nil,
            hub.path.isEmpty || hub.path == "/"
        else {
            throw ValidationError("--fleet \(url) is not a hub's base URL, http(s)://host[:port]")
        }
        let token = try readToken(environment: environment)
        let interval = try parseInterval(fleetInterval ?? "30s")
        let name = fleetName ?? ProcessInfo.processInfo.hostName
        guard (1...64).contains(name.count), !name.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw ValidationError("--fleet-name must be 1 to 64 printable characters")
        }
        var labels: [String: String] = [:]
        for text in fleetLabels {
            guard let equals = text.firstIndex(of: "=") else { throw ValidationError("--fleet-label \(text) is not KEY=VALUE") }
            let key = String(text[..<equals])
            let value = String(text[text.index(after: equals)...])
            guard key.wholeMatch(of: /[a-z][a-z0-9_]{0,31}/) != nil else {
                throw ValidationError("--fleet-label: the key \"\(key)\" must be a lower-case letter, then up to 31 of a-z, 0-9 and _")
            }
            guard value.count <= 64 else { throw ValidationError("--fleet-label: the value of \(key) is longer than 64 characters") }
            labels[key] = value
        }
        guard labels.count <= 16 else { throw ValidationError("--fleet-label: at most 16 labels") }
        if let fleetAdvertise, case .failure(let refusal) = MetricsTarget.parse(fleetAdvertise) {
            throw ValidationError(
                "--fleet-advertise \(fleetAdvertise) \(refusal): give the URL Prometheus scrapes, such as http://10.20.0.17:9180/__storybridge/metrics"
            )
        }
        if let fleetCaFile, !FileManager.default.isReadableFile(atPath: fleetCaFile) {
            throw ValidationError("--fleet-ca-file \(fleetCaFile) cannot be read")
        }
        return FleetAgentSettings(
            hub: hub, token: token, interval: interval, name: name, labels: labels, advertise: fleetAdvertise, caFile: fleetCaFile)
    }

    private func readToken(environment: [String: String]) throws -> String {
        if let fleetTokenFile {
            guard let data = FileManager.default.contents(atPath: fleetTokenFile) else {
                throw ValidationError("--fleet-token-file \(fleetTokenFile) cannot be read")
            }
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw ValidationError("--fleet-token-file \(fleetTokenFile) is empty") }
            if let mode = (try? FileManager.default.attributesOfItem(atPath: fleetTokenFile))?[.posixPermissions] as? Int,
                mode & 0o004 != 0
            {
                Terminal.warn(
                    "warning: --fleet-token-file \(fleetTokenFile) may be read by any user (mode \(String(mode, radix: 8))): chmod o-r '\(fleetTokenFile)'"
                )
            }
            return token
        }
        if let token = environment["STORYBRIDGE_FLEET_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            return token
        }
        throw ValidationError(
            "--fleet needs the device token: give --fleet-token-file PATH or set STORYBRIDGE_FLEET_TOKEN (there is no option that takes the token itself)"
        )
    }

    private func parseInterval(_ text: String) throws -> Duration {
        let seconds: Int?
        if text.hasSuffix("s") {
            seconds = Int(text.dropLast())
        } else if text.hasSuffix("m") {
            seconds = Int(text.dropLast()).map { $0 * 60 }
        } else if text.hasSuffix("h") {
            seconds = Int(text.dropLast()).map { $0 * 3600 }
        } else {
            seconds = Int(text)
        }
        guard let seconds, (1...3600).contains(seconds) else {
            throw ValidationError("--fleet-interval \(text) must be 1 s to 1 h (5s, 2m or seconds)")
        }
        return .seconds(seconds)
    }
}
