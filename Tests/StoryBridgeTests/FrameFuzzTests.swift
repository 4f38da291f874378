import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// Makes malformed, mutated and valid frames.
struct FrameFactory {
    var random: SplitMix64
    var counter = 0
    let commands = [
        "getUserInfo", "getAppInfo", " getAppInfo ", "getsessions", "go", "getNavigationData", "getMap", "getCurrentSlideName",
        "getPresentationInfo", "setCustomEvent", "getCustomEventByKey", "httpget", "findByQuery", "tables", "nope", "",
        "closePresentation", "open", "getSessionById", "hideMapBtn", "storybridge.promptAnswer", "storybridge.state",
    ]

    mutating func guid() -> String {
        counter += 1
        return "GUID_\(counter)" + String(UInt64.random(in: 0...UInt64.max, using: &random), radix: 16)
    }

    mutating func value(depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 5 : 8), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(Int.random(in: Int.min...Int.max, using: &random))
        case 3: return .double(Double.random(in: -1e300...1e300, using: &random))
        case 4:
            return .string(
                ["", "index.html", "a.html", "k", "\u{0}", "😀", "../x", String(repeating: "z", count: 300)].randomElement(using: &random)!)
        case 5: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for key in ["slideName", "data", "key", "value", "presId", "id", "url", "query", "mode", "name", "prompt"].shuffled(
                using: &random
            ).prefix(Int.random(in: 0...4, using: &random)) {
                members[key] = value(depth: depth + 1)
            }
            return .object(members)
        }
    }

    mutating func request() -> JSONValue {
        var members: [String: JSONValue] = ["Command": .string(commands.randomElement(using: &random)!), "Data": value()]
        switch Int.random(in: 0..<10, using: &random) {
        case 0: members["Command"] = value()
        case 1: members["GUID"] = value()
        case 2: members.removeValue(forKey: "Command")
        case 3: break  // fire-and-forget
        default: members["GUID"] = .string(guid())
        }
        if members["Command"] == .string("closePresentation") { members["Data"] = ["mode": 1] }
        return .object(members)
    }

    mutating func frame() -> String {
        switch Int.random(in: 0..<8, using: &random) {
        case 0:  // random bytes
            let bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            return String(decoding: bytes, as: UTF8.self)
        case 1:  // mutated valid text
            var characters = Array(request().jsonString())
            for _ in 0..<Int.random(in: 1...4, using: &random) where !characters.isEmpty {
                let index = Int.random(in: 0..<characters.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: characters.remove(at: index)
                case 1: characters.insert(["{", "}", "\"", ",", ":", "[", "]", "\\", "0"].randomElement(using: &random)!, at: index)
                default: characters[index] = ["{", "\"", "x", "]", " "].randomElement(using: &random)!
                }
            }
            return String(characters)
        case 2:  // a drained queue mixing good and bad elements
            return JSONValue.array(
                (0..<Int.random(in: 0...6, using: &random)).map { _ in Bool.random(using: &random) ? request() : value() }
            ).jsonString()
        case 3:  // deep nesting
            let depth = Int.random(in: 20...3000, using: &random)
            return String(repeating: "[", count: depth) + String(repeating: "]", count: Int.random(in: 0...depth, using: &random))
        case 4:  // a JSON value that is not a request
            return value().jsonString()
        default:
            return request().jsonString()
        }
    }
}

@Suite("Fuzzing the router")
struct FrameFuzzTests {
    @Test("100,000 malformed and mutated frames: no crash, and exactly one answer per GUID-bearing request")
    func fuzz() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let host = StoryBridgeHost(
            library: PresentationLibrary([presentation]), database: try temporaryDatabase(),
            policy: ViewerPolicy(closeDecision: .cancel, restoreDecision: .new), defaultDeadline: .seconds(5),
            logger: quietLogger())
        host.bridge.unsubscribe(commands: ["openMediaLibrary", "openMediaFile"])
        let viewer = await host.viewers.viewer(id: "fuzz")
        await host.pageLoaded(viewer, presentationId: 1, slide: "index.html", pageLoad: "1")
        var factory = FrameFactory(random: SplitMix64(state: 20_261_122))
        var answered = 0
        var expectedTotal = 0
        for index in 0..<100_000 {
            let frame = factory.frame()
            // What the frame should produce: one answer per readable GUID.
            var expected: [String: Int] = [:]
            do {
                for item in try BridgeRequest.requests(fromFrame: frame) {
                    switch item {
                    case .success(let request): if let guid = request.guid { expected[guid, default: 0] += 1 }
                    case .failure(.invalidMember(_, _, let guid?)): expected[guid, default: 0] += 1
                    default: break
                    }
                }
            } catch .invalidMember(_, _, let guid?) {
                expected[guid, default: 0] += 1
            } catch {}
            let outbox = Outbox()
            let dispatcher = PageConnection(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
            await withDiscardingTaskGroup { group in
                await dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
            }
            await dispatcher.drained()
            dispatcher.close()
            var got: [String: Int] = [:]
            for message in outbox.all {
                if let guid = message["GUID"]?.stringValue { got[guid, default: 0] += 1 }
            }
            if got != expected {
                Issue.record("frame \(index) answered \(got) but expected \(expected): \(frame.prefix(300))")
                break
            }
            answered += got.values.reduce(0, +)
            expectedTotal += expected.values.reduce(0, +)
        }
        #expect(answered == expectedTotal)
        #expect(answered > 30_000)
    }
}
