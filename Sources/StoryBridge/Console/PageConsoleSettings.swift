/// Whether the client forwards a page's own `console` lines to the host (`serve --page-console`).
public enum PageConsoleForwarding: String, Sendable, CaseIterable {
    /// The client sends each `console.log/info/warn/error/debug` line as a `consolelog` command.
    case forward
    /// The client leaves the page's console alone; `consolelog` commands a page sends itself are
    /// still taken.
    case off
}

/// How the host treats the console lines of pages.
public struct PageConsoleSettings: Sendable, Equatable {
    /// Whether the client forwards the page's console.
    public var forwarding: PageConsoleForwarding
    /// Lines each page may send, held by the client and by the host.
    public var limit: ConsoleRateLimit

    /// Settings that forward, at ``ConsoleRateLimit/standard`` unless told otherwise.
    public init(forwarding: PageConsoleForwarding = .forward, limit: ConsoleRateLimit = .standard) {
        self.forwarding = forwarding
        self.limit = limit
    }

    /// The limit the client forwards the page's console at; `nil` when it does not forward.
    package var clientLimit: ConsoleRateLimit? { forwarding == .forward ? limit : nil }
}
