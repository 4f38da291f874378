import Foundation
import GRDB
import Logging
import ServiceLifecycle
import StoryBridge

/// The catalog's presentation events (docs/design/FLEET.md §8.3), a `Service` of the content
/// server when webhooks are configured: every ``interval`` it compares the presentations served
/// (per client) with `catalog_seen` of `hub.sqlite`:
///
/// - a new presentation and client: `Presentation (Create)`;
/// - a changed revision: `Presentation (Update)` with the new `Revision`;
/// - one no longer served: `Presentation (Delete)` with the `Data` last sent.
///
/// The table and the deliveries are written in one transaction, so an event is queued once. The
/// very first scan of a hub only fills the table (`hub_meta` `catalogSeeded`): an existing
/// library raises nothing; later starts compare with it, so changes made while the server was down
/// are sent once.
struct CatalogEventsWatcher: Service {
    let catalog: ContentCatalog
    let dispatcher: WebhookDispatcher
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await scan()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One comparison; returns the events queued.
    @discardableResult
    func scan() async -> [WebhookEvent] {
        let placed: [ContentCatalog.Placed]
        do {
            placed = try await catalog.placements()
        } catch {
            logger.error("webhooks: cannot read the library for presentation events: \(error)")
            return []
        }
        let now = dispatcher.clock.now
        var current: [Key: PresentationData] = [:]
        for item in placed {
            current[Key(presentation: item.presentation.id, client: item.client.id)] = PresentationData(item)
        }
        do {
            let served = current
            let events = try await dispatcher.database.pool.write { db in try Self.compare(served, now: now, self.dispatcher, db) }
            if !events.isEmpty { dispatcher.wake() }
            return events
        } catch {
            logger.error("webhooks: cannot record presentation events: \(error)")
            return []
        }
    }

    struct Key: Hashable {
        var presentation: Int
        var client: Int
    }

    private static func compare(
        _ current: [Key: PresentationData], now: Date, _ dispatcher: WebhookDispatcher, _ db: Database
    ) throws -> [WebhookEvent] {
        let seeded = try Bool.fetchOne(db, sql: "SELECT 1 FROM hub_meta WHERE key = 'catalogSeeded'") ?? false
        var seen: [Key: (revision: Int, body: String)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT presentationId, clientId, revision, body FROM catalog_seen") {
            seen[Key(presentation: row["presentationId"], client: row["clientId"])] = (row["revision"], row["body"])
        }
        var events: [WebhookEvent] = []
        func queue(_ event: WebhookEvent, _ data: PresentationData) throws {
            guard seeded else { return }
            try dispatcher.insert(event, body: try WebhookEnvelope(event: event, created: now, data: data).body(), db)
            events.append(event)
        }
        for key in current.keys.sorted(by: { ($0.presentation, $0.client) < ($1.presentation, $1.client) }) {
            guard var data = current[key] else { continue }
            if let old = seen[key] {
                guard old.revision != data.revision else { continue }
                // The first revision's install time stays `Created`.
                if let previous = try? JSONDecoder().decode(PresentationData.self, from: Data(old.body.utf8)) {
                    data.created = previous.created
                }
                try queue(.presentationUpdate, data)
            } else {
                try queue(.presentationCreate, data)
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO catalog_seen (presentationId, clientId, revision, body) VALUES (?, ?, ?, ?)",
                arguments: [key.presentation, key.client, data.revision, String(decoding: try JSONEncoder().encode(data), as: UTF8.self)])
        }
        for (key, old) in seen.sorted(by: { ($0.key.presentation, $0.key.client) < ($1.key.presentation, $1.key.client) })
        where current[key] == nil {
            if let data = try? JSONDecoder().decode(PresentationData.self, from: Data(old.body.utf8)) {
                try queue(.presentationDelete, data)
            }
            try db.execute(
                sql: "DELETE FROM catalog_seen WHERE presentationId = ? AND clientId = ?", arguments: [key.presentation, key.client])
        }
        if !seeded { try db.execute(sql: "INSERT INTO hub_meta (key, value) VALUES ('catalogSeeded', '1')") }
        return events
    }
}

/// A presentation event's `Data`: the vendor's presentation object, member for member
/// (docs/design/FLEET.md §8.3). `Created` is when the first revision the hub saw was installed,
/// `Updated` when the current one was.
struct PresentationData: Codable, Sendable, Equatable {
    var clientId: Int
    var created: String
    var id: Int
    var longDescription: String?
    var name: String
    var order: Int
    var revision: Int
    var shortDescription: String?
    var skip: Bool
    var debugModeEnabled: Bool
    var updated: String
    var mapEnabled: Bool
    var mapType: Int
    var needConfirmation: Bool
    var previewMode: Int
    var map: String?

    enum CodingKeys: String, CodingKey {
        case clientId = "ClientId", created = "Created", id = "Id", longDescription = "LongDescription", name = "Name", order = "Order"
        case revision = "Revision", shortDescription = "ShortDescription", skip = "Skip", debugModeEnabled = "DebugModeEnabled"
        case updated = "Updated", mapEnabled = "MapEnabled", mapType = "MapType", needConfirmation = "NeedConfirmation"
        case previewMode = "PreviewMode", map = "Map"
    }

    init(_ placed: ContentCatalog.Placed) {
        let presentation = placed.presentation
        let date = ContentDate.string(placed.entry.installedAt)
        clientId = placed.client.id
        created = date
        id = presentation.id
        longDescription = presentation.longDescription
        name = presentation.name
        order = presentation.order
        revision = presentation.revision
        shortDescription = presentation.shortDescription
        skip = placed.flags.skip
        debugModeEnabled = placed.flags.debug
        updated = date
        mapEnabled = placed.flags.mapEnabled
        mapType = 0
        needConfirmation = placed.flags.needConfirmation
        previewMode = 0
        map = nil
    }

    /// Writes every member, null ones as `null` (as the vendor's bodies show them).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientId, forKey: .clientId)
        try container.encode(created, forKey: .created)
        try container.encode(id, forKey: .id)
        try container.encode(longDescription, forKey: .longDescription)
        try container.encode(name, forKey: .name)
        try container.encode(order, forKey: .order)
        try container.encode(revision, forKey: .revision)
        try container.encode(shortDescription, forKey: .shortDescription)
        try container.encode(skip, forKey: .skip)
        try container.encode(debugModeEnabled, forKey: .debugModeEnabled)
        try container.encode(updated, forKey: .updated)
        try container.encode(mapEnabled, forKey: .mapEnabled)
        try container.encode(mapType, forKey: .mapType)
        try container.encode(needConfirmation, forKey: .needConfirmation)
        try container.encode(previewMode, forKey: .previewMode)
        try container.encode(map, forKey: .map)
    }
}
