import Foundation
import StoryBridge

/// `{"type": "hello", …}`: the kiosk's answer to the challenge (docs/design/FLEET.md §4.2). Its
/// `signature` is the host key's Ed25519 signature of ``signedText(nonce:hubOrigin:)``, which
/// proves the key whose fingerprint is `hostId`.
package struct KioskHello: Codable, Sendable, Equatable {
    /// The wire protocol's version (1).
    package var `protocol`: Int
    /// The host id (26 base32 characters).
    package var hostId: String
    /// The 32-byte Ed25519 public key, base64url without padding.
    package var publicKey: String
    /// The signature, base64url without padding.
    package var signature: String
    /// A UUID made at each start of `serve`.
    package var instance: String
    /// The kiosk's name.
    package var name: String
    /// The kiosk's own labels.
    package var labels: [String: String]
    /// The storybridge version.
    package var version: String
    /// The beat interval in seconds.
    package var intervalSeconds: Int
    /// When this `serve` started.
    package var startedAt: Date
    /// The kiosk's IANA time zone.
    package var timeZone: String
    /// The whole schedule as configured, or null.
    package var schedule: JSONValue?
    /// Where Prometheus can scrape the kiosk, or null.
    package var metricsURL: String?

    /// A hello.
    package init(
        protocol: Int = 1, hostId: String, publicKey: String, signature: String, instance: String, name: String,
        labels: [String: String], version: String, intervalSeconds: Int, startedAt: Date, timeZone: String,
        schedule: JSONValue? = nil, metricsURL: String? = nil
    ) {
        self.protocol = `protocol`
        self.hostId = hostId
        self.publicKey = publicKey
        self.signature = signature
        self.instance = instance
        self.name = name
        self.labels = labels
        self.version = version
        self.intervalSeconds = intervalSeconds
        self.startedAt = startedAt
        self.timeZone = timeZone
        self.schedule = schedule
        self.metricsURL = metricsURL
    }

    /// What the hello's signature covers: `storybridge-fleet-hello\n` + nonce + `\n` + the hub's
    /// origin (`scheme://host:port`), so a hub cannot relay another hub's challenge.
    static func signedText(nonce: String, hubOrigin: String) -> Data {
        Data("storybridge-fleet-hello\n\(nonce)\n\(hubOrigin)".utf8)
    }

    /// A hello signed with `key` over the challenge's `nonce` for the hub at `hubOrigin`.
    package static func signed(
        by key: HostKey, nonce: String, hubOrigin: String, instance: String, name: String, labels: [String: String],
        version: String, intervalSeconds: Int, startedAt: Date, timeZone: String, schedule: JSONValue? = nil,
        metricsURL: String? = nil
    ) -> KioskHello {
        KioskHello(
            hostId: key.hostId, publicKey: Base64URL.encode(key.publicKey),
            signature: Base64URL.encode(key.signature(for: signedText(nonce: nonce, hubOrigin: hubOrigin))),
            instance: instance, name: name, labels: labels, version: version, intervalSeconds: intervalSeconds,
            startedAt: startedAt, timeZone: timeZone, schedule: schedule, metricsURL: metricsURL)
    }

    /// Why a hello is refused, or nil when its key's fingerprint is `hostId` and its signature
    /// covers `nonce` and `hubOrigin`.
    package func refusal(nonce: String, hubOrigin: String) -> String? {
        guard let key = Base64URL.decode(publicKey), key.count == 32 else { return "the public key is not 32 bytes of base64url" }
        guard HostKey.hostId(ofPublicKey: key) == hostId else { return "the host id is not the fingerprint of the public key" }
        guard let signature = Base64URL.decode(signature),
            HostKey.isValidSignature(signature, of: Self.signedText(nonce: nonce, hubOrigin: hubOrigin), publicKey: key)
        else { return "the signature does not verify" }
        return nil
    }

    private enum CodingKeys: String, CodingKey {
        case `protocol`, hostId, publicKey, signature, instance, name, labels, version, intervalSeconds, startedAt, timeZone,
            schedule, metricsURL
    }

    /// Writes every member, `schedule` and `metricsURL` as null when absent.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.protocol, forKey: .protocol)
        try container.encode(hostId, forKey: .hostId)
        try container.encode(publicKey, forKey: .publicKey)
        try container.encode(signature, forKey: .signature)
        try container.encode(instance, forKey: .instance)
        try container.encode(name, forKey: .name)
        try container.encode(labels, forKey: .labels)
        try container.encode(version, forKey: .version)
        try container.encode(intervalSeconds, forKey: .intervalSeconds)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(schedule ?? .null, forKey: .schedule)
        try container.encode(metricsURL, forKey: .metricsURL)
    }

    /// Reads a hello; `schedule: null` is nil.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.protocol = try container.decode(Int.self, forKey: .protocol)
        hostId = try container.decode(String.self, forKey: .hostId)
        publicKey = try container.decode(String.self, forKey: .publicKey)
        signature = try container.decode(String.self, forKey: .signature)
        instance = try container.decode(String.self, forKey: .instance)
        name = try container.decode(String.self, forKey: .name)
        labels = try container.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
        version = try container.decode(String.self, forKey: .version)
        intervalSeconds = try container.decode(Int.self, forKey: .intervalSeconds)
        startedAt = try container.decode(Date.self, forKey: .startedAt)
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone) ?? "UTC"
        let schedule = try container.decodeIfPresent(JSONValue.self, forKey: .schedule)
        self.schedule = schedule == .null ? nil : schedule
        metricsURL = try container.decodeIfPresent(String.self, forKey: .metricsURL)
    }
}

/// Base64url without padding (RFC 4648 §5), as the fleet wire carries keys, signatures and nonces.
package enum Base64URL {
    /// `bytes` in base64url without padding.
    package static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url text (padding optional), or nil.
    package static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
