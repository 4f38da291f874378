import Foundation
import GRDB

/// One write an audit entry records, read back from either form of entry (docs/design/TRUST.md
/// 4.2): an entry of a single write (its own kind and deck columns, payload `{"changes":[…]}`) is
/// one; an entry of kind `writes` holds one per write of its transaction, in the order they ran,
/// each with the kind, deck and changes an entry of its own would have had. Everything that reads
/// what entries say (the replay, the tests, `audit export`'s readers) reads it through
/// ``AuditEntry/writes()``, never by decoding payloads itself.
package struct AuditWrite: Sendable, Hashable {
    /// What the write was (`slide.viewed`…; an entry of the log itself: its own kind).
    package var kind: String
    /// The deck on screen.
    package var deck: AuditDeck
    /// The row changes, as the payload carries them (``AuditChange``'s JSON form).
    package var changes: [JSONValue]
}

extension AuditEntry {
    /// The writes the entry records: itself, or each part of a `writes` entry. Throws a description
    /// of what is wrong when the payload is not canonical JSON or a part is malformed.
    package func writes() throws(AuditPayloadError) -> [AuditWrite] {
        let body: JSONValue
        do {
            body = try CanonicalJSON.parse(payload)
        } catch {
            throw AuditPayloadError("its payload is not canonical JSON: \(error)")
        }
        guard kind == AuditKind.writes else {
            guard let changes = body["changes"]?.arrayValue else { throw AuditPayloadError("its payload has no changes") }
            let deck = AuditDeck(
                presentationId: presentationId, presentationRevision: presentationRevision, manifestHash: manifestHash,
                signed: signed.map { $0 != 0 })
            return [AuditWrite(kind: kind, deck: deck, changes: changes)]
        }
        guard let parts = body["writes"]?.arrayValue, !parts.isEmpty else { throw AuditPayloadError("its payload has no writes") }
        var writes: [AuditWrite] = []
        writes.reserveCapacity(parts.count)
        for (index, part) in parts.enumerated() {
            let name = "its write \(index + 1) of \(parts.count)"
            guard let kind = part["kind"]?.stringValue, let changes = part["changes"]?.arrayValue else {
                throw AuditPayloadError("\(name) has no kind or no changes")
            }
            func optional<Value>(_ member: String, _ read: (JSONValue) -> Value?) throws(AuditPayloadError) -> Value? {
                guard let value = part[member], value != .null else { return nil }
                guard let decoded = read(value) else { throw AuditPayloadError("\(name) has a malformed \(member)") }
                return decoded
            }
            let signed = try optional("signed") { $0.intValue }
            if let signed, signed != 0, signed != 1 { throw AuditPayloadError("\(name) has a malformed signed") }
            let deck = AuditDeck(
                presentationId: try optional("presentationId") { $0.intValue },
                presentationRevision: try optional("presentationRevision") { $0.intValue },
                manifestHash: try optional("manifestHash") { $0.stringValue }, signed: signed.map { $0 != 0 })
            writes.append(AuditWrite(kind: kind, deck: deck, changes: changes))
        }
        return writes
    }
}
