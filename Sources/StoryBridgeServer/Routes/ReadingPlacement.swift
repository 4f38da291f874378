/// Where a page connection's reading task runs, decided frame by frame from how long it waited
/// for each frame: on its socket's event loop while the page waits for its answers (a frame read,
/// answered from memory and written on the thread that reads and writes the socket, with no hop
/// to another thread and back), on Swift's global executor while frames come back to back (a
/// page or client pipelining, whose frames the event loop goes on decoding while the pool
/// answers the ones before: more answers a second). Measured in docs/BENCHMARKS.md ("The reading
/// task on the event loop while the page waits").
///
/// A plain value with no locks: the reading task tells it of each frame and moves when it says.
struct ReadingPlacement: Sendable, Equatable {
    /// Where the reading task runs.
    enum Place: Sendable, Equatable {
        case eventLoop
        case globalExecutor
    }

    /// Where the next frame is read.
    private(set) var place: Place
    /// Frames in a row that point away from ``place``: already waiting when asked for (on the
    /// event loop), or waited for (on the global executor).
    private var pointingAway = 0
    /// A frame read sooner than this after it was asked for counts as already waiting
    /// (``waitingFrame`` unless a test gives its own).
    private let waitingBound: Duration

    /// A frame read sooner than this after the reading task asked for it was already waiting: the
    /// page sent it without waiting for the answers before it. A page that waits for each answer
    /// makes the host wait a round trip (about 50 µs from a native client on loopback, 200 µs and
    /// more from a browser). Set for a release build: a debug build on a slow machine takes about
    /// 50 µs to read a frame already there, so its reading task stays on the event loop.
    static let waitingFrame: Duration = .microseconds(20)
    /// Frames in a row already waiting that move the reading to the global executor.
    static let waitingFramesToMove = 4
    /// Frames in a row waited for that move it back to the event loop: more than to leave, so
    /// that a pipelining connection that now and then catches up stays where it is.
    static let awaitedFramesToMove = 8

    /// A connection's first placement: its event loop (a page starts by waiting for answers).
    /// `waitingFrame`: the bound under which a frame counts as already waiting.
    init(place: Place = .eventLoop, waitingFrame: Duration = Self.waitingFrame) {
        self.place = place
        self.waitingBound = waitingFrame
    }

    /// A frame has been read after the reading task waited `waited` for it; returns where the
    /// next one is read.
    @discardableResult
    mutating func frameRead(waited: Duration) -> Place {
        let wasWaiting = waited < waitingBound
        let away: Bool
        let needed: Int
        switch place {
        case .eventLoop: (away, needed) = (wasWaiting, Self.waitingFramesToMove)
        case .globalExecutor: (away, needed) = (!wasWaiting, Self.awaitedFramesToMove)
        }
        guard away else {
            pointingAway = 0
            return place
        }
        pointingAway += 1
        if pointingAway >= needed {
            pointingAway = 0
            place = place == .eventLoop ? .globalExecutor : .eventLoop
        }
        return place
    }
}
