import Foundation

/// A signed statement of the audit log's head (docs/design/TRUST.md 4.5): the host says "my log's
/// entry at `position` of `segment` has `hash`", numbered by `sequence` and naming the checkpoint
/// before it, so a missing one shows as a gap to whoever holds the uploaded ones.
///
/// The document is `{"signed": {...}, "signatures": [{"keyId": <host id>, "sig": <Base64>}]}`,
/// signed with the host key over `storybridge-checkpoint-v1 ‖ 0x0A ‖ CanonicalJSON(signed)`. The
/// `signed` object carries the host's raw public key (`publicKey`, Base64) so a holder can check it
/// without the host; `hostId` must be that key's fingerprint.
package struct AuditCheckpoint: Sendable, Hashable {
    /// The event id it is uploaded as.
    package static let eventId = "story.content.audit.checkpoint"

    /// The host id (26 base32 characters) of the key that signs it.
    package var hostId: String
    /// The raw 32-byte Ed25519 public key of that host.
    package var publicKey: Data
    /// 1, 2, 3… with no gap over the host's life.
    package var sequence: Int
    /// The head's segment (32 hex digits).
    package var segment: String
    /// The head's position.
    package var position: Int
    /// The head's hash (32 bytes).
    package var hash: Data
    /// The previous checkpoint's sequence, 0 for the first.
    package var previousSequence: Int
    /// The previous checkpoint's position, 0 for the first.
    package var previousPosition: Int
    /// The previous checkpoint's hash, 32 zero bytes for the first.
    package var previousHash: Data
    /// Entries since the previous checkpoint (`position - previousPosition`).
    package var entries: Int
    /// When it was made, `AnalyticsFormat.timestamp`.
    package var at: String

    /// A checkpoint of these fields (signed by ``document(signedBy:)``).
    package init(
        hostId: String, publicKey: Data, sequence: Int, segment: String, position: Int, hash: Data, previousSequence: Int,
        previousPosition: Int, previousHash: Data, entries: Int, at: String
    ) {
        self.hostId = hostId
        self.publicKey = publicKey
        self.sequence = sequence
        self.segment = segment
        self.position = position
        self.hash = hash
        self.previousSequence = previousSequence
        self.previousPosition = previousPosition
        self.previousHash = previousHash
        self.entries = entries
        self.at = at
    }

    /// The `signed` object.
    var signedJSON: JSONValue {
        [
            "type": "storybridge-checkpoint", "specVersion": 1, "hostId": .string(hostId),
            "publicKey": .string(publicKey.base64EncodedString()), "sequence": .int(sequence), "segment": .string(segment),
            "position": .int(position), "hash": .string(hash.auditHex), "previousSequence": .int(previousSequence),
            "previousPosition": .int(previousPosition), "previousHash": .string(previousHash.auditHex), "entries": .int(entries),
            "at": .string(at),
        ]
    }

    /// The signed document, as canonical JSON text.
    package func document(signedBy key: HostKey) throws(AuditCheckpointError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try CanonicalJSON.encode(signedJSON)
        } catch {
            throw .malformed("checkpoint \(sequence) cannot be encoded: \(error)")
        }
        let signature = key.signature(for: SignatureContext.checkpoint.signedBytes(bytes))
        let document: JSONValue = [
            "signed": signedJSON,
            "signatures": [["keyId": .string(key.hostId), "sig": .string(signature.base64EncodedString())]],
        ]
        do {
            return String(decoding: try CanonicalJSON.encode(document), as: UTF8.self)
        } catch {
            throw .malformed("checkpoint \(sequence) cannot be encoded: \(error)")
        }
    }

    /// A document read back: the checkpoint, and whether a signature by the key it names (whose
    /// fingerprint is its host id) verifies.
    package static func read(_ document: JSONValue) throws(AuditCheckpointError) -> (checkpoint: AuditCheckpoint, signatureValid: Bool) {
        guard let signed = document["signed"], signed["type"]?.stringValue == "storybridge-checkpoint" else {
            throw .malformed("not a checkpoint document (no \"signed\" of type storybridge-checkpoint)")
        }
        func int(_ name: String) throws(AuditCheckpointError) -> Int {
            guard let value = signed[name]?.intValue else { throw .malformed("its \"\(name)\" is not an integer") }
            return value
        }
        func text(_ name: String) throws(AuditCheckpointError) -> String {
            guard let value = signed[name]?.stringValue else { throw .malformed("its \"\(name)\" is not text") }
            return value
        }
        func hash(_ name: String) throws(AuditCheckpointError) -> Data {
            guard let value = Data(auditHex: try text(name)), value.count == 32 else {
                throw .malformed("its \"\(name)\" is not 64 hex digits")
            }
            return value
        }
        guard let publicKey = Data(base64Encoded: try text("publicKey")), publicKey.count == 32 else {
            throw .malformed("its \"publicKey\" is not 32 bytes in Base64")
        }
        let checkpoint = AuditCheckpoint(
            hostId: try text("hostId"), publicKey: publicKey, sequence: try int("sequence"), segment: try text("segment"),
            position: try int("position"), hash: try hash("hash"), previousSequence: try int("previousSequence"),
            previousPosition: try int("previousPosition"), previousHash: try hash("previousHash"), entries: try int("entries"),
            at: try text("at"))
        guard HostKey.hostId(ofPublicKey: publicKey) == checkpoint.hostId, let bytes = try? CanonicalJSON.encode(signed) else {
            return (checkpoint, false)
        }
        let signedBytes = SignatureContext.checkpoint.signedBytes(bytes)
        let valid = (document["signatures"]?.arrayValue ?? []).contains { signature in
            guard signature["keyId"]?.stringValue == checkpoint.hostId, let text = signature["sig"]?.stringValue,
                let raw = Data(base64Encoded: text)
            else { return false }
            return HostKey.isValidSignature(raw, of: signedBytes, publicKey: publicKey)
        }
        return (checkpoint, valid)
    }
}

/// A checkpoint document that cannot be read or made.
package enum AuditCheckpointError: Error, Sendable, CustomStringConvertible {
    case malformed(String)

    package var description: String {
        switch self {
        case .malformed(let reason): "checkpoint: \(reason)"
        }
    }
}
