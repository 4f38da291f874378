import Foundation
import GRDB
import Synchronization

/// The deck an audit entry names: what was on screen when the write happened (docs/design/TRUST.md
/// 4.2). Taken from the session the write belongs to, which records it when it starts, so an entry
/// names the revision and manifest a viewer saw even after a swap mid-session.
package struct AuditDeck: Sendable, Hashable {
    /// The presentation; `nil` for entries of no deck (`chain.started`, `audit.baseline`).
    package var presentationId: Int?
    /// The library revision shown.
    package var presentationRevision: Int?
    /// The hash of the manifest the served folder was installed with; `nil` for a folder served
    /// from disk or installed before signed packages had a record.
    package var manifestHash: String?
    /// `true` signed, `false` the hashes of an unsigned install, `nil` no record (a local folder).
    package var signed: Bool?

    package init(presentationId: Int? = nil, presentationRevision: Int? = nil, manifestHash: String? = nil, signed: Bool? = nil) {
        self.presentationId = presentationId
        self.presentationRevision = presentationRevision
        self.manifestHash = manifestHash
        self.signed = signed
    }

    /// No deck.
    package static let none = AuditDeck()

    /// The manifest hash and whether it was signed, of the folder `presentationId` is served from
    /// now (its `packageTrust` row); `(nil, nil)` when it has none.
    static func served(presentationId: Int, db: Database) throws -> (manifestHash: String?, signed: Bool?) {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT packageTrust.manifestHash, packageTrust.signed FROM presentation
                    JOIN packageTrust ON packageTrust.folder = presentation.folder WHERE presentation.id = ?
                    """), arguments: [presentationId])
        guard let row else { return (nil, nil) }
        return (row[0], (row[1] as Int?).map { $0 != 0 })
    }
}

/// The decks of sessions, by session id, as recorded when each started: a session's deck never
/// changes, so an entry of a later write of the session takes it from memory instead of reading the
/// session row. A miss reads the row (one primary-key lookup). One per database.
final class AuditDeckCache: Sendable {
    private let decks = Mutex<[String: AuditDeck]>([:])
    /// How many sessions are kept; the whole map is dropped when it would grow past it.
    private static let capacity = 4_096

    init() {}

    /// Remembers the deck of `sessionId`.
    func keep(_ deck: AuditDeck, for sessionId: String) {
        decks.withLock { decks in
            if decks.count >= Self.capacity { decks.removeAll(keepingCapacity: true) }
            decks[sessionId] = deck
        }
    }

    /// The deck of `sessionId`: from memory, else from its row; ``AuditDeck/none`` with only the
    /// presentation when there is no such session.
    func deck(of sessionId: String, presentationId: Int? = nil, db: Database) throws -> AuditDeck {
        if let known = decks.withLock({ $0[sessionId] }) { return known }
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT presentationId, presentationRevision, manifestHash, manifestSigned FROM session WHERE id = ?"),
                arguments: [sessionId])
        else { return AuditDeck(presentationId: presentationId) }
        let deck = AuditDeck(
            presentationId: row[0], presentationRevision: row[1], manifestHash: row[2], signed: (row[3] as Int?).map { $0 != 0 })
        keep(deck, for: sessionId)
        return deck
    }
}

extension SessionRecord {
    /// The deck the session shows: its presentation, the revision and manifest it started with.
    var auditDeck: AuditDeck {
        AuditDeck(
            presentationId: presentationId, presentationRevision: presentationRevision, manifestHash: manifestHash,
            signed: manifestSigned)
    }
}
