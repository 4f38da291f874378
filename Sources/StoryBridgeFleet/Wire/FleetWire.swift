import Foundation
import StoryBridge

/// Encoding, decoding and limits of the kiosk–hub socket (docs/design/FLEET.md §4).
///
/// Frames are JSON objects with a `type` member; dates are ISO 8601 with milliseconds in UTC.
/// Members and types a side does not know are ignored. The benchmark encodes its beats with this
/// same ``encode(_:)``.
package enum FleetWire {
    /// The largest frame a kiosk may send (a screenshot's PNG): 16 MiB.
    package static let maxKioskFrame = 16 << 20
    /// The largest frame the hub sends: 64 KiB.
    static let maxHubFrame = 64 << 10
    /// The largest beat text: 64 KiB.
    package static let maxBeatBytes = 64 << 10
    /// The wire protocol version the hello carries.
    static let protocolVersion = 1
    /// The route of the socket under the hub's base URL.
    package static let connectPath = "/v1/fleet/connect"

    /// WebSocket close codes of the fleet socket.
    package enum CloseCode {
        /// The device was revoked (or its token is unknown) while connected.
        package static let revoked: UInt16 = 4401
        /// The hello's signature or host id was refused.
        package static let forbidden: UInt16 = 4403
        /// A newer connection of the same device replaced this one.
        package static let replaced: UInt16 = 4409
    }

    /// The message as one JSON text: the message's members with `type` first.
    package static func encode(_ message: FleetMessage) throws(FleetWireError) -> Data {
        let body: Data
        do {
            switch message {
            case .challenge(let value): body = try encoder.encode(value)
            case .hello(let value): body = try encoder.encode(value)
            case .welcome(let value): body = try encoder.encode(value)
            case .beat(let value): body = try encoder.encode(value)
            case .ack(let value): body = try encoder.encode(value)
            case .bye(let value): body = try encoder.encode(value)
            case .screenshot(let value): body = try encoder.encode(value)
            case .screenshotResult(let value): body = try encoder.encode(value)
            case .beatNow(let value): body = try encoder.encode(value)
            case .unknown: body = Data("{}".utf8)
            }
        } catch {
            throw .unencodable("\(message.type): \(error)")
        }
        // Every message encodes as an object; `type` goes in front of its members.
        var text = Data("{\"type\":".utf8)
        text.append(Data(jsonString(message.type).utf8))
        if body.count > 2 { text.append(UInt8(ascii: ",")) }
        text.append(body.dropFirst())
        return text
    }

    /// The beat as JSON of at most ``maxBeatBytes``: when it is larger, the viewers list is emptied
    /// from its end, then the log entries, then the figures (each counted or noted), until it fits,
    /// and `truncated` is set. Throws when even that beat is too large.
    package static func encodeBeat(_ beat: Beat, limit: Int = maxBeatBytes) throws(FleetWireError) -> (data: Data, beat: Beat) {
        var beat = beat
        var data = try encode(.beat(beat))
        if data.count <= limit { return (data, beat) }
        beat.truncated = true
        func fits() throws(FleetWireError) -> Bool {
            data = try encode(.beat(beat))
            return data.count <= limit
        }
        while let viewers = beat.viewers, !viewers.list.isEmpty {
            beat.viewers?.list.removeLast()
            if try fits() { return (data, beat) }
        }
        while !beat.log.entries.isEmpty {
            beat.log.entries.removeLast()
            beat.log.dropped += 1
            if try fits() { return (data, beat) }
        }
        if beat.figures != nil {
            beat.figures = nil
            if try fits() { return (data, beat) }
        }
        throw .tooLarge(bytes: data.count, limit: limit)
    }

    /// The message in `data` (a text frame of at most `limit` bytes); an unknown `type` is
    /// ``FleetMessage/unknown(type:)``, unknown members are ignored; a beat longer than
    /// ``maxBeatBytes`` is refused as too large.
    package static func decode(_ data: Data, limit: Int = maxKioskFrame) throws(FleetWireError) -> FleetMessage {
        guard data.count <= limit else { throw .tooLarge(bytes: data.count, limit: limit) }
        let message: FleetMessage
        do {
            message = try decoder.decode(Envelope.self, from: data).message
        } catch let error as Envelope.ShapeError {
            throw .malformed("a \(error.type) message that does not fit its shape: \(describe(error.underlying))")
        } catch {
            throw .malformed("not a JSON object with a string member \"type\"")
        }
        // The hub stores a beat's text as it came: no larger than a kiosk makes one.
        if case .beat = message, data.count > maxBeatBytes { throw .tooLarge(bytes: data.count, limit: maxBeatBytes) }
        return message
    }

    /// `date` as the wire writes it: `2026-12-01T09:30:00.123Z` (rounded to the millisecond).
    package static func format(_ date: Date) -> String { AnalyticsFormat.timestamp(date) }

    /// A wire date, with or without milliseconds.
    package static func parseDate(_ text: String) -> Date? {
        if let milliseconds = UTCTime.millisecondsSince1970(iso8601: text) {
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return (try? withMilliseconds.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    private static let withMilliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }

    private static func jsonString(_ text: String) -> String {
        // A string always encodes.
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "the member \"\(key.stringValue)\" is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "\(error)"
        }
    }
}

/// Why a fleet frame could not be encoded or decoded.
package enum FleetWireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The frame is larger than its limit.
    case tooLarge(bytes: Int, limit: Int)
    /// The frame is not a message of the wire.
    case malformed(String)
    /// A message could not be encoded (a number JSON cannot carry).
    case unencodable(String)

    /// The reason in words.
    package var description: String {
        switch self {
        case .tooLarge(let bytes, let limit): "a fleet frame of \(bytes) bytes is larger than its limit of \(limit) bytes"
        case .malformed(let reason): "a fleet frame was refused: \(reason)"
        case .unencodable(let reason): "a fleet message could not be encoded: \(reason)"
        }
    }
}
