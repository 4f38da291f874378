/// A buffered queue of values with waits that time out: what a test reads incoming messages from.
package actor Mailbox<Value: Sendable> {
    private var buffered: [Value] = []
    /// Readers waiting for a value, each with the timer that ends its wait; the timer is cancelled
    /// when the wait ends otherwise, so a long timeout holds nothing once answered.
    private var waiters: [(id: Int, continuation: CheckedContinuation<Value?, Never>, timer: Task<Void, Never>?)] = []
    private var finished = false
    private var nextWaiterId = 0

    package init() {}

    /// Adds a value, waking the oldest waiter.
    package func put(_ value: Value) {
        if !waiters.isEmpty {
            let waiter = waiters.removeFirst()
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: value)
        } else {
            buffered.append(value)
        }
    }

    /// Whether the mailbox has ended and every value in it was read.
    var isDrained: Bool { finished && buffered.isEmpty }

    /// Ends the mailbox: waiters and later reads get `nil` once the buffer is empty.
    package func finish() {
        finished = true
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: nil)
        }
        waiters.removeAll()
    }

    /// The next value, or `nil` when none arrives within `timeout` or the mailbox is finished.
    package func next(timeout: Duration) async -> Value? {
        await wait(timeout: timeout)
    }

    /// The next value, or `nil` once the mailbox is finished: a wait with no timer at all, for a
    /// loop that reads until the end (a cancelled timer's sleep stays scheduled until its time,
    /// so an hour-long timeout per read would pile up in a long run).
    package func next() async -> Value? {
        await wait(timeout: nil)
    }

    private func wait(timeout: Duration?) async -> Value? {
        if !buffered.isEmpty { return buffered.removeFirst() }
        if finished { return nil }
        nextWaiterId += 1
        let id = nextWaiterId
        return await withCheckedContinuation { continuation in
            let timer = timeout.map { timeout in
                Task {
                    // Cancelled when a value or the end arrives first: then it does not expire the wait.
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self.expire(id)
                }
            }
            waiters.append((id, continuation, timer))
        }
    }

    /// How many reads wait for a value.
    var waitingCount: Int { waiters.count }

    /// Values received and not read yet.
    package var pending: [Value] { buffered }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}
