/// How the host answers questions that the apps put to the user, for interactive and scripted use.
public struct ViewerPolicy: Sendable, Hashable, Codable {
    /// The answer to "save the session?" when content closes with mode 0.
    public enum CloseDecision: String, Sendable, Hashable, Codable, CaseIterable {
        /// Ask the viewer in the browser chrome and wait for the answer.
        case ask
        /// Save (state 1) without asking.
        case save
        /// Do not save (state 2) without asking.
        case discard
        /// Stay in the presentation without asking.
        case cancel
    }

    /// Whether an unfinished session of the same presentation is continued when it is opened again.
    public enum RestoreDecision: String, Sendable, Hashable, Codable, CaseIterable {
        /// Ask the viewer in the browser chrome (a new session records meanwhile, and is merged in
        /// when the viewer chooses to continue).
        case ask
        /// Continue the unfinished session without asking.
        case restore
        /// Start a new session without asking.
        case new
    }

    /// What mode-0 closes do; `ask` by default.
    public var closeDecision: CloseDecision
    /// What happens to unfinished sessions; `ask` by default.
    public var restoreDecision: RestoreDecision

    /// A policy; both decisions default to asking the viewer.
    public init(closeDecision: CloseDecision = .ask, restoreDecision: RestoreDecision = .ask) {
        self.closeDecision = closeDecision
        self.restoreDecision = restoreDecision
    }
}
