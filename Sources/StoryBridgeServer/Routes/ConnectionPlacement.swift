/// Where a page connection's tasks run (``BridgeSocket/serve(_:inbound:outbound:placement:)``).
enum ConnectionPlacement: Sendable {
    /// Everything on the executor `serve` is called on: with
    /// ``ServerConfiguration/connectionsOnEventLoop``, the socket's event loop.
    case whereCalled
    /// The default: the reading task moves between the socket's event loop (this executor) and
    /// Swift's global executor as ``ReadingPlacement`` says; module work (the page's queue,
    /// concurrent commands, the page load's analytics) and the writer run on the global
    /// executor, so a module handler never holds the event loop. `waitingFrame`: the bound under
    /// which a frame counts as already waiting (``ReadingPlacement/waitingFrame``).
    case adaptive(EventLoopTaskExecutor, waitingFrame: Duration = ReadingPlacement.waitingFrame)
}
