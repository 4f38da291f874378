import Foundation
import HummingbirdWSClient
import Logging
import StoryBridge
import StoryBridgeFleet
import Synchronization

/// One simulated kiosk of `storybridge-bench fleet`: a WebSocket to the hub with its own Ed25519
/// host key, the real challenge and hello, then a beat built by ``FleetBenchBeat`` and encoded
/// by `FleetWire.encode` every interval, from `firstBeat` until `end`. Each beat's `sentAt` goes
/// to `sent`; the hub's acks are read and dropped.
struct FleetBenchKiosk: Sendable {
    let index: Int
    let name: String
    let token: String
    let port: Int
    let interval: Duration

    /// Connects at `firstBeat`, beats until `end` (the last beat is the last one due before it),
    /// then closes the socket. Throws when the hub refuses the kiosk or the socket fails.
    func run(firstBeat: ContinuousClock.Instant, end: ContinuousClock.Instant, sent: FleetBeatLog) async throws {
        try await Task.sleep(until: firstBeat, clock: .continuous)
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        configuration.additionalHeaders = [.authorization: "Bearer \(token)"]
        var logger = Logger(label: "bench.fleet-kiosk")
        logger.logLevel = .critical
        let key = HostKey()
        let builder = FleetBenchBeat.builder(index: index, name: name)
        let origin = "http://127.0.0.1:\(port)"
        let (index, interval) = (index, interval)
        let close = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)\(FleetWire.connectPath)", configuration: configuration, logger: logger
        ) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            guard case .text(let text) = try await messages.next(), case .challenge(let challenge) = try FleetWire.decode(Data(text.utf8))
            else { throw BenchmarkFailure("kiosk \(index): the hub sent no challenge") }
            let hello = KioskHello.signed(
                by: key, nonce: challenge.nonce, hubOrigin: origin, instance: builder.identity.instance, name: builder.identity.name,
                labels: builder.identity.labels, version: builder.identity.version,
                intervalSeconds: Int(interval.components.seconds), startedAt: Date().addingTimeInterval(-11_959), timeZone: "Europe/Berlin")
            try await outbound.write(.text(String(decoding: try FleetWire.encode(.hello(hello)), as: UTF8.self)))
            guard case .text(let answer) = try await messages.next(), case .welcome(let welcome) = try FleetWire.decode(Data(answer.utf8))
            else { throw BenchmarkFailure("kiosk \(index): the hub did not welcome the hello") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var due = ContinuousClock.now
                    var seq = 1
                    while due < end {
                        try await Task.sleep(until: due, clock: .continuous)
                        let beat = await builder.build(seq: seq)
                        let data = try FleetWire.encode(.beat(beat))
                        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
                        sent.record(device: welcome.device, sentAt: beat.sentAt, bytes: data.count)
                        seq += 1
                        due += interval
                    }
                    try await outbound.close(.normalClosure, reason: "bench over")
                }
                // Acks, until the hub answers the close.
                while try await messages.next() != nil {}
                try await group.waitForAll()
            }
        }
        if let close, close.closeCode != .normalClosure {
            throw BenchmarkFailure("kiosk \(index): the hub closed the socket with \(close.closeCode) \(close.reason ?? "")")
        }
    }
}

/// Every beat the simulated kiosks sent: per device, the `sentAt` of each beat in order, and the
/// encoded sizes. Written by the kiosks' tasks, read by the benchmark.
final class FleetBeatLog: Sendable {
    private struct State {
        var sentAt: [String: [Date]] = [:]
        var bytes = 0
        var count = 0
        var failure: String?
    }
    private let state = Mutex(State())

    func record(device: String, sentAt: Date, bytes: Int) {
        state.withLock {
            $0.sentAt[device, default: []].append(sentAt)
            $0.bytes += bytes
            $0.count += 1
        }
    }

    /// The beats sent so far, and their mean size in bytes.
    var totals: (count: Int, meanBytes: Double) {
        state.withLock { ($0.count, $0.count == 0 ? 0 : Double($0.bytes) / Double($0.count)) }
    }

    /// Notes the first kiosk that failed.
    func fail(_ reason: String) { state.withLock { $0.failure = $0.failure ?? reason } }

    /// Why the first kiosk failed, if one did.
    var failure: String? { state.withLock { $0.failure } }

    /// Per device, the `sentAt` of each beat in order.
    var all: [String: [Date]] { state.withLock { $0.sentAt } }
}
