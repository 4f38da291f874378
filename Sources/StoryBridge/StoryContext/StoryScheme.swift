/// Who may change one object of the Story context: the app side (`appMutable`: the host's CLI,
/// HTTP endpoint and test scripts) and content (`contentMutable`: the page, through
/// `nativeStory` or `webkit.messageHandlers`). Sent to the page in `_story.scheme`, where
/// `context.js` makes the objects content may not change refuse writes.
public struct StoryObjectScheme: Sendable, Hashable {
    package var appMutable: Bool
    package var contentMutable: Bool

    package init(appMutable: Bool, contentMutable: Bool) {
        self.appMutable = appMutable
        self.contentMutable = contentMutable
    }

    /// Neither side changes it: the objects the host fills.
    package static let readOnly = StoryObjectScheme(appMutable: false, contentMutable: false)

    /// As `_story.scheme.NAME`.
    package var json: JSONValue { ["appMutable": .bool(appMutable), "contentMutable": .bool(contentMutable)] }
}

/// Which side asks for a change, checked against the scheme.
package enum StoryWriter: String, Sendable {
    /// The page (`setStoryProp` / `deleteStoryProp`).
    case content
    /// The app side: `storybridge context`, the HTTP endpoint, script steps.
    case app
}

/// One change: set a value at a key path of an object, or delete the key there.
package struct StoryChange: Sendable, Hashable {
    package enum Operation: Sendable, Hashable {
        /// Set the value (already of its declared type).
        case set(JSONValue)
        /// Remove the key (a deleted key is absent, unlike one set to null).
        case delete
    }

    package var address: StoryAddress
    package var operation: Operation

    package init(_ address: StoryAddress, _ operation: Operation) {
        self.address = address
        self.operation = operation
    }

    /// A change as the client sends it: `{op: "set", objectName, keyPath, type, value}` or
    /// `{op: "delete", objectName, keyPath}` (the arguments of `setStoryProp` and
    /// `deleteStoryProp`).
    package init(json: JSONValue) throws(StoryContextError) {
        guard case .string(let op)? = json["op"] else { throw .invalidChange(reason: "'op' must be \"set\" or \"delete\"") }
        guard case .string(let objectName)? = json["objectName"], !objectName.isEmpty else {
            throw .invalidChange(reason: "'objectName' must be a non-empty string")
        }
        guard case .string(let keyPathText)? = json["keyPath"] else {
            throw .invalidChange(reason: "'keyPath' must be a string")
        }
        let address = StoryAddress(objectName: objectName, keyPath: try StoryKeyPath(keyPathText))
        switch op {
        case "set":
            guard case .string(let typeName)? = json["type"] else { throw .invalidChange(reason: "'type' must be a string") }
            guard let type = StoryPropType(rawValue: typeName) else { throw .unknownType(typeName) }
            self.init(address, .set(try type.coerce(json["value"] ?? .null)))
        case "delete":
            self.init(address, .delete)
        default:
            throw .invalidChange(reason: "'op' must be \"set\" or \"delete\", not \"\(op)\"")
        }
    }
}
