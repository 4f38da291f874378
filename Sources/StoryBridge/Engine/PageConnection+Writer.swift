import NIOCore

extension PageConnection {
    /// An answer made in the page's order (by the reading task or the worker): written by the
    /// calling task when nothing is queued or being written (no hop to the writer task; measured
    /// in docs/BENCHMARKS.md), queued otherwise, waiting while the queue is full, so a page that
    /// does not read its answers slows its own requests instead of growing the host's memory.
    /// Either way it comes after everything sent before.
    func deliver(_ message: ByteBuffer?, by answerer: Machine.Answerer) async {
        switch withMachine({ $0.answerMade(message, by: answerer) }) {
        case .writeNow:
            guard let message else { return }
            let written: Bool
            do {
                try await output(message, true)
                written = true
            } catch {
                written = false
            }
            withMachine { $0.writeDone(succeeded: written) }
        case .queuedWaitForRoom:
            await park(answerer == .reader ? .reader(.outboundRoom) : .worker)
        case .queued, .nothingToWrite, .drop:
            return
        }
    }

    /// Queues an answer (nothing for a request without a GUID) from anywhere, without waiting.
    func send(_ response: BridgeResponse?) {
        send(message(response))
    }

    /// Queues `message` for the writer, without waiting.
    func send(_ message: ByteBuffer?) {
        withMachine { $0.answerMade(message, by: .elsewhere) }
    }

    /// Queues a host event (its JSON text) for the writer, without waiting.
    package func send(event text: String) {
        send(ByteBuffer(string: text))
    }

    /// The connection's one writer, run once by a child task of the connection: the queued
    /// messages in order, until the connection is closed (``close()``), the task is cancelled or a
    /// write fails (the page is gone).
    package func runWriter() async {
        while true {
            switch withMachine({ $0.nextWrite() }) {
            case .write(let message):
                let written: Bool
                do {
                    try await output(message, false)
                    written = true
                } catch {
                    written = false
                }
                withMachine { $0.writeDone(succeeded: written) }
            case .park:
                await withTaskCancellationHandler {
                    await park(.writer)
                } onCancel: {
                    close()
                }
            case .stop:
                return
            }
        }
    }

    /// The connection has ended: drops whatever is queued, writes nothing more, ends the writer
    /// and lets every waiting task go on.
    package func close() {
        withMachine { $0.connectionClosed() }
    }
}
