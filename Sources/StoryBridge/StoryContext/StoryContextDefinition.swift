import Foundation

/// Where a Story context starts: its scheme and the starting values of its objects. Read from a
/// presentation's `story-context.json` (at the root of its package) and from the file the config
/// names (`storyContext`, for every presentation); the presentation's file wins object by object.
///
/// The file has the shape of `window._story` without the objects the host fills:
///
/// ```json
/// {
///   "scheme": {
///     "questProgress": {"appMutable": true, "contentMutable": false},
///     "debugAppState": {"appMutable": true, "contentMutable": true}
///   },
///   "questProgress": {"stageName": "Study", "state": "Success"},
///   "debugAppState": {"presentation": {"rating": {"value": 3}}}
/// }
/// ```
public struct StoryContextDefinition: Sendable, Hashable {
    /// The file name in a presentation's package.
    package static let fileName = "story-context.json"

    package var scheme: [String: StoryObjectScheme]
    package var objects: [String: JSONValue]

    /// A definition from object schemes and initial objects; empty by default.
    public init(scheme: [String: StoryObjectScheme] = [:], objects: [String: JSONValue] = [:]) {
        self.scheme = scheme
        self.objects = objects
    }

    /// Reads a definition; `source` names it in errors. Every object must be declared in
    /// `scheme` and be a JSON object. The host's own objects (`app`, `user`, `presentation`) may
    /// appear in the scheme only as read-only to both sides, and never with values.
    package init(json: JSONValue, source: String) throws(StoryContextError) {
        guard case .object(let members) = json else {
            throw .invalidDefinition(source: source, reason: "it must be a JSON object")
        }
        guard case .object(let schemeMembers)? = members["scheme"] else {
            throw .invalidDefinition(source: source, reason: "'scheme' must be an object naming each object's rights")
        }
        var scheme: [String: StoryObjectScheme] = [:]
        for (name, rights) in schemeMembers {
            guard case .bool(let app)? = rights["appMutable"], case .bool(let content)? = rights["contentMutable"] else {
                throw .invalidDefinition(
                    source: source, reason: "scheme.\(name) must be {\"appMutable\": true|false, \"contentMutable\": true|false}")
            }
            let entry = StoryObjectScheme(appMutable: app, contentMutable: content)
            if StoryContext.hostFilledObjects.contains(name) {
                guard entry == .readOnly else {
                    throw .invalidDefinition(
                        source: source, reason: "scheme.\(name): the host fills '\(name)', it is read-only to both sides")
                }
                continue
            }
            scheme[name] = entry
        }
        var objects: [String: JSONValue] = [:]
        for (name, value) in members where name != "scheme" {
            if StoryContext.hostFilledObjects.contains(name) {
                throw .invalidDefinition(source: source, reason: "'\(name)' is filled by the host; remove its values")
            }
            guard scheme[name] != nil else {
                throw .invalidDefinition(source: source, reason: "object '\(name)' is not declared in 'scheme'")
            }
            guard case .object = value else {
                throw .invalidDefinition(source: source, reason: "object '\(name)' must be a JSON object")
            }
            objects[name] = value
        }
        self.scheme = scheme
        self.objects = objects
    }

    /// Reads the definition in `file`; `nil` when there is no such file.
    package static func read(from file: URL) throws(StoryContextError) -> StoryContextDefinition? {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            throw .invalidDefinition(source: file.path, reason: SystemProblem(error).description)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw .invalidDefinition(source: file.path, reason: "not JSON: \(error)")
        }
        return try StoryContextDefinition(json: json, source: file.path)
    }

    /// This definition with `other`'s objects added, `other` winning for an object both declare.
    package func overlaid(by other: StoryContextDefinition) -> StoryContextDefinition {
        StoryContextDefinition(
            scheme: scheme.merging(other.scheme) { _, new in new },
            objects: objects.filter { other.scheme[$0.key] == nil }.merging(other.objects) { _, new in new })
    }

    /// The context before anything changed it.
    package var startingContext: StoryContext { StoryContext(scheme: scheme, objects: objects) }
}
