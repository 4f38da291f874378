/// The requests a page may send over HTTP while its bridge socket connects (docs/PROTOCOL.md
/// §3.9): reads the host answers at once, with no event, no prompt and nothing written. Chromium
/// hands a slide its open socket only after the slide's load event and a rendering pass, 15 to 20
/// ms later on a deck with a few scripts; a read sent at once as a script request is answered
/// within the load instead.
package enum EarlyAnswers {
    /// The built-in commands that await (SQLite reads) and may go early, with the module that must
    /// be answering them: an embedding program that gives one to a module of its own keeps it on
    /// the socket, since the host cannot know what its handler waits for. None reads what
    /// recording a page load writes (slide views, sessions), so in a page load that keeps its
    /// session they are answered before that record: the session reads stay on the socket.
    static let awaitingReads: [(command: String, module: any BridgeModule.Type)] = [
        ("getCustomEventByKey", CustomEventsModule.self),
        ("getCustomEventsObject", CustomEventsModule.self), ("getMediaFiles", MediaModule.self),
        ("tables", TablesModule.self), ("findById", TablesModule.self), ("findByIds", TablesModule.self),
        ("findByQuery", TablesModule.self), ("count", TablesModule.self), ("countByQuery", TablesModule.self),
    ]

    /// The commands pages of `bridge` may send early: every command answered from memory that only
    /// reads (`.fromMemory(.readsOnly)`, whatever module answers it: its closure is synchronous),
    /// and the built-in SQLite reads while their built-in module answers them. Sorted.
    package static func allowed(by bridge: Bridge) -> [String] {
        bridge.derivedList("earlyAnswers", make: work)
    }

    private static func work(_ bridge: Bridge) -> [String] {
        var allowed = Set(bridge.commands.filter { bridge.policy(for: $0)?.isReadOnly == true })
        for candidate in awaitingReads {
            guard let module = bridge.registration(for: candidate.command)?.module,
                ObjectIdentifier(type(of: module)) == ObjectIdentifier(candidate.module)
            else { continue }
            allowed.insert(candidate.command)
        }
        return allowed.sorted()
    }
}
