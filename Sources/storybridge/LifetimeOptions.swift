import ArgumentParser
import StoryBridge

/// `serve`'s flags for hosts that run for weeks: when idle viewers leave memory and when the
/// sessions of tabs that left are finished.
struct LifetimeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How long a viewer without a page connection stays in memory (30m by default; 90s, 2h, or seconds).",
            discussion: "Its state then waits in the database; a tab that comes back continues as before."))
    var viewerIdleTime: TimeLimit?

    @Option(
        help: ArgumentHelp(
            "How long after its viewer left a session is saved and queued for upload, marked endedBy=timeout (30m by default; none keeps unfinished sessions for restore only).",
            discussion: "Also applied at start-up to sessions a killed run left open."))
    var sessionTimeout: TimeLimit?

    /// The flags over the config file's `server` keys over the defaults.
    func resolve(_ server: HostConfiguration.Server) throws -> ViewerLifetime {
        var lifetime = ViewerLifetime()
        switch viewerIdleTime ?? server.viewerIdleTime {
        case .none?: throw ValidationError("--viewer-idle-time cannot be none: viewers must leave memory some time")
        case .after(let duration)?: lifetime.idleTime = duration
        case nil: break
        }
        if let timeout = sessionTimeout ?? server.sessionTimeout { lifetime.sessionTimeout = timeout.duration }
        return lifetime
    }
}

extension TimeLimit: ExpressibleByArgument {
    package init?(argument: String) {
        guard let limit = try? TimeLimit(argument) else { return nil }
        self = limit
    }
}
