import Foundation
import StoryBridge

/// The answer of `GET /__storybridge/health`: overall status with the reasons it is not healthy,
/// the scheduled sync (last run, its result, the next one), each deck's state and revision, the
/// upload queue's length and the age of its oldest record, and the data folder's free disk. It
/// names nothing but deck ids and revisions, so it needs no token. Each served deck carries a
/// `trust` object; a deck served past its manifest's expiry is a notice (a problem with
/// ``HealthThresholds/strictTrust``), a quarantined deck a problem.
package struct HealthReport: Sendable {
    /// Why the host is not healthy; empty when it is.
    package var problems: [String]
    /// What an operator should know that leaves the host healthy.
    package var notices: [String] = []
    /// The whole answer.
    package var document: JSONValue

    /// Whether nothing is wrong (notices allowed).
    package var isHealthy: Bool { problems.isEmpty }

    /// Reads everything now.
    package static func build(host: StoryBridgeHost, sources: HealthSources, now: Date = Date()) async -> HealthReport {
        let thresholds = sources.thresholds
        var problems: [String] = []
        var sync: JSONValue = .null
        if let state = sources.sync?() {
            if let since = state.failingSince, now.timeIntervalSince(since) > thresholds.syncFailingFor / .seconds(1) {
                problems.append("sync failing since \(timestamp(since)) (longer than \(seconds(thresholds.syncFailingFor)) s)")
            }
            sync = [
                "lastRunAt": state.lastRunAt.map { .string(timestamp($0)) } ?? .null,
                "lastResult": state.lastRunSucceeded.map { .string($0 ? "ok" : "failed") } ?? .null,
                "failingSince": state.failingSince.map { .string(timestamp($0)) } ?? .null,
                "nextRunAt": state.nextRunAt.map { .string(timestamp($0)) } ?? .null,
                "running": .bool(state.running),
            ]
        }
        let decks =
            await sources.decks?()
            ?? host.library.all.map { DeckHealth(id: $0.id, revision: $0.revision, state: nil, trust: .localFolder) }
        var notices: [String] = []
        for deck in decks {
            guard let trust = deck.trust else { continue }
            if trust.status == "quarantined" {
                problems.append("deck \(deck.id) quarantined: \(trust.result ?? "its files differ from its manifest")")
            }
            if let expires = trust.expires, now >= expires {
                let notice = "deck \(deck.id): manifest expired on \(timestamp(expires)); still served; no sync has brought a re-signed one"
                if thresholds.strictTrust { problems.append(notice) } else { notices.append(notice) }
            }
        }
        var upload: JSONValue = .null
        do {
            let status = try await host.analytics.uploadStatus()
            let oldest = try await host.analytics.outbox(status: .queued, limit: 1).first?.queuedAt
            let age = oldest.map { max(0, now.timeIntervalSince($0)) }
            if let age, age > thresholds.uploadBacklogAge / .seconds(1) {
                problems.append(
                    "upload backlog: the oldest queued record waited \(Int(age)) s (longer than \(seconds(thresholds.uploadBacklogAge)) s)")
            }
            upload = ["queued": .int(status.queued), "oldestAgeSeconds": age.map { .int(Int($0)) } ?? .null]
        } catch {
            problems.append("the upload queue cannot be read")
        }
        var audit: JSONValue = .null
        do {
            let gaps = try await AuditGapRecord.open(in: host.analytics.database)
            for gap in gaps {
                problems.append(
                    "audit log: entries lost or changed after they were committed (chain.gap at position \(gap.position)): \(gap.reason)")
            }
            audit = ["gaps": .array(gaps.map { ["position": .int($0.position), "at": .string($0.at), "reason": .string($0.reason)] })]
        } catch {
            problems.append("the audit log cannot be read")
        }
        let free = freeBytes(sources.dataFolder)
        if let free, free < thresholds.minimumFreeBytes {
            problems.append("disk nearly full: \(free) bytes free in the data folder (fewer than \(thresholds.minimumFreeBytes))")
        } else if free == nil {
            problems.append("the data folder's free disk cannot be read")
        }
        let document: JSONValue = [
            "status": .string(problems.isEmpty ? "ok" : "unhealthy"),
            "problems": .array(problems.map(JSONValue.string)),
            "notices": .array(notices.map(JSONValue.string)),
            "checkedAt": .string(timestamp(now)),
            "sync": sync,
            "decks": .array(
                decks.map { deck in
                    [
                        "id": .int(deck.id), "revision": deck.revision.map(JSONValue.int) ?? .null,
                        "state": deck.state.map(JSONValue.string) ?? .null,
                        "trust": deck.trust.map { $0.json(now: now) } ?? .null,
                    ]
                }),
            "upload": upload,
            "audit": audit,
            "disk": ["freeBytes": free.map { .int(Int($0)) } ?? .null, "minimumFreeBytes": .int(Int(thresholds.minimumFreeBytes))],
        ]
        return HealthReport(problems: problems, notices: notices, document: document)
    }

    /// Bytes an unprivileged process may still write in the file system holding `folder`.
    static func freeBytes(_ folder: URL) -> Int64? {
        var info = statvfs()
        guard statvfs(folder.path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    private static func timestamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
    private static func seconds(_ duration: Duration) -> Int { Int(duration / .seconds(1)) }
}
