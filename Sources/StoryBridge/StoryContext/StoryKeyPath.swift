/// A dotted key path inside one object of the Story context (`presentation.rating.value`), as
/// `context.js` spells it: the names from the object down to the leaf, joined with dots. The empty
/// path names the object itself.
package struct StoryKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// The names from the object down, outermost first; empty for the object itself.
    package let components: [String]

    /// Reads `text`; every name between dots must be non-empty.
    package init(_ text: String) throws(StoryContextError) {
        if text.isEmpty {
            components = []
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw .invalidKeyPath(text, reason: "a name between dots is empty")
        }
        components = parts
    }

    package var description: String { components.joined(separator: ".") }
}

/// A full address in the context: an object's name and a key path inside it, written
/// `object.key.path` on the command line and in scripts.
package struct StoryAddress: Sendable, Hashable, CustomStringConvertible {
    package let objectName: String
    package let keyPath: StoryKeyPath

    package init(objectName: String, keyPath: StoryKeyPath) {
        self.objectName = objectName
        self.keyPath = keyPath
    }

    /// Reads `object.key.path` (the object alone names the whole object).
    package init(_ text: String) throws(StoryContextError) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let object = parts.first, !object.isEmpty else {
            throw .invalidKeyPath(text, reason: "it must start with an object's name")
        }
        objectName = object
        do {
            keyPath = try StoryKeyPath(parts.count > 1 ? parts[1] : "")
        } catch {
            guard case .invalidKeyPath(_, let reason) = error else { throw error }
            throw .invalidKeyPath(text, reason: reason)
        }
        if parts.count > 1, keyPath.components.isEmpty {
            throw .invalidKeyPath(text, reason: "nothing follows the dot")
        }
    }

    package var description: String {
        keyPath.components.isEmpty ? objectName : "\(objectName).\(keyPath)"
    }
}
