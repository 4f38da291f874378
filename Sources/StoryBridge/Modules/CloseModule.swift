import Foundation

/// `closePresentation {mode}`: 1 closes and saves, 2 closes without saving, and 0 (what the
/// viewer chrome's close sends; an invalid mode counts as 0) closes the way the apps' own close
/// button does: a presentation whose content service flag `needConfirmation` is set asks the
/// viewer "save the session?" (save / don't save / cancel) first, any other closes and saves. A
/// `--close-answer` other than `ask` answers mode 0 for every presentation without asking. When
/// the viewer has to be asked, the module waits for the answer without a deadline and without
/// holding up the page's other requests.
struct CloseModule: BridgeModule {
    package let name = "Close"

    /// Asking the viewer may take as long as the viewer likes, so the command runs on its own task
    /// without a deadline.
    package var commands: CommandTable {
        BridgeCommand("closePresentation", .concurrent(.unlimited), handler: close)
    }

    /// What a close ended in.
    package enum Outcome: String, Sendable {
        case saved, discarded, cancelled
    }

    package init() {}

    private func close(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let rawMode = (try? request.member("mode"))??.intValue ?? 0
        let mode = (0...2).contains(rawMode) ? rawMode : 0
        let presentation = try context.currentPresentation()
        let outcome: Outcome
        switch mode {
        case 1: outcome = .saved
        case 2: outcome = .discarded
        default: outcome = try await closeAsTheAppsDo(presentation, context)
        }
        if outcome != .cancelled {
            do {
                try await context.sessions.close(context.viewer, saved: outcome == .saved)
            } catch let error as StorageError {
                throw BridgeError.storage(error)
            } catch {
                throw BridgeError.moduleFailed(command: request.command, module: name, reason: "cannot record the session: \(error)")
            }
            await context.viewer.closePresentation()
            await context.send(
                HostEvent(
                    name: "closed",
                    data: [
                        "presentation": .int(presentation.id), "mode": .int(mode), "outcome": .string(outcome.rawValue),
                        "url": .string(
                            "\(ContentPaths.reservedPrefix)closed?presentation=\(presentation.id)&outcome=\(outcome.rawValue)"),
                    ]))
        }
        return ["outcome": .string(outcome.rawValue)]
    }

    /// Mode 0: the host's policy when it is set, else the presentation's `needConfirmation`.
    private func closeAsTheAppsDo(_ presentation: Presentation, _ context: BridgeContext) async throws -> Outcome {
        switch context.policy.closeDecision {
        case .save: return .saved
        case .discard: return .discarded
        case .cancel: return .cancelled
        case .ask: return presentation.flags.needsConfirmation ? try await ask(context) : .saved
        }
    }

    private func ask(_ context: BridgeContext) async throws -> Outcome {
        let prompt = "close-\(UUID().uuidString)"
        await context.send(HostEvent(name: "confirmClose", data: ["prompt": .string(prompt)]))
        guard let answer = await context.viewer.prompts.answer(to: prompt)?.stringValue else {
            return .cancelled
        }
        switch answer {
        case "save": return .saved
        case "discard": return .discarded
        default: return .cancelled
        }
    }
}
