import Foundation

/// A message of the control socket between `serve` and `storybridge kiosk` (docs/design/FLEET.md
/// §9.3): a JSON object with a `type` and that type's members beside it. A message of a type this
/// side does not know is read as ``unknown(_:)`` and left alone, so that either side may be newer.
///
/// A ``screenshotResult(_:)`` without an error is followed on the socket by one binary frame: the
/// PNG.
package enum KioskControlMessage: Sendable, Equatable {
    /// kiosk → serve, first: who the kiosk is.
    case attach(Attach)
    /// kiosk → serve, every 10 s: its counters.
    case status(Status)
    /// kiosk → serve: the answer to ``screenshot(id:)``; the PNG follows as a binary frame unless
    /// it carries an error.
    case screenshotResult(ScreenshotResult)
    /// kiosk → serve: nobody touched the screen for the idle time; serve ends `viewer`'s session.
    case idle(viewer: String)
    /// serve → kiosk: open this URL (on attach, and whenever the start page changes).
    case start(url: String)
    /// serve → kiosk: capture what the browser shows and answer with ``screenshotResult(_:)``.
    case screenshot(id: String)
    /// serve → kiosk: `viewer`'s session has ended; the kiosk may open a fresh page.
    case idleDone(viewer: String)
    /// A message of a type this side does not know (its `type`).
    case unknown(String)

    /// `attach {pid, mode, display, idleResetSeconds, browser}`.
    package struct Attach: Codable, Sendable, Equatable {
        /// The kiosk process's id.
        package var pid: Int32
        /// `kiosk` (a window on a display) or `headless`.
        package var mode: String
        /// The X display, when there is one.
        package var display: String?
        /// Seconds without input before an idle reset; 0 when off.
        package var idleResetSeconds: Int
        /// The browser's path.
        package var browser: String

        /// An attach message.
        package init(pid: Int32, mode: String, display: String? = nil, idleResetSeconds: Int = 0, browser: String) {
            self.pid = pid
            self.mode = mode
            self.display = display
            self.idleResetSeconds = idleResetSeconds
            self.browser = browser
        }
    }

    /// `status {browserRestarts, idleResets, lastInputSecondsAgo}`.
    package struct Status: Codable, Sendable, Equatable {
        /// Browser restarts since the kiosk started.
        package var browserRestarts: Int
        /// Idle resets since the kiosk started.
        package var idleResets: Int
        /// Seconds since the last input, when there was one.
        package var lastInputSecondsAgo: Int?

        /// A status message.
        package init(browserRestarts: Int, idleResets: Int, lastInputSecondsAgo: Int?) {
            self.browserRestarts = browserRestarts
            self.idleResets = idleResets
            self.lastInputSecondsAgo = lastInputSecondsAgo
        }
    }

    /// `screenshotResult {id, width, height, takenAt}` (the PNG follows), or `{id, error}`.
    package struct ScreenshotResult: Codable, Sendable, Equatable {
        /// The request's id.
        package var id: String
        /// The picture's size in pixels, when there is one.
        package var width: Int?
        /// The picture's height in pixels.
        package var height: Int?
        /// When it was taken (ISO 8601 with milliseconds).
        package var takenAt: String?
        /// Why there is no picture.
        package var error: String?

        /// A result with a picture of `width`×`height` taken at `takenAt`.
        package init(id: String, width: Int, height: Int, takenAt: String) {
            self.id = id
            self.width = width
            self.height = height
            self.takenAt = takenAt
        }

        /// A result without a picture, saying why.
        package init(id: String, error: String) {
            self.id = id
            self.error = error
        }
    }

    /// Why a text is not a control message.
    package struct DecodingFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, in words.
        package var reason: String

        /// A failure for `reason`.
        package init(reason: String) { self.reason = reason }
        package var description: String { "not a kiosk control message: \(reason)" }
    }

    /// The message's `type`.
    package var type: String {
        switch self {
        case .attach: "attach"
        case .status: "status"
        case .screenshotResult: "screenshotResult"
        case .idle: "idle"
        case .start: "start"
        case .screenshot: "screenshot"
        case .idleDone: "idleDone"
        case .unknown(let type): type
        }
    }

    /// Reads `data`: a JSON object with a known `type` and its members, or ``unknown(_:)``.
    package static func decode(_ data: Data) throws(DecodingFailure) -> KioskControlMessage {
        let type: String
        do {
            type = try JSONDecoder().decode(Typed.self, from: data).type
        } catch {
            throw DecodingFailure(reason: "no \"type\" of text in a JSON object")
        }
        do {
            return try JSONDecoder().decode(KioskControlMessage.self, from: data)
        } catch {
            throw DecodingFailure(reason: "its \(type) members are missing or of the wrong type")
        }
    }

    /// The message's JSON, its keys sorted (`type` among them), so that the same message is always
    /// the same bytes.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every member is a string, a number or an optional of one: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data(#"{"type":"\#(type)"}"#.utf8)
    }

    private struct Typed: Decodable { var type: String }
}

extension KioskControlMessage: Codable {
    private enum TypeKey: String, CodingKey { case type }
    private enum Keys: String, CodingKey { case url, id, viewer }

    package init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
        let members = try decoder.container(keyedBy: Keys.self)
        switch type {
        case "attach": self = .attach(try Attach(from: decoder))
        case "status": self = .status(try Status(from: decoder))
        case "screenshotResult": self = .screenshotResult(try ScreenshotResult(from: decoder))
        case "idle": self = .idle(viewer: try members.decode(String.self, forKey: .viewer))
        case "start": self = .start(url: try members.decode(String.self, forKey: .url))
        case "screenshot": self = .screenshot(id: try members.decode(String.self, forKey: .id))
        case "idleDone": self = .idleDone(viewer: try members.decode(String.self, forKey: .viewer))
        default: self = .unknown(type)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var typed = encoder.container(keyedBy: TypeKey.self)
        try typed.encode(type, forKey: .type)
        var members = encoder.container(keyedBy: Keys.self)
        switch self {
        case .attach(let attach): try attach.encode(to: encoder)
        case .status(let status): try status.encode(to: encoder)
        case .screenshotResult(let result): try result.encode(to: encoder)
        case .idle(let viewer), .idleDone(let viewer): try members.encode(viewer, forKey: .viewer)
        case .start(let url): try members.encode(url, forKey: .url)
        case .screenshot(let id): try members.encode(id, forKey: .id)
        case .unknown: break
        }
    }
}
