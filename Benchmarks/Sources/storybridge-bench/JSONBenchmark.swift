import Foundation
import StoryBridge

/// `storybridge-bench json`: the host's hand-written JSON reader and writer against Foundation's
/// `JSONSerialization` and `JSONDecoder`/`JSONEncoder`, on bridge frames built here, in one run.
///
/// Every reader ends with the host's request type (`BridgeRequest`), so each path pays for what
/// the host would need: the text's UTF-8 bytes, the parse, and the conversion to requests.
struct JSONBenchmark {
    /// Measurements per reader and frame; the best is reported (the least disturbed by other work).
    var rounds = 7
    /// How long one measurement runs.
    var secondsPerMeasurement = 0.2

    /// A frame as content sends it over the bridge socket.
    struct Frame {
        let name: String
        let text: String
        let requests: Int
    }

    /// A way to turn a frame into requests; returns how many it read.
    struct Reader: Sendable {
        let name: String
        let read: @Sendable (String) throws -> Int
    }

    /// A way to turn a response into its wire bytes; returns how many bytes.
    struct Writer: Sendable {
        let name: String
        let write: @Sendable (BridgeResponse) throws -> Int
    }

    /// One reader's or writer's best rate on one input.
    struct Rate {
        let name: String
        let opsPerSecond: Double
    }

    func run() throws {
        print("JSON reader: hand-written (BridgeRequest.requests(fromFrame:)) vs Foundation, best of \(rounds) rounds")
        for frame in Self.frames() {
            let readers = Self.readers
            for reader in readers {
                let read = try reader.read(frame.text)
                guard read == frame.requests else {
                    throw BenchmarkFailure("\(reader.name) read \(read) requests from '\(frame.name)', expected \(frame.requests)")
                }
            }
            let rates = try measure(readers.map { reader in (reader.name, { _ = try reader.read(frame.text) }) })
            report(frame.name + " (\(frame.text.utf8.count) bytes)", rates)
        }
        print("")
        print("JSON writer: hand-written (BridgeResponse.jsonBytes) vs Foundation, best of \(rounds) rounds")
        for (name, response) in Self.responses() {
            let writers = Self.writers
            let expected = response.jsonBytes.count
            for writer in writers {
                let count = try writer.write(response)
                // Foundation escapes "/" as "\/"; the sizes may differ by those escapes only.
                guard abs(count - expected) <= expected / 10 + 8 else {
                    throw BenchmarkFailure("\(writer.name) wrote \(count) bytes for '\(name)', expected about \(expected)")
                }
            }
            let rates = try measure(writers.map { writer in (writer.name, { _ = try writer.write(response) }) })
            report(name + " (\(expected) bytes)", rates)
        }
    }

