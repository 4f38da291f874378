import Foundation

/// The content server's webhooks (docs/design/FLEET.md §8.1): the top-level `webhooks` list of
/// `--config` (each `{url, secretFile | secret, events?}`), or `--webhook URL
/// --webhook-secret-file FILE` without a config, and the kiosk queue's alert limits
/// (`fleet.queueAlert`).
///
/// Refused, each with an error naming the webhook and what is wrong: a URL that is not
/// `http(s)://host…` or that carries a user name or password; neither or both of `secretFile` and
/// `secret`; a secret file that cannot be read; a secret shorter than 16 bytes; an event name not
/// in ``WebhookEvent``; an empty `events` list.
package struct WebhookConfiguration: Sendable, Equatable {
    /// One receiver.
    package struct Endpoint: Sendable, Equatable {
        /// Where the events are posted.
        package var url: URL
        /// The HMAC key (``WebhookSignature``).
        package var secret: [UInt8]
        /// The events it takes.
        package var events: Set<WebhookEvent>

        /// An endpoint.
        package init(url: URL, secret: [UInt8], events: Set<WebhookEvent> = Set(WebhookEvent.allCases)) {
            self.url = url
            self.secret = secret
            self.events = events
        }
    }

    /// When a kiosk's analytics queue is reported (`Kiosk (QueueOverLimit)`): at `records` queued
    /// records or an oldest record `oldestAgeSeconds` old; armed again once both are under 80 %.
    package struct QueueAlert: Sendable, Equatable {
        /// Default 5,000.
        package var records: Int = 5_000
        /// Default 24 h.
        package var oldestAgeSeconds: Int = 86_400

        /// The defaults.
        package init(records: Int = 5_000, oldestAgeSeconds: Int = 86_400) {
            self.records = records
            self.oldestAgeSeconds = oldestAgeSeconds
        }
    }

    /// The receivers, in the order configured (a delivery names its endpoint by this index).
    package var endpoints: [Endpoint]
    /// The kiosk queue's alert limits.
    package var queueAlert = QueueAlert()
    /// Warnings for the start-up lines (plain `http` to a host that is not loopback).
    package var warnings: [String] = []

    /// A configuration of `endpoints`.
    package init(endpoints: [Endpoint], queueAlert: QueueAlert = QueueAlert()) {
        self.endpoints = endpoints
        self.queueAlert = queueAlert
    }

    /// The minimum length of a secret, in bytes.
    static let minimumSecretBytes = 16

    /// The `webhooks` and `fleet.queueAlert` of the config file `file` (nil when it has no
    /// webhooks; its other members are read by ``ContentServerAccounts``).
    package static func load(configFile file: URL) throws(WebhookConfigurationError) -> WebhookConfiguration? {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .invalid(file.path, "cannot be read: \(error.localizedDescription)")
        }
        return try parse(data, file: file.path)
    }

    /// The `webhooks` and `fleet.queueAlert` of the config `data` (read from `file`).
    package static func parse(_ data: Data, file: String) throws(WebhookConfigurationError) -> WebhookConfiguration? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .invalid(file, "is not a JSON object")
        }
        let queueAlert = try Self.queueAlert((object["fleet"] as? [String: Any])?["queueAlert"], file: file)
        guard let list = object["webhooks"] else { return nil }
        guard let hooks = list as? [Any] else { throw .invalid(file, "webhooks must be a list of {url, secretFile | secret, events}") }
        var configuration = WebhookConfiguration(endpoints: [], queueAlert: queueAlert)
        for (index, item) in hooks.enumerated() {
            let place = "\(file): webhooks[\(index)]"
            guard let hook = item as? [String: Any] else { throw .invalid(place, "must be an object {url, secretFile | secret, events}") }
            if let unknown = hook.keys.sorted().first(where: { !["url", "secretFile", "secret", "events"].contains($0) }) {
                throw .invalid(place, "has an unknown member \"\(unknown)\" (known: url, secretFile, secret, events)")
            }
            guard let url = hook["url"] as? String else { throw .invalid(place, "needs a url (a string)") }
            let events: [String]?
            let rawEvents = hook["events"]
            if rawEvents == nil || rawEvents is NSNull {
                events = nil
            } else if let names = rawEvents as? [String] {
                events = names
            } else {
                throw .invalid(place, "events must be a list of event names")
            }
            let (endpoint, warning) = try Self.endpoint(
                url: url, secretFile: hook["secretFile"] as? String, secret: hook["secret"] as? String, events: events, place: place,
                secretGiven: hook["secretFile"] != nil || hook["secret"] != nil)
            configuration.endpoints.append(endpoint)
            if let warning { configuration.warnings.append(warning) }
        }
        return configuration
    }

    /// One endpoint from its parts (`place` names it in errors: `webhooks[0]` of a file, or `--webhook`).
    package static func endpoint(
        url text: String, secretFile: String?, secret: String?, events names: [String]?, place: String, secretGiven: Bool = true
    ) throws(WebhookConfigurationError) -> (Endpoint, warning: String?) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalid(place, "the url \"\(text)\" is not an http:// or https:// URL")
        }
        guard let host = url.host, !host.isEmpty else { throw .invalid(place, "the url \"\(text)\" names no host") }
        guard url.user == nil, url.password == nil else {
            throw .invalid(place, "the url carries a user name or password; put the secret in secretFile instead")
        }
        let bytes: [UInt8]
        switch (secretFile, secret) {
        case (nil, nil):
            throw .invalid(
                place,
                secretGiven
                    ? "secretFile and secret must be strings" : "has no secret: give secretFile (a file holding it) or secret")
        case (.some, .some): throw .invalid(place, "has both secretFile and secret; keep one (secretFile, so the config holds no secret)")
        case (.some(let path), nil):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .invalid(place, "the secretFile \(path) cannot be read")
            }
            var text = String(decoding: data, as: UTF8.self)
            while text.last?.isNewline == true { text.removeLast() }
            bytes = Array(text.utf8)
        case (nil, .some(let value)):
            bytes = Array(value.utf8)
        }
        guard bytes.count >= minimumSecretBytes else {
            throw .invalid(place, "the secret has \(bytes.count) bytes; at least \(minimumSecretBytes) are needed")
        }
        var events = Set(WebhookEvent.allCases)
        if let names {
            guard !names.isEmpty else { throw .invalid(place, "events is empty; leave it out for every event") }
            events = []
            for name in names {
                guard let event = WebhookEvent(rawValue: name) else {
                    throw .invalid(
                        place,
                        "the event \"\(name)\" is unknown (known: \(WebhookEvent.allCases.map { "\"\($0.name)\"" }.joined(separator: ", ")))"
                    )
                }
                events.insert(event)
            }
        }
        let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased()) || host.hasPrefix("127.")
        let warning =
            scheme == "http" && !loopback
            ? "warning: \(place): \(text) is plain http; the events (kiosk names, labels) cross the network in clear" : nil
        return (Endpoint(url: url, secret: bytes, events: events), warning)
    }

    private static func queueAlert(_ value: Any?, file: String) throws(WebhookConfigurationError) -> QueueAlert {
        guard let value else { return QueueAlert() }
        guard let object = value as? [String: Any] else { throw .invalid(file, "fleet.queueAlert must be {records, oldestAge}") }
        var alert = QueueAlert()
        if let records = object["records"] {
            guard let number = records as? Int, number > 0 else {
                throw .invalid(file, "fleet.queueAlert.records must be a positive number of records")
            }
            alert.records = number
        }
        if let age = object["oldestAge"] {
            guard let text = age as? String, let seconds = Self.seconds(text), seconds > 0 else {
                throw .invalid(file, "fleet.queueAlert.oldestAge must be a duration such as \"24h\", \"90m\" or \"3600s\"")
            }
            alert.oldestAgeSeconds = seconds
        }
        return alert
    }

    /// `30s`, `90m`, `24h`, `2d` or plain seconds.
    static func seconds(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let last = text.last, let unit = units[last] { return Int(text.dropLast()).map { $0 * unit } }
        return Int(text)
    }
}

/// A webhook configuration that cannot be used: where (the file and `webhooks[i]`, or the option)
/// and why.
package enum WebhookConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `place` is wrong for `reason`.
    case invalid(String, String)

    /// `<place>: <reason>`.
    package var description: String {
        switch self {
        case .invalid(let place, let reason): "\(place): \(reason)"
        }
    }
}
