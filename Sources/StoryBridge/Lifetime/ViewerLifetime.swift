/// How long idle viewers and their sessions are kept (`serve --viewer-idle-time`,
/// `--session-timeout`; config keys `server.viewerIdleTime`, `server.sessionTimeout`).
public struct ViewerLifetime: Sendable, Hashable {
    /// A viewer with no page connection for longer than this leaves memory; its state waits in the
    /// database for its tab to come back. 30 minutes by default.
    public var idleTime: Duration
    /// A session whose viewer has been gone longer than this is saved (state 1, `endedBy`
    /// `timeout`) and queued for upload. `nil` keeps the apps' behaviour: an unfinished session
    /// waits to be restored. 30 minutes by default.
    public var sessionTimeout: Duration?
    /// Viewers kept in the database without a session are forgotten after this long. 30 days.
    public var forgetAfter: Duration

    /// Lifetimes; the defaults are 30 minutes idle, 30 minutes to a session's timeout, 30 days to forget.
    public init(
        idleTime: Duration = .seconds(30 * 60), sessionTimeout: Duration? = .seconds(30 * 60),
        forgetAfter: Duration = .seconds(30 * 24 * 3600)
    ) {
        self.idleTime = idleTime
        self.sessionTimeout = sessionTimeout
        self.forgetAfter = forgetAfter
    }

    /// How often the host looks for idle viewers and sessions: a sixth of the shorter limit,
    /// between 1 second and 1 minute, so each is acted on at most a sixth late.
    package var sweepInterval: Duration {
        let shortest = min(idleTime, sessionTimeout ?? idleTime)
        return min(max(shortest / 6, .seconds(1)), .seconds(60))
    }
}
