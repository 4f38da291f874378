import Foundation
import StoryBridge

/// An audit-log checkpoint a kiosk's beat carried (docs/design/TRUST.md 4.5), as the hub keeps it
/// (table `kiosk_checkpoint`): checked before it is kept, so that what the hub holds is what the
/// kiosk's host key signed.
package struct KioskCheckpoint: Sendable, Equatable {
    /// The device whose beat carried it.
    package var deviceId: String
    /// The host id the checkpoint names (that of the device's bound host key).
    package var hostId: String
    /// Its sequence, 1, 2, 3… over the host's life.
    package var sequence: Int
    /// The log position it signs.
    package var position: Int
    /// The log's hash at that position, hex.
    package var hash: String
    /// The signed document, canonical JSON text.
    package var document: String
    /// When the hub received it.
    package var receivedAt: Date

    /// Why a carried checkpoint is not kept.
    package enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The document is not a checkpoint.
        case malformed(String)
        /// Its signature does not verify with the key it names.
        case badSignature(sequence: Int)
        /// It names a host other than the one the device is bound to.
        case otherHost(sequence: Int, hostId: String)

        package var description: String {
            switch self {
            case .malformed(let reason): "it is not a checkpoint document (\(reason))"
            case .badSignature(let sequence): "checkpoint \(sequence)'s signature does not verify"
            case .otherHost(let sequence, let hostId):
                "checkpoint \(sequence) names host \(HostKey.grouped(hostId)), not the kiosk's own"
            }
        }
    }

    /// `document` from the beat of `deviceId`, whose hello proved `hostId`, received `at`: the
    /// checkpoint to keep, or why not.
    package static func checked(
        _ document: JSONValue, deviceId: String, hostId: String?, at: Date
    ) -> Result<KioskCheckpoint, Refusal> {
        let read: (checkpoint: AuditCheckpoint, signatureValid: Bool)
        let text: [UInt8]
        do {
            read = try AuditCheckpoint.read(document)
            text = try CanonicalJSON.encode(document)
        } catch {
            return .failure(.malformed("\(error)"))
        }
        let checkpoint = read.checkpoint
        guard read.signatureValid else { return .failure(.badSignature(sequence: checkpoint.sequence)) }
        guard checkpoint.hostId == hostId else {
            return .failure(.otherHost(sequence: checkpoint.sequence, hostId: checkpoint.hostId))
        }
        return .success(
            KioskCheckpoint(
                deviceId: deviceId, hostId: checkpoint.hostId, sequence: checkpoint.sequence, position: checkpoint.position,
                hash: checkpoint.hash.auditHex, document: String(decoding: text, as: UTF8.self), receivedAt: at))
    }
}
