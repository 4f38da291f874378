import Foundation

extension FleetWire {
    /// A frame read in one pass: its `type` member picks the message whose shape the same
    /// decoder then reads (reading the type first and the frame again after parsed every beat
    /// twice, which the hub does forty times a second at 200 kiosks).
    struct Envelope: Decodable {
        /// The message read.
        let message: FleetMessage

        /// Why a frame with a `type` did not fit that type's shape.
        struct ShapeError: Error {
            /// The frame's `type`.
            let type: String
            /// The decoder's error.
            let underlying: any Error
        }

        private enum Key: String, CodingKey { case type }

        init(from decoder: any Decoder) throws {
            let type = try decoder.container(keyedBy: Key.self).decode(String.self, forKey: .type)
            do {
                message = try Self.message(of: type, from: decoder)
            } catch {
                throw ShapeError(type: type, underlying: error)
            }
        }

        private static func message(of type: String, from decoder: any Decoder) throws -> FleetMessage {
            switch type {
            case "challenge": .challenge(try HubChallenge(from: decoder))
            case "hello": .hello(try KioskHello(from: decoder))
            case "welcome": .welcome(try Welcome(from: decoder))
            case "beat": .beat(try Beat(from: decoder))
            case "ack": .ack(try Ack(from: decoder))
            case "bye": .bye(try Bye(from: decoder))
            case "screenshot": .screenshot(try ScreenshotRequest(from: decoder))
            case "screenshotResult": .screenshotResult(try ScreenshotResult(from: decoder))
            case "beatNow": .beatNow(try BeatNow(from: decoder))
            default: .unknown(type: type)
            }
        }
    }
}
