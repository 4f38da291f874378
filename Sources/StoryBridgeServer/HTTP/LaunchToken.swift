/// The per-launch secret a page presents (as the `token` query parameter) to open the bridge,
/// the inspector and the host's other private endpoints. Slides carry it; other sites cannot
/// read it.
struct LaunchToken: Sendable {
    let value: String

    /// Whether `candidate` is the token, compared in constant time so that the time an answer
    /// takes says nothing about how much of a guess was right.
    func matches(_ candidate: Substring?) -> Bool {
        guard let candidate else { return false }
        let expected = value.utf8
        guard candidate.utf8.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (given, wanted) in zip(candidate.utf8, expected) { difference |= given ^ wanted }
        return difference == 0
    }
}
