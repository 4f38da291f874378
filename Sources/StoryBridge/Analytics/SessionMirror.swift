import Synchronization

/// A bounded, in-memory mirror of one kind of per-session data that lives in the database, kept
/// exactly in step with it, so that reads content makes on nearly every slide need no database
/// read. The database stays the record; a mirror only ever holds what a committed transaction left.
///
/// - A session is loaded by one read, the first time it is asked for. The load is kept only when
///   no committed change of that session came in while it was read (``beginLoad(_:)``,
///   ``finishLoad(_:value:)``), so a slow load never brings back an old value.
/// - Every committed change reaches the mirror after its transaction commits, from GRDB's writer
///   queue and so in commit order: ``update(_:_:)`` for changes the mirror can follow,
///   ``invalidate(_:)`` for the rest. A write that fails, or whose transaction does not commit,
///   changed nothing and reports nothing.
/// - Memory is bounded: at most ``Limits/sessions`` sessions and ``Limits/totalBytes`` bytes (as
///   `size` counts them), the least recently used sessions leaving first; a session whose value
///   is over ``Limits/bytesPerSession`` is not mirrored (its reads go to the database).
///
/// Only the host process writes what is mirrored; a change made to the file by another program
/// while `serve` runs is seen once the session has left the mirror.
final class SessionMirror<Value: Sendable>: Sendable {
    /// How much a mirror holds.
    struct Limits: Sendable {
        var sessions: Int
        var bytesPerSession: Int
        var totalBytes: Int
    }

    private struct Entry {
        var value: Value
        var bytes: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Sessions being loaded, and whether a change committed meanwhile (the load is then stale).
        var loading: [String: Bool] = [:]
        var tick: UInt64 = 0
        var bytes = 0

        mutating func remove(_ session: String) {
            if let entry = entries.removeValue(forKey: session) { bytes -= entry.bytes }
        }

        mutating func put(_ session: String, _ entry: Entry) {
            remove(session)
            entries[session] = entry
            bytes += entry.bytes
        }

        mutating func markChanged(_ session: String) {
            if loading[session] != nil { loading[session] = true }
        }
    }

    private let state = Mutex(State())
    let limits: Limits
    /// The bytes a value holds, for the limits; `nil` for a value that must not be mirrored.
    private let size: @Sendable (Value) -> Int?

    init(limits: Limits, size: @escaping @Sendable (Value) -> Int?) {
        self.limits = limits
        self.size = size
    }

    /// The mirrored value of `session`, if there is one (and it becomes the most recently used).
    func lookup(_ session: String) -> Value? {
        state.withLock { state in
            guard var entry = state.entries[session] else { return nil }
            state.tick += 1
            entry.lastUse = state.tick
            state.entries[session] = entry
            return entry.value
        }
    }

    /// Claims the load of `session`; false when it is mirrored already or another load is under
    /// way (the caller then reads from the database without mirroring).
    func beginLoad(_ session: String) -> Bool {
        state.withLock { state in
            guard state.entries[session] == nil, state.loading[session] == nil else { return false }
            state.loading[session] = false
            return true
        }
    }

    /// Ends a load claimed by ``beginLoad(_:)``: mirrors `value` (as read) unless a change of the
    /// session committed during the load or the value is over the limits. `nil`: the load failed.
    func finishLoad(_ session: String, value: Value?) {
        state.withLock { state in
            let stale = state.loading.removeValue(forKey: session) ?? true
            guard !stale, let value, let bytes = size(value), bytes <= limits.bytesPerSession else { return }
            state.tick += 1
            state.put(session, Entry(value: value, bytes: bytes, lastUse: state.tick))
            evictIfOver(&state)
        }
    }

    /// A committed change the mirror follows: applies `change` to the session's value when it is
    /// mirrored (and drops it when it grows over the limits).
    func update(_ session: String, _ change: (inout Value) -> Void) {
        state.withLock { state in
            guard var entry = state.entries[session] else {
                state.markChanged(session)
                return
            }
            change(&entry.value)
            guard let bytes = size(entry.value), bytes <= limits.bytesPerSession else {
                state.remove(session)
                return
            }
            entry.bytes = bytes
            state.put(session, entry)
            evictIfOver(&state)
        }
    }

    /// Forgets `session`: it changed in a way the mirror does not follow, or a transaction that
    /// changed it rolled back.
    func invalidate(_ session: String) {
        state.withLock { state in
            state.remove(session)
            state.markChanged(session)
        }
    }

    /// How many sessions are mirrored.
    var count: Int { state.withLock { $0.entries.count } }

    /// Bytes mirrored, as `size` counts them.
    var bytes: Int { state.withLock { $0.bytes } }

    /// Past a limit, drops the least recently used sessions until a tenth of each limit is free
    /// again, so that eviction is rare.
    private func evictIfOver(_ state: inout State) {
        guard state.entries.count > limits.sessions || state.bytes > limits.totalBytes else { return }
        let sessions = limits.sessions - limits.sessions / 10
        let bytes = limits.totalBytes - limits.totalBytes / 10
        for (session, _) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard state.entries.count > sessions || state.bytes > bytes else { break }
            state.remove(session)
        }
    }
}

extension SessionMirror {
    /// Reads `session` through the mirror: the mirrored value, or `load` from the database, which
    /// is mirrored when nothing changed meanwhile.
    func read(_ session: String, load: () async throws -> Value) async throws -> Value {
        if let value = lookup(session) { return value }
        guard beginLoad(session) else { return try await load() }
        do {
            let value = try await load()
            finishLoad(session, value: value)
            return value
        } catch {
            finishLoad(session, value: nil)
            throw error
        }
    }
}
