/// Things the host waits for the viewer to do in the browser chrome: close a media overlay,
/// answer "save the session?". Each wait has an id that the page sends back with the answer.
actor ViewerPrompts {
    private var waiting: [String: CheckedContinuation<JSONValue?, Never>] = [:]
    private var early: [String: JSONValue] = [:]

    package init() {}

    /// Waits for the answer to prompt `id`; `nil` when the wait is cancelled (the page went away).
    package func answer(to id: String) async -> JSONValue? {
        if let value = early.removeValue(forKey: id) { return value }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting[id] = continuation
            }
        } onCancel: {
            Task { await self.resolve(id, with: nil) }
        }
    }

    /// Delivers the answer to prompt `id`. An answer that arrives before the wait starts is kept
    /// for it. Returns `false` when nobody waits for it yet.
    @discardableResult
    package func resolve(_ id: String, with value: JSONValue?) -> Bool {
        if let continuation = waiting.removeValue(forKey: id) {
            continuation.resume(returning: value)
            return true
        }
        if let value {
            if early.count >= 64 { early.removeAll() }
            early[id] = value
        }
        return false
    }

    /// Whether a prompt is open.
    func isWaiting(_ id: String) -> Bool { waiting[id] != nil }

    /// The ids of the open prompts.
    package var open: [String] { Array(waiting.keys) }
}
