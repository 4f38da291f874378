import Synchronization

/// How many dashboard streams (`GET /fleet/events`) are open, per session and in all
/// (docs/design/FLEET.md §6: at most 32 per session and 256 in all, 503 beyond): a plain value
/// that says whether one more may open.
package struct FleetStreamQuota: Sendable, Equatable {
    /// Why a stream may not open.
    package enum Refusal: Error, Sendable, Equatable {
        /// The session has ``perSession`` open.
        case session(limit: Int)
        /// The hub has ``total`` open.
        case total(limit: Int)

        /// The refusal's words in the 503 body.
        package var message: String {
            switch self {
            case .session(let limit): "this session already has \(limit) live dashboard streams open; close a tab and try again"
            case .total(let limit): "the hub already serves \(limit) live dashboard streams; try again shortly"
            }
        }
    }

    /// A quota of 32 per session and 256 in all.
    package init() {}

    /// The most streams one session may hold.
    package var perSession = 32
    /// The most streams open at once.
    package var total = 256
    /// Streams open per session key.
    package private(set) var open: [String: Int] = [:]
    /// Streams open in all.
    package private(set) var count = 0

    /// Counts one more stream of `session`, or says why not.
    package mutating func admit(_ session: String) -> Refusal? {
        guard count < total else { return .total(limit: total) }
        let held = open[session, default: 0]
        guard held < perSession else { return .session(limit: perSession) }
        open[session] = held + 1
        count += 1
        return nil
    }

    /// A stream of `session` ended.
    package mutating func release(_ session: String) {
        guard let held = open[session], held > 0 else { return }
        open[session] = held > 1 ? held - 1 : nil
        count -= 1
    }
}

/// The hub's ``FleetStreamQuota`` behind a lock, handing out tickets that give their place back
/// when they end, whether the stream ran to its end or its response was dropped before it began.
final class FleetStreamGate: Sendable {
    private let quota: Mutex<FleetStreamQuota>

    /// A gate with `quota`'s limits.
    init(_ quota: FleetStreamQuota = FleetStreamQuota()) {
        self.quota = Mutex(quota)
    }

    /// A ticket for one stream of `session`, or why none.
    func ticket(for session: String) throws(FleetStreamQuota.Refusal) -> Ticket {
        if let refusal = quota.withLock({ $0.admit(session) }) { throw refusal }
        return Ticket(gate: self, session: session)
    }

    /// The counts now, for tests.
    var snapshot: FleetStreamQuota { quota.withLock { $0 } }

    fileprivate func release(_ session: String) {
        quota.withLock { $0.release(session) }
    }

    /// One open stream's place; given back when the ticket is released.
    final class Ticket: Sendable {
        private let gate: FleetStreamGate
        private let session: String

        fileprivate init(gate: FleetStreamGate, session: String) {
            self.gate = gate
            self.session = session
        }

        deinit { gate.release(session) }
    }
}
