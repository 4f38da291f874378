import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// The single, ordered way out of one page connection: answers and host events are queued in the
/// order they are sent and written by the connection's one writer, ``run(counted:)``, as one text
/// frame each; an answer sent while nothing waits is written by the task that made it. The
/// writer is a child task of the connection's handler (`BridgeSocket` runs it in the
/// connection's task group), so it ends, and is awaited, before the connection does.
///
/// The queue is an `NIOAsyncSequenceProducer` with high and low watermarks: a task answering the
/// page (``sendNow(_:)``) waits while the queue is above its high watermark, until the writer has
/// brought it under the low one, so a page that does not read its answers slows its own requests
/// instead of growing the host's memory. Messages sent from synchronous code (``send(_:)``, host
/// events) are queued without waiting.
final class OutboundChannel: Sendable {
    private typealias Frames = NIOAsyncSequenceProducer<
        ByteBuffer, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, Demand
    >

    /// Most messages queued before ``sendNow(_:)`` waits, and how few let it go on.
    static let highWatermark = 256
    static let lowWatermark = 64

    private let source: Frames.Source
    /// The queue's reading end, read by ``run(counted:)`` only.
    private let frames: Frames
    private let outbound: WebSocketOutboundWriter
    private let demand = Demand()
    private let closed = Atomic(false)
    /// Messages queued and not yet handed to `outbound`, plus one while ``sendNow(_:)`` writes its
    /// own: at 0, nothing sent before can still be behind a message written now.
    private let unwritten = Atomic(0)

    /// A channel whose messages ``run(counted:)`` writes to `outbound`, as text frames. Messages
    /// sent before the writer runs wait in the queue.
    init(_ outbound: WebSocketOutboundWriter) {
        let frames = Frames.makeSequence(
            backPressureStrategy: .init(lowWatermark: Self.lowWatermark, highWatermark: Self.highWatermark),
            finishOnDeinit: false, delegate: demand)
        source = frames.source
        self.frames = frames.sequence
        self.outbound = outbound
    }

    /// Queues `text`.
    func send(_ text: String) {
        enqueue(ByteBuffer(string: text))
    }

    /// Queues `bytes` (a message already written as UTF-8), without waiting.
    func send(_ bytes: [UInt8]) {
        enqueue(ByteBuffer(bytes: bytes))
    }

    /// Writes `bytes` from the calling task when nothing is queued or being written, so the
    /// answer is not handed over to the writer task (one thread hop less; measured in
    /// docs/BENCHMARKS.md); otherwise queues them, waiting while the queue is above its high
    /// watermark. Either way it comes after everything sent before the call. Inlined into the
    /// reading loop: one async frame less per answer.
    @inline(__always)
    func sendNow(_ bytes: [UInt8]) async {
        if unwritten.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged {
            defer { unwritten.subtract(1, ordering: .sequentiallyConsistent) }
            guard !closed.load(ordering: .sequentiallyConsistent) else { return }
            do {
                try await write(ByteBuffer(bytes: bytes))
            } catch {
                close()
            }
            return
        }
        let round = demand.round
        if case .stopProducing = enqueue(ByteBuffer(bytes: bytes)) {
            await demand.waitForMore(after: round)
        }
    }

    @discardableResult
    private func enqueue(_ frame: ByteBuffer) -> Frames.Source.YieldResult {
        unwritten.add(1, ordering: .sequentiallyConsistent)
        let result = source.yield(frame)
        if case .dropped = result { unwritten.subtract(1, ordering: .sequentiallyConsistent) }
        return result
    }

    /// Writes one message as a text frame to the connection.
    @inline(__always)
    private func write(_ message: ByteBuffer) async throws {
        try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: message)))
    }

    /// Drops whatever is queued and refuses more (the connection has ended).
    func close() {
        closed.store(true, ordering: .sequentiallyConsistent)
        source.finish()
    }

    /// The writer, run once by a child task of the connection: the queued frames in order, until
    /// the channel is closed, the task is cancelled or a write fails (the connection is gone); then
    /// the queue refuses more. `metrics` counts it while it runs.
    func run(counted metrics: HostMetrics) async {
        metrics.writerStarted()
        defer { metrics.writerEnded() }
        for await frame in frames {
            guard !closed.load(ordering: .sequentiallyConsistent) else { break }
            do {
                try await write(frame)
                unwritten.subtract(1, ordering: .sequentiallyConsistent)
            } catch {
                break
            }
        }
        close()
    }

    /// Lets the tasks waiting for room go on once the writer asks for more.
    private final class Demand: NIOAsyncSequenceProducerDelegate, Sendable {
        /// How many times the writer asked for more (or the queue ended).
        private let rounds = Atomic(0)
        private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])

        var round: Int { rounds.load(ordering: .sequentiallyConsistent) }

        /// Returns once the writer has asked for more after `round` (at once if it has already).
        func waitForMore(after round: Int) async {
            await withCheckedContinuation { continuation in
                let resumeNow = waiting.withLock { waiting -> Bool in
                    guard rounds.load(ordering: .sequentiallyConsistent) == round else { return true }
                    waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func produceMore() { release() }
        func didTerminate() { release() }

        private func release() {
            rounds.add(1, ordering: .sequentiallyConsistent)
            let released = waiting.withLock { waiting in
                defer { waiting = [] }
                return waiting
            }
            for continuation in released { continuation.resume() }
        }
    }
}
