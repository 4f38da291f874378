import StoryBridge

extension AllowedHostNames {
    /// Whether a request whose `Host` header is `authority` is for this host; the refusal if not.
    func check(authority: String?) -> RequestRefusal? {
        switch verdict(authority: authority) {
        case .allowed: return nil
        case .missing: return .missingHost
        case .foreign(let name): return .foreignHost(name)
        }
    }
}
