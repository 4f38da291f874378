/// Takes the Story context changes a page reports (the client forwards each `setStoryProp` and
/// `deleteStoryProp` call of `nativeStory` or `webkit.messageHandlers`) and applies them as
/// content's: the scheme decides, refusals are logged and answered, and every page of the
/// presentation gets the new context (docs/PROTOCOL.md §9).
struct StoryContextModule: BridgeModule {
    let name = "StoryContext"
    /// The command the client sends: `{changes: [{op, objectName, keyPath, type, value}, …]}`.
    static let command = "storybridge.storyChanges"

    let service: StoryContextService

    var commands: CommandTable {
        BridgeCommand(Self.command, .ordered, handler: changes)
    }

    /// Answers `{applied, refused: [{index, reason}]}`. When a change was refused and nothing
    /// changed, the sender alone gets the context again, so a page that wrote past the scheme (by
    /// calling `nativeStory` directly) shows the host's values again.
    private func changes(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        guard case .array(let items)? = try request.member("changes") else {
            throw BridgeError.invalidData(field: "changes", reason: "must be an array of {op, objectName, keyPath, type, value}")
        }
        let presentation = try context.currentPresentation()
        var parsed: [(index: Int, change: StoryChange)] = []
        var refused: [JSONValue] = []
        for (index, item) in items.enumerated() {
            do throws(StoryContextError) {
                parsed.append((index, try StoryChange(json: item)))
            } catch {
                context.logger.warning(
                    "story context: change refused", metadata: ["change": "\(item.jsonString())", "reason": "\(error)"])
                refused.append(["index": .int(index), "reason": .string(error.description)])
            }
        }
        let outcome: StoryContextOutcome
        do {
            outcome = try await service.apply(parsed.map(\.change), by: .content, presentationId: presentation.id)
        } catch let error as StoryContextError {
            throw error.bridgeError
        } catch let error as StorageError {
            throw BridgeError.storage(error)
        }
        for (item, refusal) in zip(parsed, outcome.refusals) {
            guard let refusal else { continue }
            refused.append(["index": .int(item.index), "reason": .string(refusal.description)])
        }
        if !refused.isEmpty, !outcome.changed {
            let story = outcome.context.story(filled: service.hostObjects(for: presentation))
            await context.send(service.restoreEvent(story: story, presentationId: presentation.id))
        }
        refused.sort { ($0["index"]?.intValue ?? 0) < ($1["index"]?.intValue ?? 0) }
        return ["applied": .int(items.count - refused.count), "refused": .array(refused)]
    }
}
