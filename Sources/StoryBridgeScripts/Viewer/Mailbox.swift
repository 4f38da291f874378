/// A buffered queue of values with waits that time out: what a test reads incoming messages from.
public actor Mailbox<Value: Sendable> {
    private var buffered: [Value] = []
    /// Readers waiting for a value, each with the timer that ends its wait; the timer is cancelled
    /// when the wait ends otherwise, so a long timeout holds nothing once answered.
    private var waiters: [(id: Int, continuation: CheckedContinuation<Value?, Never>, timer: Task<Void, Never>)] = []
    private var finished = false
    private var nextWaiterId = 0

    public init() {}

    /// Adds a value, waking the oldest waiter.
    public func put(_ value: Value) {
        if !waiters.isEmpty {
            let waiter = waiters.removeFirst()
            waiter.timer.cancel()
            waiter.continuation.resume(returning: value)
        } else {
            buffered.append(value)
        }
    }

    /// Ends the mailbox: waiters and later reads get `nil` once the buffer is empty.
    public func finish() {
        finished = true
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: nil)
        }
        waiters.removeAll()
    }

    /// The next value, or `nil` when none arrives within `timeout` or the mailbox is finished.
    public func next(timeout: Duration) async -> Value? {
        if !buffered.isEmpty { return buffered.removeFirst() }
        if finished { return nil }
        nextWaiterId += 1
        let id = nextWaiterId
        return await withCheckedContinuation { continuation in
            let timer = Task {
                // Cancelled when a value or the end arrives first: then it neither waits nor expires.
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self.expire(id)
            }
            waiters.append((id, continuation, timer))
        }
    }

    /// How many reads wait for a value.
    var waitingCount: Int { waiters.count }

    /// Values received and not read yet.
    public var pending: [Value] { buffered }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}
