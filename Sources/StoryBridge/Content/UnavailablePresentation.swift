/// What the host says when a presentation cannot be opened: blocked by the content service, or
/// not installed (``MissingPresentation``).
extension Presentation {
    /// Why a blocked presentation (``PresentationFlags/isLockedOut``) is not shown.
    var lockoutMessage: String {
        "Presentation blocked: “\(name)” (presentation \(id)) is blocked by the content service (lockout); "
            + "its slides are not served until the service unblocks it and `storybridge sync` brings the change"
    }

    /// Why a quarantined presentation (``PresentationFlags/quarantine``) is not shown.
    func quarantineMessage(_ reason: String) -> String {
        "Presentation withheld: “\(name)” (presentation \(id)) failed its integrity check (\(reason)); "
            + "it will be repaired by the next sync"
    }
}

extension HostEvent {
    /// `unavailable`: tells the viewer's chrome why an `open` did not happen; it shows the message
    /// (and the command that gets the deck) over the slide, which stays.
    static func unavailable(_ missing: MissingPresentation) -> HostEvent {
        HostEvent(
            name: "unavailable",
            data: [
                "presentation": .int(missing.id), "reason": "missing", "title": "Presentation not installed",
                "message": .string(missing.message), "command": .string(missing.command),
            ])
    }

    /// `unavailable` for a presentation `storybridge verify` quarantined (reason `quarantined`).
    static func unavailable(quarantined presentation: Presentation, reason: String) -> HostEvent {
        HostEvent(
            name: "unavailable",
            data: [
                "presentation": .int(presentation.id), "reason": "quarantined", "title": "Presentation withheld",
                "message": .string(presentation.quarantineMessage(reason)),
            ])
    }

    /// `unavailable` for a presentation the content service blocked.
    static func unavailable(blocked presentation: Presentation) -> HostEvent {
        HostEvent(
            name: "unavailable",
            data: [
                "presentation": .int(presentation.id), "reason": "blocked", "title": "Presentation blocked",
                "message": .string(presentation.lockoutMessage),
            ])
    }
}
