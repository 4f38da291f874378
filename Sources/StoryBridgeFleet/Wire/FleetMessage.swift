import Foundation

/// One JSON text frame on the kiosk–hub socket (docs/design/FLEET.md §4), tagged by its `type`
/// member. A frame of a type this side does not know decodes as ``unknown(type:)`` and is ignored:
/// either side may be the newer one.
package enum FleetMessage: Sendable, Equatable {
    /// Hub → kiosk, at once after the upgrade.
    case challenge(HubChallenge)
    /// Kiosk → hub: who it is, signed over the challenge.
    case hello(KioskHello)
    /// Hub → kiosk: the hello was accepted.
    case welcome(Welcome)
    /// Kiosk → hub: its state now.
    case beat(Beat)
    /// Hub → kiosk: the beat `seq` was received.
    case ack(Ack)
    /// Kiosk → hub: a graceful stop.
    case bye(Bye)
    /// Hub → kiosk: take a screenshot.
    case screenshot(ScreenshotRequest)
    /// Kiosk → hub: the screenshot (its PNG follows as one binary frame) or why there is none.
    case screenshotResult(ScreenshotResult)
    /// Hub → kiosk: send a beat now.
    case beatNow(BeatNow)
    /// A type this side does not know.
    case unknown(type: String)

    /// The `type` member of the message.
    package var type: String {
        switch self {
        case .challenge: "challenge"
        case .hello: "hello"
        case .welcome: "welcome"
        case .beat: "beat"
        case .ack: "ack"
        case .bye: "bye"
        case .screenshot: "screenshot"
        case .screenshotResult: "screenshotResult"
        case .beatNow: "beatNow"
        case .unknown(let type): type
        }
    }
}

/// `{"type": "challenge", "nonce", "hub", "serverTime"}`.
package struct HubChallenge: Codable, Sendable, Equatable {
    /// 32 random bytes, base64url without padding.
    package var nonce: String
    /// `storybridge <version>`.
    package var hub: String
    /// The hub's clock when it sent the challenge.
    package var serverTime: Date

    /// A challenge.
    package init(nonce: String, hub: String, serverTime: Date) {
        self.nonce = nonce
        self.hub = hub
        self.serverTime = serverTime
    }
}

/// `{"type": "welcome", "device"}`: the hello was accepted for device `device`.
package struct Welcome: Codable, Sendable, Equatable {
    /// The device id (`d_…`).
    package var device: String

    /// A welcome for `device`.
    package init(device: String) { self.device = device }
}

/// `{"type": "ack", "seq"}`.
package struct Ack: Codable, Sendable, Equatable {
    /// The acknowledged beat's `seq`.
    package var seq: Int

    /// An acknowledgement of beat `seq`.
    package init(seq: Int) { self.seq = seq }
}

/// `{"type": "bye", "reason"}`.
package struct Bye: Codable, Sendable, Equatable {
    /// Why the kiosk stops (`shutdown`).
    package var reason: String

    /// A bye for `reason`.
    package init(reason: String = "shutdown") { self.reason = reason }
}

/// `{"type": "screenshot", "id"}`.
package struct ScreenshotRequest: Codable, Sendable, Equatable {
    /// The request's id, echoed by the result.
    package var id: String

    /// A request with `id`.
    package init(id: String) { self.id = id }
}

/// `{"type": "beatNow", "id"}`.
package struct BeatNow: Codable, Sendable, Equatable {
    /// The request's id.
    package var id: String

    /// A request with `id`.
    package init(id: String) { self.id = id }
}

/// `{"type": "screenshotResult", "id", "width", "height", "takenAt"}` (the PNG follows as one binary
/// frame), or `{"type": "screenshotResult", "id", "error"}`.
package struct ScreenshotResult: Codable, Sendable, Equatable {
    /// The request's id.
    package var id: String
    /// The PNG's width in pixels.
    package var width: Int?
    /// The PNG's height in pixels.
    package var height: Int?
    /// When the kiosk took it.
    package var takenAt: Date?
    /// Why there is no screenshot.
    package var error: String?

    /// A result.
    package init(id: String, width: Int? = nil, height: Int? = nil, takenAt: Date? = nil, error: String? = nil) {
        self.id = id
        self.width = width
        self.height = height
        self.takenAt = takenAt
        self.error = error
    }
}
