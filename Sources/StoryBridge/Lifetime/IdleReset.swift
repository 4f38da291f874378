import Foundation

extension StoryBridgeHost {
    /// The kiosk's screen showing `viewerId` was left untouched since `lastActivity`
    /// (docs/design/FLEET.md §9.4): that viewer's open session ends at once (`endedBy` `idle`,
    /// saved and queued for upload). The kiosk then closes the viewer's tab for a fresh one, so
    /// the viewer is not seen again; it leaves memory as any viewer nobody holds. Returns the
    /// id of the session ended; nil when the viewer is not in memory or had none in progress.
    package func endSession(idleViewer viewerId: String, lastActivity: Date) async throws -> String? {
        guard let viewer = await viewers.existingViewer(id: viewerId) else { return nil }
        return try await viewer.endSessionByIdle(with: sessions, lastActivity: lastActivity)
    }
}
