import Synchronization

/// The custom events of recently read sessions, in memory, so that a page's reads of its own
/// session's events (`getCustomEventByKey`: content reads its state on nearly every slide) are
/// answered without a database read.
///
/// The database stays the record; the cache only mirrors it:
/// - A session is loaded whole by one read, the first time one of its keys is asked for. The load
///   is kept only when no committed change of that session's events came in while it was read
///   (``beginLoad(_:)``, ``finishLoad(_:values:)``), so a slow load never brings back an old value.
/// - Every committed change updates the mirror after its transaction commits
///   (``committedSet(session:key:value:)``, ``committedDelete(session:key:)``,
///   ``invalidate(_:)``), from GRDB's writer queue, in commit order. A page's read after its own
///   write therefore sees the write, as it does in the database.
/// - Memory is bounded: at most ``Limits/sessions`` sessions and ``Limits/totalBytes`` bytes of
///   keys and values (the least recently used sessions leave first), and a session with more
///   than ``Limits/keysPerSession`` keys or ``Limits/bytesPerSession`` bytes is not mirrored (its
///   reads go to the database).
///
/// Only the host process writes custom events (through the bridge); a change made to the file by
/// another program while `serve` runs would not be seen until the session leaves the cache.
final class CustomEventCache: Sendable {
    /// How much the cache holds.
    struct Limits: Sendable {
        var sessions = 1_000
        var keysPerSession = 256
        var bytesPerSession = 16 * 1024
        var totalBytes = 4 * 1024 * 1024
    }

    /// What the cache knows of one key.
    enum Lookup: Equatable {
        /// The session is mirrored: the key's value, or `nil` when the session has no such key.
        case known(String?)
        /// The session is not mirrored: ask the database.
        case unknown
    }

    private struct Entry {
        var values: [String: String]
        var bytes: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Sessions being loaded, and whether a change committed meanwhile (the load is then stale).
        var loading: [String: Bool] = [:]
        var tick: UInt64 = 0
        /// Bytes of keys and values mirrored, over all sessions.
        var bytes = 0

        mutating func remove(_ session: String) {
            if let entry = entries.removeValue(forKey: session) { bytes -= entry.bytes }
        }

        mutating func put(_ session: String, _ entry: Entry) {
            remove(session)
            entries[session] = entry
            bytes += entry.bytes
        }
    }

    private let state = Mutex(State())
    let limits: Limits

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// The value of `key` in `session`, if the session is mirrored.
    func lookup(session: String, key: String) -> Lookup {
        state.withLock { state in
            guard var entry = state.entries[session] else { return .unknown }
            state.tick += 1
            entry.lastUse = state.tick
            let value = entry.values[key]
            state.entries[session] = entry
            return .known(value)
        }
    }

    /// Claims the load of `session`; false when it is mirrored already or another load is under
    /// way (the caller then reads the one key from the database).
    func beginLoad(_ session: String) -> Bool {
        state.withLock { state in
            guard state.entries[session] == nil, state.loading[session] == nil else { return false }
            state.loading[session] = false
            return true
        }
    }

    /// Ends a load claimed by ``beginLoad(_:)``: mirrors `values` (every key of the session, as read)
    /// unless a change of the session committed during the load, or the session is over the
    /// limits. `nil` values: the load failed.
    func finishLoad(_ session: String, values: [String: String]?) {
        state.withLock { state in
            let stale = state.loading.removeValue(forKey: session) ?? true
            guard !stale, let values, values.count <= limits.keysPerSession else { return }
            let bytes = values.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
            guard bytes <= limits.bytesPerSession else { return }
            state.tick += 1
            state.put(session, Entry(values: values, bytes: bytes, lastUse: state.tick))
            evictIfOver(&state)
        }
    }

    /// A committed `setCustomEvent`: `key` of `session` now holds `value`.
    func committedSet(session: String, key: String, value: String) {
        state.withLock { state in
            guard var entry = state.entries[session] else {
                Self.markChanged(&state, session)
                return
            }
            let old = entry.values.updateValue(value, forKey: key)
            entry.bytes += value.utf8.count - (old.map { $0.utf8.count } ?? -key.utf8.count)
            if entry.values.count > limits.keysPerSession || entry.bytes > limits.bytesPerSession {
                state.remove(session)
            } else {
                state.put(session, entry)
                evictIfOver(&state)
            }
        }
    }

    /// A committed delete of `key` from `session`.
    func committedDelete(session: String, key: String) {
        state.withLock { state in
            guard var entry = state.entries[session] else {
                Self.markChanged(&state, session)
                return
            }
            if let old = entry.values.removeValue(forKey: key) { entry.bytes -= key.utf8.count + old.utf8.count }
            state.put(session, entry)
        }
    }

    /// Forgets `session` (its events changed in a way the cache does not follow, or a transaction
    /// that changed them rolled back).
    func invalidate(_ session: String) {
        state.withLock { state in
            state.remove(session)
            Self.markChanged(&state, session)
        }
    }

    /// How many sessions are mirrored.
    var count: Int { state.withLock { $0.entries.count } }

    /// Bytes of keys and values mirrored.
    var bytes: Int { state.withLock { $0.bytes } }

    private static func markChanged(_ state: inout State, _ session: String) {
        if state.loading[session] != nil { state.loading[session] = true }
    }

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
