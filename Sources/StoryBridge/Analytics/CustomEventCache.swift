/// The custom events of recently read sessions, in memory (a ``SessionMirror`` of each session's
/// keys and values), so that a page's reads of its own session's events (`getCustomEventByKey`:
/// content reads its state on nearly every slide) are answered without a database read.
///
/// Committed sets and deletes are written through to a mirrored session; a restore (which moves
/// events between sessions) drops both sessions. A session with more than
/// ``Limits/keysPerSession`` keys is not mirrored.
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

    let mirror: SessionMirror<[String: String]>

    init(limits: Limits = Limits()) {
        let keys = limits.keysPerSession
        mirror = SessionMirror(
            limits: .init(sessions: limits.sessions, bytesPerSession: limits.bytesPerSession, totalBytes: limits.totalBytes)
        ) { values in
            values.count <= keys ? values.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } : nil
        }
    }

    /// The value of `key` in `session`, if the session is mirrored.
    func lookup(session: String, key: String) -> Lookup {
        mirror.lookup(session).map { .known($0[key]) } ?? .unknown
    }

    /// See ``SessionMirror/beginLoad(_:)``.
    func beginLoad(_ session: String) -> Bool { mirror.beginLoad(session) }

    /// Ends a load: `values` holds every key of the session as read, `nil` when the load failed.
    func finishLoad(_ session: String, values: [String: String]?) { mirror.finishLoad(session, value: values) }

    /// A committed `setCustomEvent`: `key` of `session` now holds `value`.
    func committedSet(session: String, key: String, value: String) { mirror.update(session) { $0[key] = value } }

    /// A committed delete of `key` from `session`.
    func committedDelete(session: String, key: String) { mirror.update(session) { $0[key] = nil } }

    /// Forgets `session`.
    func invalidate(_ session: String) { mirror.invalidate(session) }

    /// How many sessions are mirrored.
    var count: Int { mirror.count }

    /// Bytes of keys and values mirrored.
    var bytes: Int { mirror.bytes }
}
