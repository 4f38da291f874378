/// A buffered queue of values with waits that time out: what a test reads incoming messages from.
public actor Mailbox<Value: Sendable> {
    private var buffered: [Value] = []
    private var waiters: [(id: Int, continuation: CheckedContinuation<Value?, Never>)] = []
    private var finished = false
    private var nextWaiterId = 0

    public init() {}

    /// Adds a value, waking the oldest waiter.
    public func put(_ value: Value) {
        if !waiters.isEmpty {
            waiters.removeFirst().continuation.resume(returning: value)
        } else {
            buffered.append(value)
        }
    }

    /// Ends the mailbox: waiters and later reads get `nil` once the buffer is empty.
    public func finish() {
        finished = true
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
        waiters.removeAll()
    }

    /// The next value, or `nil` when none arrives within `timeout` or the mailbox is finished.
    public func next(timeout: Duration) async -> Value? {
        if !buffered.isEmpty { return buffered.removeFirst() }
        if finished { return nil }
        nextWaiterId += 1
        let id = nextWaiterId
        return await withCheckedContinuation { continuation in
            waiters.append((id, continuation))
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    /// Values received and not read yet.
    public var pending: [Value] { buffered }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}
