import StoryBridge

/// The per-launch secret a page presents (as the `token` query parameter) to open the bridge,
/// the inspector and the host's other private endpoints. Slides carry it; other sites cannot
/// read it.
struct LaunchToken: Sendable {
    let value: String

    /// Whether `candidate` is the token, compared in constant time so that the time an answer
    /// takes says nothing about how much of a guess was right.
    func matches(_ candidate: Substring?) -> Bool {
        guard let candidate else { return false }
        return ConstantTime.equal(candidate.utf8, value.utf8)
    }
}
