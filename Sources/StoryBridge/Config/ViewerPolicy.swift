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

    /// What mode-0 closes do; `ask` by default.
    public var closeDecision: CloseDecision

    public init(closeDecision: CloseDecision = .ask) {
        self.closeDecision = closeDecision
    }
}
