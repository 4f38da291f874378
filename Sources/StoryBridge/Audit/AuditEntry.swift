import Crypto
import Foundation
import GRDB

/// One entry of the audit log (table `auditEntry`, migrations `v18-audit` and `v20-audit-rowid`;
/// docs/design/TRUST.md 4.2): the record of one write, or of the writes of one group-commit
/// transaction (``writes()`` reads both forms).
/// Entries form a hash chain: each holds the hash of the one before, and its own hash covers every
/// field in a fixed binary framing, so an edited field, a removed entry or a reordering shows.
package struct AuditEntry: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "auditEntry"

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case segment, position, previousHash, hash, at, kind, presentationId, presentationRevision, manifestHash, signed, payload
    }

    /// The chain segment, 32 hex digits (16 bytes); a database's log has one segment until a damaged
    /// database is replaced (plan 14).
    package var segment: String
    /// 1, 2, 3… with no gap.
    package var position: Int
    /// The previous entry's hash; 32 zero bytes for the first.
    package var previousHash: Data
    /// ``computedHash()`` when the entry was written.
    package var hash: Data
    /// Host time of the write, `AnalyticsFormat.timestamp`.
    package var at: String
    /// What the write was (`slide.viewed`, `session.state`…); `writes` for the writes of one
    /// group-commit transaction (``writes()``).
    package var kind: String
    package var presentationId: Int?
    package var presentationRevision: Int?
    package var manifestHash: String?
    /// 1 signed, 0 unsigned (first-install hashes), `nil` no manifest record.
    package var signed: Int?
    /// Canonical JSON `{"changes": [...]}` (``AuditChange``), with `detail` for entries of the log
    /// itself; `{"writes": [...]}` for a `writes` entry, each part the kind, deck and changes of one
    /// write.
    package var payload: Data

    /// The hash of the first entry's predecessor.
    package static let originHash = Data(count: 32)

    /// The entry's hash computed from its fields (all but `hash`); `nil` when `segment` is not 32 hex
    /// digits (the field was edited).
    package func computedHash() -> Data? {
        guard segment.utf8.count == 32, let segmentBytes = Data(auditHex: segment) else { return nil }
        // Fed to the hasher field by field (no framed copy of the payload is made): this runs on
        // every durable write.
        var hasher = SHA256()
        hasher.update(data: Self.framingTag)
        hasher.update(data: segmentBytes)
        Self.update(&hasher, UInt64(bitPattern: Int64(position)))
        hasher.update(data: previousHash)
        Self.updateCounted(&hasher, at)
        Self.updateCounted(&hasher, kind)
        Self.update(&hasher, presentationId.map { UInt64(bitPattern: Int64($0)) } ?? .max)
        Self.update(&hasher, presentationRevision.map { UInt64(bitPattern: Int64($0)) } ?? .max)
        Self.updateCounted(&hasher, manifestHash ?? "")
        hasher.update(data: [signed.map { $0 == 0 ? UInt8(0) : UInt8(1) } ?? 2])
        Self.update(&hasher, UInt32(truncatingIfNeeded: payload.count))
        hasher.update(data: payload)
        return Data(hasher.finalize())
    }

    private static let framingTag = Data("storybridge-entry-v1\n".utf8)

    /// A big-endian integer.
    private static func update<Integer: FixedWidthInteger>(_ hasher: inout SHA256, _ value: Integer) {
        withUnsafeBytes(of: value.bigEndian) { hasher.update(bufferPointer: $0) }
    }

    /// Text's UTF-8 bytes after their count (a big-endian UInt32).
    private static func updateCounted(_ hasher: inout SHA256, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            update(&hasher, UInt32(truncatingIfNeeded: bytes.count))
            hasher.update(bufferPointer: UnsafeRawBufferPointer(bytes))
        }
    }

    /// The entry as `audit export` and `audit verify --json` give it: hashes in hex, the payload as
    /// its JSON text.
    package var json: JSONValue {
        [
            "segment": .string(segment), "position": .int(position), "at": .string(at), "kind": .string(kind),
            "presentationId": presentationId.map(JSONValue.int) ?? .null,
            "presentationRevision": presentationRevision.map(JSONValue.int) ?? .null,
            "manifestHash": manifestHash.map(JSONValue.string) ?? .null, "signed": signed.map(JSONValue.int) ?? .null,
            "previousHash": .string(previousHash.auditHex), "hash": .string(hash.auditHex),
            "payload": .string(String(decoding: payload, as: UTF8.self)),
        ]
    }
}
