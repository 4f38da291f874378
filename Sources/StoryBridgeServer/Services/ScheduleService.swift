import ServiceLifecycle
import StoryBridge

/// Runs a ``ScheduleSwitcher`` in serve's service group until graceful shutdown
/// (docs/design/FLEET.md §10.3).
package struct ScheduleService: Service {
    let switcher: ScheduleSwitcher

    package init(switcher: ScheduleSwitcher) {
        self.switcher = switcher
    }

    package func run() async throws {
        let switcher = self.switcher
        await cancelWhenGracefulShutdown { await switcher.run() }
    }
}
