import NIOCore
import NIOHTTP1

/// The server sent nothing for the read timeout while the client was waiting for bytes.
struct BlobReadStalled: Error, Sendable, CustomStringConvertible {
    var timeout: TimeAmount

    var description: String {
        "the server sent nothing for \(Double(timeout.nanoseconds) / 1e9) s"
    }
}

/// Closes a blob connection when the server sends nothing for `timeout` **while the client is
/// waiting for bytes**: the clock runs from a read request that reaches the socket until the
/// next bytes arrive, and only then.
///
/// NIO's `IdleStateHandler` measures the time since the last bytes were read, whether or not the
/// client asked for more. A reader that pauses on purpose — the `--limit-rate` limiter sleeping —
/// lets `NIOAsyncChannel`'s buffer fill; past its high watermark the channel stops asking the
/// socket for bytes until the reader has drained it to the low watermark. At a low rate that
/// pause outlasts any read timeout (8 parts of up to 64 KB at 16 KB/s: 32 s), and the idle
/// handler closed a healthy connection, which the download then resumed after a back-off. Here a
/// pause of the reader stops no clock, because no read request is outstanding during it.
final class StalledReadTimeout: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private let timeout: TimeAmount
    /// Set while a read request waits for bytes.
    private var pending: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func read(context: ChannelHandlerContext) {
        if pending == nil {
            let timeout = self.timeout
            pending = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                pending = nil
                context.fireErrorCaught(BlobReadStalled(timeout: timeout))
                context.close(promise: nil)
            }
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        disarm()
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Bytes arrived (possibly too few for a whole part): the wait is over; the next read
        // request starts a new one.
        disarm()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    private func disarm() {
        pending?.cancel()
        pending = nil
    }
}
