import Foundation
import Logging

/// All viewers the host keeps in memory, by id, and the way they leave and come back.
///
/// A viewer nobody has held (no page connection) for longer than the idle time leaves memory
/// (``evictIdle(before:)``): its ``ViewerSnapshot`` goes to the database. When its tab comes back,
/// ``lease(id:)`` reads it back and the tab continues as before. Memory is then bounded by the
/// viewers active within the idle time, however many tabs the host has ever seen.
package actor ViewerRegistry {
    private var viewers: [String: Viewer] = [:]
    /// Viewers being read back from the database, by id.
    private var arrivals: [String: Task<Void, Never>] = [:]
    /// Viewers being written to the database, by id: the viewer when the write failed.
    private var departures: [String: Task<Viewer?, Never>] = [:]
    private let eventObserver: (@Sendable (String, HostEvent) -> Void)?
    /// Where viewers that leave memory are kept; `nil` keeps every viewer in memory.
    package nonisolated let store: ViewerStore?
    private let clock: any HostClock
    private let logger: Logger

    /// Creates an empty registry; `eventObserver` is told of every event sent to any viewer.
    /// With a `store`, idle viewers can leave memory (``evictIdle(before:)``) and come back.
    package init(
        store: ViewerStore? = nil, clock: any HostClock = SystemHostClock(), logger: Logger = Logger(label: "storybridge.viewers"),
        eventObserver: (@Sendable (String, HostEvent) -> Void)? = nil
    ) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.eventObserver = eventObserver
    }

    /// The viewer with this id: in memory, read back from the database, or new.
    package func viewer(id: String) async -> Viewer {
        while true {
            if let existing = viewers[id] { return existing }
            await arrival(of: id).value
        }
    }

    /// The viewer with this id (as ``viewer(id:)``), held in memory until ``release(_:)``: a page
    /// connection holds its viewer while it is served.
    package func lease(id: String) async -> Viewer {
        while true {
            if let existing = viewers[id], existing.lease() { return existing }
            await arrival(of: id).value
        }
    }

    /// Ends a lease taken with ``lease(id:)``; the viewer is idle from now when none is left.
    package nonisolated func release(_ viewer: Viewer) {
        viewer.release(at: clock.now)
    }

    /// The task that puts viewer `id` in memory: after any write of it in progress, it is read
    /// back from the database or created.
    private func arrival(of id: String) -> Task<Void, Never> {
        if let pending = arrivals[id] { return pending }
        let departure = departures[id]
        let task = Task {
            let viewer = await self.bringBack(id: id, after: departure)
            self.arrived(viewer)
        }
        arrivals[id] = task
        return task
    }

    private nonisolated func bringBack(id: String, after departure: Task<Viewer?, Never>?) async -> Viewer {
        if let unsaved = await departure?.value {
            unsaved.unretire()
            return unsaved
        }
        let now = clock.now
        guard let store else { return Viewer(id: id, idleSince: now, eventObserver: eventObserver) }
        do {
            if let snapshot = try await store.takeBack(id: id) {
                return Viewer(snapshot: snapshot, now: now, eventObserver: eventObserver)
            }
        } catch {
            logger.error("viewers: cannot read back a viewer, it starts afresh", metadata: ["viewer": "\(id)", "error": "\(error)"])
        }
        return Viewer(id: id, idleSince: now, eventObserver: eventObserver)
    }

    private func arrived(_ viewer: Viewer) {
        if viewers[viewer.id] == nil { viewers[viewer.id] = viewer }
        arrivals[viewer.id] = nil
    }

    /// The viewer with this id, if it is in memory.
    package func existingViewer(id: String) -> Viewer? { viewers[id] }

    /// The viewers in memory.
    package var all: [Viewer] { Array(viewers.values) }

    /// How many viewers are in memory.
    package var count: Int { viewers.count }

    /// Moves every viewer nobody has held since before `cutoff` to the database and out of
    /// memory; returns how many left. A viewer whose state cannot be written stays in memory.
    /// Without a store nothing leaves.
    @discardableResult
    func evictIdle(before cutoff: Date) async -> Int {
        guard let store else { return 0 }
        var leaving: [Viewer] = []
        for (id, viewer) in viewers where viewer.retireIfIdle(before: cutoff) {
            leaving.append(viewer)
            viewers[id] = nil
        }
        var gone = 0
        for viewer in leaving {
            let (logger, clock) = (self.logger, self.clock)
            let departure = Task<Viewer?, Never> {
                do {
                    try await store.save(await viewer.snapshot(at: clock.now))
                    return nil
                } catch {
                    logger.warning(
                        "viewers: cannot keep an idle viewer in the database, it stays in memory",
                        metadata: ["viewer": "\(viewer.id)", "error": "\(error)"])
                    return viewer
                }
            }
            departures[viewer.id] = departure
            if let unsaved = await departure.value {
                unsaved.unretire()
                if viewers[unsaved.id] == nil, arrivals[unsaved.id] == nil { viewers[unsaved.id] = unsaved }
            } else {
                gone += 1
            }
            departures[viewer.id] = nil
        }
        return gone
    }

    /// Writes every viewer in memory to the database (at shutdown), so the tabs continue after a
    /// restart; returns how many were written.
    @discardableResult
    package func persistAll() async -> Int {
        guard let store else { return 0 }
        var written = 0
        for viewer in viewers.values {
            do {
                try await store.save(await viewer.snapshot(at: clock.now))
                written += 1
            } catch {
                logger.warning("viewers: cannot keep a viewer at shutdown", metadata: ["viewer": "\(viewer.id)", "error": "\(error)"])
            }
        }
        return written
    }
}
