/// The Story context of one presentation and user: the scheme, and the objects the app and
/// content share. The objects the host fills (`app`, `user`, `presentation`) are not kept here;
/// ``story(filled:)`` adds them.
package struct StoryContext: Sendable, Hashable {
    /// The objects the host fills from its identity and catalog, read-only to both sides.
    static let hostFilledObjects: Set<String> = ["app", "user", "presentation"]

    /// Who may change each object.
    package var scheme: [String: StoryObjectScheme]
    /// Each declared object's value, an object.
    package var objects: [String: JSONValue]

    package init(scheme: [String: StoryObjectScheme] = [:], objects: [String: JSONValue] = [:]) {
        self.scheme = scheme
        self.objects = objects
    }

    /// Applies `change` asked for by `writer`; returns whether the object changed. A change the
    /// scheme forbids, or whose key path runs through a value that is not an object, throws and
    /// changes nothing.
    @discardableResult
    package mutating func apply(_ change: StoryChange, by writer: StoryWriter) throws(StoryContextError) -> Bool {
        let name = change.address.objectName
        if Self.hostFilledObjects.contains(name) { throw .filledByHost(name) }
        guard let rights = scheme[name] else { throw .undeclaredObject(name) }
        switch writer {
        case .content where !rights.contentMutable: throw .readOnlyToContent(name)
        case .app where !rights.appMutable: throw .readOnlyToApp(name)
        default: break
        }
        let old = objects[name] ?? .emptyObject
        var new = old
        let path = change.address.keyPath.components
        switch change.operation {
        case .set(let value):
            guard !path.isEmpty || value.objectValue != nil else {
                throw .typeMismatch(type: "object", value: StoryContextJSON.text(value))
            }
            try Self.set(value, at: path[...], in: &new, address: change.address, walked: [name])
        case .delete:
            if path.isEmpty { new = .emptyObject } else { Self.delete(at: path[...], in: &new) }
        }
        objects[name] = new
        return new != old
    }

    private static func set(
        _ value: JSONValue, at path: ArraySlice<String>, in container: inout JSONValue, address: StoryAddress, walked: [String]
    ) throws(StoryContextError) {
        guard let key = path.first else {
            container = value
            return
        }
        var members: [String: JSONValue]
        switch container {
        case .object(let existing): members = existing
        case .null: members = [:]
        default:
            throw .crossesValue(
                path: address.description, at: walked.joined(separator: "."), found: StoryPropType.of(container).rawValue)
        }
        var child = members[key] ?? .null
        if path.count == 1 {
            child = value
        } else {
            try set(value, at: path.dropFirst(), in: &child, address: address, walked: walked + [key])
        }
        members[key] = child
        container = .object(members)
    }

    private static func delete(at path: ArraySlice<String>, in container: inout JSONValue) {
        guard let key = path.first, case .object(var members) = container else { return }
        if path.count == 1 {
            members.removeValue(forKey: key)
        } else if var child = members[key] {
            delete(at: path.dropFirst(), in: &child)
            members[key] = child
        }
        container = .object(members)
    }

    /// The value at `address`, or `nil` when no key is there (a key holding null gives `.null`).
    package func value(at address: StoryAddress, filled: StoryHostObjects) -> JSONValue? {
        var current: JSONValue? = filled.objects[address.objectName] ?? objects[address.objectName]
        for key in address.keyPath.components { current = current?[key] }
        return current
    }

    /// The whole context as the page sees it in `window._story`: `scheme`, the host's objects and
    /// every declared object (an empty object when it holds nothing yet).
    package func story(filled: StoryHostObjects) -> JSONValue {
        var schemeJSON: [String: JSONValue] = [:]
        var members: [String: JSONValue] = [:]
        for (name, rights) in scheme where !Self.hostFilledObjects.contains(name) {
            schemeJSON[name] = rights.json
            members[name] = objects[name] ?? .emptyObject
        }
        for (name, value) in filled.objects {
            schemeJSON[name] = StoryObjectScheme.readOnly.json
            members[name] = value
        }
        members["scheme"] = .object(schemeJSON)
        return .object(members)
    }
}

/// The objects the host fills: `app` (name, version, os, device, localization), `user` (id,
/// username) and `presentation` (id, name, revision), from its identity and catalog.
package struct StoryHostObjects: Sendable, Hashable {
    package let objects: [String: JSONValue]

    package init(identity: HostIdentity, presentation: Presentation) {
        objects = [
            "app": [
                "name": "storybridge", "version": .string(identity.app.appVersion), "os": .string(identity.app.os),
                "osVersion": .string(identity.app.osVersion), "device": .string(identity.app.device),
                "localization": .string(identity.app.localization),
            ],
            "user": ["id": .string(identity.user.id), "username": .string(identity.user.username)],
            "presentation": [
                "id": .int(presentation.id), "name": .string(presentation.name), "revision": .int(presentation.revision),
            ],
        ]
    }
}
