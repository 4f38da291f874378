import Testing

@testable import StoryBridgeServer

@Suite("Where a page connection reads its frames: the event loop while the page waits, the pool while frames come back to back")
struct ReadingPlacementTests {
    private let waiting = ReadingPlacement.waitingFrame - .microseconds(1)
    private let awaited = ReadingPlacement.waitingFrame

    @Test("a connection starts on its event loop and stays there while each frame is waited for")
    func startsOnTheEventLoop() {
        var placement = ReadingPlacement()
        #expect(placement.place == .eventLoop)
        for _ in 0..<100 { #expect(placement.frameRead(waited: .microseconds(250)) == .eventLoop) }
    }

    @Test("four frames in a row already waiting move it to the global executor; three do not")
    func backToBackMovesToThePool() {
        var placement = ReadingPlacement()
        for _ in 1..<ReadingPlacement.waitingFramesToMove { #expect(placement.frameRead(waited: waiting) == .eventLoop) }
        // One waited for in between starts the count again.
        #expect(placement.frameRead(waited: awaited) == .eventLoop)
        for _ in 1..<ReadingPlacement.waitingFramesToMove { #expect(placement.frameRead(waited: waiting) == .eventLoop) }
        #expect(placement.frameRead(waited: waiting) == .globalExecutor)
    }

    @Test("on the global executor, eight frames in a row waited for move it back; a waiting frame among them starts the count again")
    func quietMovesBack() {
        var placement = ReadingPlacement(place: .globalExecutor)
        for _ in 1..<ReadingPlacement.awaitedFramesToMove { #expect(placement.frameRead(waited: awaited) == .globalExecutor) }
        #expect(placement.frameRead(waited: .zero) == .globalExecutor)
        for _ in 1..<ReadingPlacement.awaitedFramesToMove { #expect(placement.frameRead(waited: .milliseconds(3)) == .globalExecutor) }
        #expect(placement.frameRead(waited: .milliseconds(3)) == .eventLoop)
        // And out again by the same rule.
        for _ in 1..<ReadingPlacement.waitingFramesToMove { #expect(placement.frameRead(waited: .zero) == .eventLoop) }
        #expect(placement.frameRead(waited: .zero) == .globalExecutor)
    }
}
