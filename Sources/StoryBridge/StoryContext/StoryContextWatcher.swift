/// Keeps the open pages of a running host in step with Story context changes written by other
/// processes on the same data folder (`storybridge context set|delete|reset`). Every
/// ``interval`` of the host's clock it takes one `stat` (on the blocking pool, ``BlockingIO``) of
/// the change stamp every write replaces (``StoryContextStore``); only when the stamp moved does it read the context of each
/// presentation shown and push the ones that differ from what their pages hold
/// (``StoryContextService/publishChangesFromElsewhere()``). A change made by this host moves the
/// stamp too, and then finds nothing new to send: it was pushed when it was made.
package struct StoryContextWatcher: Sendable {
    /// How long to wait between looks at the stamp.
    package let interval: Duration

    /// Looks every `interval`.
    package init(interval: Duration = .seconds(1)) {
        self.interval = interval
    }

    /// Watches until the task is cancelled, waiting on the host's clock between looks.
    package func run(host: StoryBridgeHost) async {
        let service = host.storyContext
        let store = service.store
        var known = await BlockingIO.run { store.changeStamp }
        while !Task.isCancelled {
            do { try await host.clock.sleep(for: interval) } catch { return }
            let now = await BlockingIO.run { store.changeStamp }
            guard now != known else { continue }
            // When this host changed a context during the look, the stamp is kept: look again.
            if await service.publishChangesFromElsewhere() { known = now }
        }
    }
}
