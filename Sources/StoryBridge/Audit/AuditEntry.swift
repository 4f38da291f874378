import Crypto
import Foundation
import GRDB

/// One entry of the audit log (table `auditEntry`, migration `v18-audit`; docs/design/TRUST.md 4.2).
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
    /// What the write was (`slide.viewed`, `session.state`…).
    package var kind: String
    package var presentationId: Int?
    package var presentationRevision: Int?
    package var manifestHash: String?
    /// 1 signed, 0 unsigned (first-install hashes), `nil` no manifest record.
    package var signed: Int?
    /// Canonical JSON `{"changes": [...]}` (``AuditChange``), with `detail` for entries of the log itself.
    package var payload: Data

    /// The hash of the first entry's predecessor.
    package static let originHash = Data(count: 32)

    /// The entry's hash computed from its fields (all but `hash`); `nil` when `segment` is not 32 hex
    /// digits (the field was edited).
    package func computedHash() -> Data? {
        guard segment.utf8.count == 32, let segmentBytes = Data(auditHex: segment) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + payload.count)
        bytes.append(contentsOf: "storybridge-entry-v1\n".utf8)
        bytes.append(contentsOf: segmentBytes)
        Self.append(UInt64(bitPattern: Int64(position)), to: &bytes)
        bytes.append(contentsOf: previousHash)
        Self.appendCounted(Array(at.utf8), to: &bytes)
        Self.appendCounted(Array(kind.utf8), to: &bytes)
        Self.append(presentationId.map { UInt64(bitPattern: Int64($0)) } ?? .max, to: &bytes)
        Self.append(presentationRevision.map { UInt64(bitPattern: Int64($0)) } ?? .max, to: &bytes)
        Self.appendCounted(Array((manifestHash ?? "").utf8), to: &bytes)
        bytes.append(signed.map { $0 == 0 ? UInt8(0) : UInt8(1) } ?? 2)
        Self.appendCounted(Array(payload), to: &bytes)
        return Data(SHA256.hash(data: bytes))
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func appendCounted(_ field: [UInt8], to bytes: inout [UInt8]) {
        let count = UInt32(truncatingIfNeeded: field.count)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
        bytes.append(contentsOf: field)
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