    /// Runs each operation for ``secondsPerMeasurement``, interleaved, ``rounds`` times; keeps the best rate.
    private func measure(_ operations: [(String, () throws -> Void)]) throws -> [Rate] {
        var best = [Double](repeating: 0, count: operations.count)
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            for (index, operation) in operations.enumerated() {
                var count = 0
                let started = clock.now
                let stop = started + .milliseconds(Int64(secondsPerMeasurement * 1000))
                var now = started
                while now < stop {
                    for _ in 0..<8 { try operation.1() }
                    count += 8
                    now = clock.now
                }
                best[index] = max(best[index], Double(count) / seconds(now - started))
            }
        }
        return zip(operations, best).map { Rate(name: $0.0, opsPerSecond: $1) }
    }

    private func report(_ title: String, _ rates: [Rate]) {
        print("  \(title)")
        let reference = rates[0].opsPerSecond
        for rate in rates {
            let ratio = reference / rate.opsPerSecond
            print(
                "    \(rate.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(String(format: "%12.0f", rate.opsPerSecond)) ops/s"
                    + (rate.name == rates[0].name
                        ? ""
                        : ratio >= 1
                            ? String(format: "   hand-written %.2fx faster", ratio)
                            : String(format: "   hand-written %.2fx SLOWER", 1 / ratio)))
        }
    }

    // MARK: - The frames

    /// A GUID in the format storyclm.js makes.
    static func guid(_ number: Int) -> String {
        "GUID_\(number)" + String(repeating: "9f3c1a7be2d04c58", count: 2)
    }

    /// The usual frame, the bigger frames the same content sends, as their wire text.
    static func frames() -> [Frame] {
        let small = BridgeRequest(command: "getCurrentSlideName", data: .emptyObject, guid: guid(1))
        let drained: [BridgeRequest] = (0..<50).map { index in
            switch index % 5 {
            case 0: return BridgeRequest(command: "getCurrentSlideName", guid: guid(index))
            case 1:
                return BridgeRequest(
                    command: "setCustomEvent", data: ["key": .string("quiz-\(index)"), "value": .string("answer \(index)")],
                    guid: guid(index))
            case 2:
                return BridgeRequest(
                    command: "goToSlide", data: ["slide": .string("slide\(index).html"), "data": ["from": "menu", "step": .int(index)]],
                    guid: guid(index))
            case 3: return BridgeRequest(command: "getUserInfo", guid: guid(index))
            default:
                return BridgeRequest(
                    command: "setSessionData", data: ["complete": .bool(index % 2 == 0), "score": .double(Double(index) / 4)])
            }
        }
        let longString = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 1150)
        let large = BridgeRequest(
            command: "setSlideData",
            data: [
                "note": .string(String(longString.prefix(64 * 1024))),
                "form": .object(
                    Dictionary(
                        uniqueKeysWithValues: (0..<40).map { index in
                            (
                                "field\(index)",
                                JSONValue.object([
                                    "label": .string("Question \(index) — «\(index)»"), "value": .int(index * 37),
                                    "weight": .double(Double(index) * 0.125), "checked": .bool(index % 3 == 0),
                                    "choices": .array((0..<5).map { .string("choice \($0)") }),
                                ])
                            )
                        })),
            ],
            guid: guid(7))
        return [
            Frame(name: "small request", text: small.json.jsonString(), requests: 1),
            Frame(name: "drained queue of 50 requests", text: JSONValue.array(drained.map(\.json)).jsonString(), requests: 50),
            Frame(name: "request with 64 KB string + nested object", text: large.json.jsonString(), requests: 1),
        ]
    }

    static func responses() -> [(String, BridgeResponse)] {
        [
            ("small response", .success(guid: guid(1), data: .string("index.html"))),
            (
                "response with 64 KB string",
                .success(
                    guid: guid(2),
                    data: [
                        "note": .string(String(repeating: "Lorem ipsum dolor sit amet. ", count: 2341)),
                        "slides": .array((0..<20).map { .string("slide\($0).html") }),
                    ])
            ),
        ]
    }

    // MARK: - Readers

    static let readers: [Reader] = [
        Reader(name: "hand-written reader") { text in
            try BridgeRequest.requests(fromFrame: text).reduce(0) { count, item in
                _ = try item.get()
                return count + 1
            }
        },
        Reader(name: "JSONSerialization -> JSONValue") { text in
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            return try requests(from: try FoundationJSON.value(object))
        },
        Reader(name: "JSONDecoder -> JSONValue (Codable)") { text in
            try requests(from: try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
        },
        Reader(name: "JSONDecoder -> typed request") { text in
            let data = Data(text.utf8)
            if text.utf8.first == UInt8(ascii: "[") {
                return try JSONDecoder().decode([FoundationJSON.WireRequest].self, from: data).map(\.request).count
            }
            _ = try JSONDecoder().decode(FoundationJSON.WireRequest.self, from: data).request
            return 1
        },
    ]

    /// The requests in a parsed frame, as the host reads them.
    static func requests(from json: JSONValue) throws -> Int {
        if case .array(let elements) = json {
            return try elements.map { try BridgeRequest(json: $0) }.count
        }
        _ = try BridgeRequest(json: json)
        return 1
    }

    // MARK: - Writers

    static let writers: [Writer] = [
        Writer(name: "hand-written writer") { response in response.jsonBytes.count },
        Writer(name: "JSONSerialization (sorted keys)") { response in
            try JSONSerialization.data(withJSONObject: FoundationJSON.object(response.json), options: [.sortedKeys]).count
        },
        Writer(name: "JSONEncoder (sorted keys)") { response in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(FoundationJSON.WireResponse(response)).count
        },
    ]
}

/// Conversions between Foundation's JSON representations and the host's types, written the way
/// the host would have to if it used Foundation.
enum FoundationJSON {
    /// A `JSONSerialization` value as a ``JSONValue`` (booleans, integers and doubles kept apart).
    static func value(_ object: Any) throws -> JSONValue {
        switch object {
        case let text as String: return .string(text)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return .double(number.doubleValue)
            default: return .int(number.intValue)
            }
        case let array as [Any]: return .array(try array.map(value))
        case let members as [String: Any]: return .object(try members.mapValues(value))
        case is NSNull: return .null
        default: throw BenchmarkFailure("unexpected \(type(of: object)) from JSONSerialization")
        }
    }

    /// A ``JSONValue`` as a `JSONSerialization` object.
    static func object(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return NSNumber(value: flag)
        case .int(let number): return NSNumber(value: number)
        case .double(let number): return NSNumber(value: number)
        case .string(let text): return text
        case .array(let elements): return elements.map(object)
        case .object(let members): return members.mapValues(object)
        }
    }

    /// A request decoded member by member with `JSONDecoder`.
    struct WireRequest: Decodable {
        let command: String
        let data: JSONValue?
        let guid: String?

        enum CodingKeys: String, CodingKey {
            case command = "Command", data = "Data", guid = "GUID"
        }

        var request: BridgeRequest {
            BridgeRequest(command: command, data: data ?? .emptyObject, guid: guid.flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    /// A response encoded with `JSONEncoder`, members named as on the wire.
    struct WireResponse: Encodable {
        let data: JSONValue
        let errorCode: Int
        let errorMessage: String
        let guid: String
        let status: String

        enum CodingKeys: String, CodingKey {
            case data = "Data", errorCode = "ErrorCode", errorMessage = "ErrorMessage", guid = "GUID", status = "Status"
        }

        init(_ response: BridgeResponse) {
            data = response.data
            errorCode = response.errorCode
            errorMessage = response.errorMessage
            guid = response.guid
            status = response.status.rawValue
        }
    }
}
