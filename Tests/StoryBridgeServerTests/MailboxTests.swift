import Testing

@testable import StoryBridgeScripts

@Suite("Mailbox")
struct MailboxTests {
    @Test("a wait answered by a value lets go of the mailbox at once, not when its long timeout would have passed")
    func answeredWaitHoldsNothing() async throws {
        weak var released: Mailbox<Int>?
        do {
            let mailbox = Mailbox<Int>()
            released = mailbox
            async let value = mailbox.next(timeout: .seconds(3600))
            while await mailbox.waitingCount == 0 { await Task.yield() }
            await mailbox.put(7)
            #expect(await value == 7)
        }
        // The cancelled timer task ends promptly and drops its reference.
        let deadline = ContinuousClock.now + .seconds(5)
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil)
    }

    @Test("a wait that nothing answers ends with nil at its timeout; a later value is kept for the next read")
    func timeout() async {
        let mailbox = Mailbox<String>()
        #expect(await mailbox.next(timeout: .milliseconds(20)) == nil)
        await mailbox.put("late")
        #expect(await mailbox.next(timeout: .milliseconds(20)) == "late")
        await mailbox.finish()
        #expect(await mailbox.next(timeout: .seconds(3600)) == nil)
    }

    @Test("a wait without a time limit gets the next value, and nil once the mailbox is finished")
    func untilFinished() async {
        let mailbox = Mailbox<Int>()
        async let first = mailbox.next()
        while await mailbox.waitingCount == 0 { await Task.yield() }
        await mailbox.put(1)
        #expect(await first == 1)
        async let last = mailbox.next()
        while await mailbox.waitingCount == 0 { await Task.yield() }
        await mailbox.finish()
        #expect(await last == nil)
    }
}
