import Foundation
import GRDB
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

/// Audit-log checkpoints carried by kiosks' beats (docs/design/TRUST.md 4.5): checked against the
/// kiosk's bound host key, kept by the hub (the newest 1,000 per host) and listed by `GET
/// /v1/fleet/kiosks/{id}/checkpoints` in the form `storybridge audit verify --checkpoints` reads.
/// Real hub on loopback, real kiosk sockets, real SQLite.
@Suite("Fleet hub: audit checkpoints in beats")
struct FleetCheckpointTests {
    /// Checkpoint `sequence` of `key`'s log at `position` with hash `fill` repeated, signed by `key`.
    static func document(_ key: HostKey, sequence: Int, position: Int, fill: UInt8 = 0xAB) throws -> JSONValue {
        let checkpoint = AuditCheckpoint(
            hostId: key.hostId, publicKey: key.publicKey, sequence: sequence, segment: String(repeating: "0f", count: 16),
            position: position, hash: Data(repeating: fill, count: 32), previousSequence: sequence - 1,
            previousPosition: sequence == 1 ? 0 : position - 10, previousHash: Data(repeating: sequence == 1 ? 0 : fill, count: 32),
            entries: 10, at: "2026-11-29T10:00:0\(sequence)Z")
        return try JSONValue.parse(try checkpoint.document(signedBy: key))
    }

    /// A minimal beat numbered `seq` carrying `checkpoint`.
    static func beat(_ seq: Int, _ checkpoint: JSONValue?) -> Beat {
        Beat(
            seq: seq, sentAt: Date(), instance: "i", uptimeSeconds: seq, version: "0.1.0", name: "lobby-1", checkpoint: checkpoint)
    }

    @Test(
        "a checkpoint signed by the kiosk's own key is kept once however often beats repeat it; another host's, a forged one and a rewritten one of a held sequence are not"
    )
    func keptAndRefused() async throws {
        let (lab, store, device, token) = try ContentLab.enrolling("lobby-1")
        let key = HostKey()
        try await lab.withFleetHub { hub, running, client in
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: token.text, key: key, interval: 15)
            let first = try Self.document(key, sequence: 1, position: 10)
            try await kiosk.beat(Self.beat(1, first))
            try await kiosk.beat(Self.beat(2, first))
            // Signed, but by another host's key.
            try await kiosk.beat(Self.beat(3, try Self.document(HostKey(), sequence: 2, position: 20)))
            // The kiosk's key, but a field changed after signing.
            guard case .object(var forged) = try Self.document(key, sequence: 2, position: 20),
                case .object(var signed) = forged["signed"]
            else { throw CocoaError(.coderReadCorrupt) }
            signed["position"] = .int(25)
            forged["signed"] = .object(signed)
            try await kiosk.beat(Self.beat(4, .object(forged)))
            // Sequence 1 again, signed by the kiosk's key over another hash: its log was rewritten.
            try await kiosk.beat(Self.beat(5, try Self.document(key, sequence: 1, position: 10, fill: 0xCD)))
            let second = try Self.document(key, sequence: 2, position: 20)
            try await kiosk.beat(Self.beat(6, second))
            await hub.history.flush()

            let admin = try await client.userToken(ContentLab.adminName, ContentLab.adminPassword)
            let reply = try await client.get("/v1/fleet/kiosks/\(device.id)/checkpoints", token: admin)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("content-type")?.hasPrefix("application/json") == true)
            #expect(try JSONValue.parse(reply.text) == [first, second])
            let rows = try store.database.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT hostId, sequence, deviceId, position, hash FROM kiosk_checkpoint ORDER BY sequence")
            }
            #expect(rows.map { $0["hostId"] as String } == [key.hostId, key.hostId])
            #expect(rows.map { $0["deviceId"] as String } == [device.id, device.id])
            #expect(rows.map { $0["position"] as Int } == [10, 20])
            #expect(rows.first?["hash"] as String? == Data(repeating: 0xAB, count: 32).auditHex)
            // The documents read back are what audit verify --checkpoints takes: signatures valid.
            for document in try #require(try JSONValue.parse(reply.text).arrayValue) {
                #expect(try AuditCheckpoint.read(document).signatureValid)
            }
            kiosk.disconnect()
        }
    }

    @Test("the hub keeps the newest checkpoints of each host up to its limit, per host")
    func limitPerHost() async throws {
        let lab = try ContentLab()
        let database = try HubDatabase(directory: lab.directory)
        var retention = HistoryWriter.Retention()
        retention.checkpointsPerHost = 3
        let writer = HistoryWriter(database: database, clock: SystemHostClock(), retention: retention, logger: Logger(label: "test"))
        let (one, other) = (HostKey(), HostKey())
        for (key, count, flushEach) in [(one, 5, true), (other, 2, false)] {
            for sequence in 1...count {
                let document = try Self.document(key, sequence: sequence, position: sequence * 10)
                guard case .success(let checkpoint) = KioskCheckpoint.checked(document, deviceId: "d_x", hostId: key.hostId, at: Date())
                else {
                    Issue.record("checkpoint \(sequence) refused")
                    return
                }
                writer.record(checkpoint: checkpoint)
                // One flush per checkpoint for one host, all at once for the other: both keep the limit.
                if flushEach { await writer.flush() }
            }
        }
        await writer.flush()
        let kept = try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT hostId, sequence FROM kiosk_checkpoint ORDER BY hostId, sequence")
        }
        let byHost = Dictionary(grouping: kept, by: { $0["hostId"] as String }).mapValues { $0.map { $0["sequence"] as Int } }
        #expect(byHost[one.hostId] == [3, 4, 5])
        #expect(byHost[other.hostId] == [1, 2])
    }

    @Test(
        "a checkpoint is refused, with the reason, when unsigned by the key it names, or naming another host; a non-checkpoint is malformed"
    )
    func refusals() throws {
        let key = HostKey()
        let document = try Self.document(key, sequence: 4, position: 40)
        guard
            case .failure(.otherHost(let sequence, _)) = KioskCheckpoint.checked(
                document, deviceId: "d", hostId: HostKey().hostId, at: Date())
        else {
            Issue.record("another host's checkpoint was accepted")
            return
        }
        #expect(sequence == 4)
        #expect(KioskCheckpoint.checked(document, deviceId: "d", hostId: nil, at: Date()).isFailure)
        guard
            case .failure(.malformed(let reason)) = KioskCheckpoint.checked(
                ["signed": ["type": "other"]], deviceId: "d", hostId: nil, at: Date())
        else {
            Issue.record("a non-checkpoint was not called malformed")
            return
        }
        #expect(reason.contains("not a checkpoint document"), "\(reason)")
        guard case .object(var tampered) = document else { return }
        tampered["signatures"] = [["keyId": .string(key.hostId), "sig": .string(Data(count: 64).base64EncodedString())]]
        #expect(
            KioskCheckpoint.checked(.object(tampered), deviceId: "d", hostId: key.hostId, at: Date())
                == .failure(.badSignature(sequence: 4)))
    }
}

extension Result {
    fileprivate var isFailure: Bool { if case .failure = self { true } else { false } }
}
