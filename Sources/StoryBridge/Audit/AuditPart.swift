import Foundation

/// One write's share of an audit entry (docs/design/TRUST.md 4.2, 4.3): what an entry of its own
/// would have said, its kind, deck and changes, with its bytes already encoded. A write of the group
/// commit stages its part (``AuditLog/append(_:in:kind:deck:changes:at:detail:)``) instead of
/// appending an entry, and the transaction writes one entry for the parts of all its writes
/// (``AuditLog/commit(_:parts:state:afterCommit:)``): an entry of one part is the entry that part
/// would have been, an entry of several the `writes` form.
///
/// The payload is encoded when the part is made, inside its own write, so a part that cannot be
/// encoded fails that write alone, never the batch it would have joined; its kind and deck, which
/// only an entry of several parts carries in its payload, are checked then and written when that
/// entry is made.
struct AuditPart: Sendable {
    /// What the write was (`slide.viewed`…).
    let kind: String
    /// The deck on screen.
    let deck: AuditDeck
    /// When the write happened (the host's clock).
    let at: Date
    /// The payload of an entry holding only this part: `{"changes":[…]}`, with `detail` for
    /// entries of the log itself.
    let payload: [UInt8]

    /// Encodes the part of `kind` for `deck`, carrying `changes` (and `detail`, for entries of the
    /// log itself). Throws when the canonical form cannot carry it.
    init(kind: String, deck: AuditDeck, changes: [AuditChange], at: Date, detail: JSONValue? = nil) throws(AuditPayloadError) {
        self.kind = kind
        self.deck = deck
        self.at = at
        do {
            payload = try AuditPayload.encode(changes: changes, detail: detail)
            // Its kind and deck are written only if it shares an entry (most parts are alone in
            // theirs); checked now so that writing them then cannot fail.
            try AuditPayload.checkMembers(of: deck)
        } catch {
            throw AuditPayloadError("the \(kind) entry cannot be written: \(error)")
        }
    }
}
