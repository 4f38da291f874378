/// A button of the OCE app's player around the slide. The app tells content that one was pressed
/// through `CLMPlayer.executeEvent(⟨event⟩)`; public OCE content registers listeners for these
/// three (docs/DIALECTS.md §7.2). storybridge has no player chrome of its own for them: the
/// inspector's viewer card presses them (``press(on:library:)``), and the adapter (`js/oce.js`)
/// hears the host event ``hostEvent`` and calls `executeEvent` on the page's `CLMPlayer`.
package enum OcePlayerButton: String, CaseIterable, Sendable {
    case returnToCall = "returntocallbuttonpress"
    case cancel = "cancelbuttonpress"
    case pause = "pausebuttonpress"

    /// The host event the adapter turns into `CLMPlayer.executeEvent(type)`: `{"type": ⟨event⟩}`.
    static let hostEvent = "oce.event"

    /// The event's name as content registers it (`returntocallbuttonpress`…).
    package var eventName: String { rawValue }

    /// Why a press was not passed on; each names the viewer or the event.
    package enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// No viewer has this id.
        case unknownViewer(String)
        /// The viewer shows no page now: nobody would hear the press.
        case notConnected(String)
        /// The viewer's deck is not an OCE delivery (or it shows none): its content has no `CLMPlayer`.
        case notAnOceDeck(viewer: String, presentation: String?)
        /// Not one of the player's buttons.
        case unknownEvent(String)

        package var description: String {
            switch self {
            case .unknownViewer(let id): return "No viewer '\(id)'"
            case .notConnected(let id): return "Viewer '\(id)' shows no page now; open its slide first"
            case .notAnOceDeck(let id, let presentation):
                return
                    "Viewer '\(id)' shows \(presentation.map { "'\($0)'" } ?? "no presentation"), not an OCE deck: it has no player buttons"
            case .unknownEvent(let name):
                return "'\(name)' is not a player button; one of: \(OcePlayerButton.allCases.map(\.rawValue).joined(separator: ", "))"
            }
        }
    }

    /// Reads a button from its event name.
    package init(event: String) throws(Refusal) {
        guard let button = OcePlayerButton(rawValue: event) else { throw .unknownEvent(event) }
        self = button
    }

    /// Presses the button for `viewerId`: sends ``hostEvent`` to its page, when that page shows a
    /// deck of `library` delivered for OCE.
    package func press(viewerId: String, viewers: ViewerRegistry, library: PresentationLibrary) async throws(Refusal) {
        guard let viewer = await viewers.existingViewer(id: viewerId) else { throw .unknownViewer(viewerId) }
        let state = await viewer.state
        let presentation = state.presentationId.flatMap { library.presentation(id: $0) }
        guard let presentation, presentation.dialect == .oce else {
            throw .notAnOceDeck(viewer: viewerId, presentation: presentation?.name)
        }
        guard await viewer.isConnected else { throw .notConnected(viewerId) }
        await viewer.send(HostEvent(name: Self.hostEvent, data: ["type": .string(eventName)]))
    }
}
