import Foundation

/// What one sweep did.
package struct IdleSweepReport: Sendable, Hashable {
    /// Sessions saved because their viewer was gone longer than the session timeout.
    package var sessionsTimedOut = 0
    /// Viewers that left memory.
    package var viewersEvicted = 0
    /// Viewers in memory after the sweep.
    package var viewersInMemory = 0
}

extension StoryBridgeHost {
    /// Applies ``lifetime`` once, at the host clock's now:
    ///
    /// 1. the session of every viewer in memory idle longer than the session timeout is finished
    ///    by timeout (``SessionTracker/timeOut(_:viewerId:lastActivity:)``);
    /// 2. viewers idle longer than the idle time leave memory for the database;
    /// 3. the same timeout for viewers in the database;
    /// 4. sessions nobody holds (left by a killed run, or by a tab that opened another
    ///    presentation) unchanged for longer than the timeout are finished by timeout.
    ///
    /// Run at start-up (before serving) and then every ``ViewerLifetime/sweepInterval`` by the
    /// server's `IdleSweepService`. A failure of one step is logged; the others still run.
    @discardableResult
    package func sweepIdle() async -> IdleSweepReport {
        var report = IdleSweepReport()
        let now = clock.now
        if let timeout = lifetime.sessionTimeout {
            let cutoff = now.addingTimeInterval(-Self.seconds(timeout))
            for viewer in await viewers.all {
                guard let idleSince = viewer.idleSince, idleSince < cutoff, await viewer.state.sessionId != nil else { continue }
                do {
                    try await viewer.timeOutSession(with: sessions, lastActivity: idleSince)
                    report.sessionsTimedOut += 1
                } catch {
                    logger.error("sessions: cannot finish a session by timeout", metadata: ["viewer": "\(viewer.id)", "error": "\(error)"])
                }
            }
        }
        report.viewersEvicted = await viewers.evictIdle(before: now.addingTimeInterval(-Self.seconds(lifetime.idleTime)))
        if let timeout = lifetime.sessionTimeout, let store = viewers.store {
            let cutoff = now.addingTimeInterval(-Self.seconds(timeout))
            do {
                for var snapshot in try await store.holdingSessions(idleBefore: cutoff) {
                    snapshot.state = try await sessions.timeOut(snapshot.state, viewerId: snapshot.id, lastActivity: snapshot.idleSince)
                    snapshot.sessionId = nil
                    try await store.save(snapshot)
                    report.sessionsTimedOut += 1
                }
                var active: Set<String> = []
                for viewer in await viewers.all {
                    if let id = await viewer.state.sessionId { active.insert(id) }
                }
                report.sessionsTimedOut += try await analytics.finishAbandonedSessions(changedBefore: cutoff, excluding: active).count
            } catch {
                logger.error("sessions: cannot finish the sessions of departed viewers", metadata: ["error": "\(error)"])
            }
        }
        if let store = viewers.store {
            do {
                try await store.forget(idleBefore: now.addingTimeInterval(-Self.seconds(lifetime.forgetAfter)))
            } catch {
                logger.error("viewers: cannot forget long-gone viewers", metadata: ["error": "\(error)"])
            }
        }
        report.viewersInMemory = await viewers.count
        if report.sessionsTimedOut > 0 || report.viewersEvicted > 0 {
            logger.debug(
                "idle sweep",
                metadata: [
                    "timedOut": "\(report.sessionsTimedOut)", "evicted": "\(report.viewersEvicted)",
                    "inMemory": "\(report.viewersInMemory)",
                ])
        }
        return report
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
