import Foundation

/// One write's share of an audit entry (docs/design/TRUST.md 4.2, 4.3): what an entry of its own
/// would have said, its kind, deck and changes, with its bytes already encoded. A write of the group
/// commit stages its part (``AuditLog/append(_:in:kind:deck:changes:at:detail:)``) instead of
/// appending an entry, and the transaction writes one entry for the parts of all its writes
/// (``AuditLog/commit(_:parts:state:afterCommit:)``): an entry of one part is the entry that part
/// would have been, an entry of several the `writes` form.
///
/// The bytes are encoded when the part is made, inside its own write, so a part that cannot be
/// encoded fails that write alone, never the batch it would have joined.
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
    /// The part's other members, as they follow `changes` inside a `writes` entry, with the
    /// object's closing brace: `,"kind":…,"manifestHash":…,"presentationId":…,
    /// "presentationRevision":…,"signed":…}` (canonical order; absent deck fields are `null`).
    let members: [UInt8]

    /// Encodes the part of `kind` for `deck`, carrying `changes` (and `detail`, for entries of the
    /// log itself). Throws when the canonical form cannot carry it.
    init(kind: String, deck: AuditDeck, changes: [AuditChange], at: Date, detail: JSONValue? = nil) throws(AuditPayloadError) {
        self.kind = kind
        self.deck = deck
        self.at = at
        do {
            payload = try AuditPayload.encode(changes: changes, detail: detail)
            members = try AuditPayload.members(kind: kind, deck: deck)
        } catch {
            throw AuditPayloadError("the \(kind) entry cannot be written: \(error)")
        }
    }
}
