import StoryBridge

/// The inspector's view of the Story contexts (docs/INSPECTOR.md, "Snapshot"): for each
/// presentation a viewer shows, every leaf of its context with its key path, its exact type and
/// its value as JSON text (`3` and `3.0` stay apart), or why the context cannot be read.
enum InspectorStoryContexts {
    static func build(host: StoryBridgeHost, presentationIds: Set<Int>) async -> JSONValue {
        var contexts: [JSONValue] = []
        for id in presentationIds.sorted() {
            guard let presentation = host.library.presentation(id: id) else { continue }
            var entry: [String: JSONValue] = ["presentation": .int(id), "name": .string(presentation.name)]
            do {
                let context = try await host.storyContext.context(presentationId: id)
                var leaves: [JSONValue] = []
                let filled = host.storyContext.hostObjects(for: presentation)
                for (name, value) in filled.objects.merging(context.objects, uniquingKeysWith: { host, _ in host }) {
                    let rights = context.scheme[name] ?? .readOnly
                    flatten(value, path: name, rights: rights, into: &leaves)
                }
                for (name, rights) in context.scheme where context.objects[name] == nil {
                    leaves.append(leaf(path: name, value: .emptyObject, rights: rights))
                }
                leaves.sort { ($0["path"]?.stringValue ?? "") < ($1["path"]?.stringValue ?? "") }
                entry["leaves"] = .array(leaves)
            } catch {
                entry["error"] = .string("\(error)")
            }
            contexts.append(.object(entry))
        }
        return .array(contexts)
    }

    private static func flatten(_ value: JSONValue, path: String, rights: StoryObjectScheme, into leaves: inout [JSONValue]) {
        guard case .object(let members) = value, !members.isEmpty else {
            leaves.append(leaf(path: path, value: value, rights: rights))
            return
        }
        for (key, member) in members { flatten(member, path: path + "." + key, rights: rights, into: &leaves) }
    }

    private static func leaf(path: String, value: JSONValue, rights: StoryObjectScheme) -> JSONValue {
        [
            "path": .string(path), "type": .string(StoryPropType.of(value).rawValue), "value": .string(StoryContextJSON.text(value)),
            "contentMutable": .bool(rights.contentMutable), "appMutable": .bool(rights.appMutable),
        ]
    }
}
