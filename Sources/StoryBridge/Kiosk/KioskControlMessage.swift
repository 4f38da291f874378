import Foundation

/// A message of the control socket between `serve` and `storybridge kiosk` (docs/design/FLEET.md
/// §9.3): JSON objects with a `type`. This first part carries the kiosk's `attach` and `status`
/// and serve's `start`; a message of a type it does not know is read as ``unknown(_:)`` and left
/// alone, so that either side may be newer.
package enum KioskControlMessage: Sendable, Equatable {
    /// kiosk → serve, first: who the kiosk is.
    case attach(Attach)
    /// kiosk → serve, every 10 s: its counters.
    case status(Status)
    /// serve → kiosk: open this URL (on attach, and whenever the scheduled deck changes).
    case start(url: String)
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

    /// Why a text is not a control message.
    package struct DecodingFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, in words.
        package var reason: String

        /// A failure for `reason`.
        package init(reason: String) { self.reason = reason }
        package var description: String { "not a kiosk control message: \(reason)" }
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
            switch type {
            case "attach": return .attach(try JSONDecoder().decode(Attach.self, from: data))
            case "status": return .status(try JSONDecoder().decode(Status.self, from: data))
            case "start": return .start(url: try JSONDecoder().decode(Start.self, from: data).url)
            default: return .unknown(type)
            }
        } catch {
            throw DecodingFailure(reason: "its \(type) members are missing or of the wrong type")
        }
    }

    /// The message's JSON, `type` first.
    package func encoded() -> Data {
        func object(_ type: String, _ members: some Encodable) -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let body = (try? encoder.encode(members)) ?? Data("{}".utf8)
            // `{"type":…,` then the members' object without its opening brace.
            var data = Data("{\"type\":\"\(type)\"".utf8)
            if body.count > 2 { data.append(contentsOf: Data(",".utf8)) }
            data.append(body.dropFirst())
            return data
        }
        switch self {
        case .attach(let attach): return object("attach", attach)
        case .status(let status): return object("status", status)
        case .start(let url): return object("start", Start(url: url))
        case .unknown(let type): return object(type, [String: String]())
        }
    }

    private struct Typed: Decodable { var type: String }
    private struct Start: Codable { var url: String }
}
