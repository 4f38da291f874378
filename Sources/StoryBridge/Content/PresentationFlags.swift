/// What the content service says about how a presentation may be shown: the platform flags its
/// presentation object carries (`visibility`, `lockout`, `needConfirmation`), which
/// `storybridge sync` keeps in the sync catalog. A presentation the catalog does not know
/// (installed by hand, or served from a folder) has the ``defaults``.
package struct PresentationFlags: Sendable, Hashable {
    /// `visibility`: whether the launcher and `list` show it. A hidden one (a library or a
    /// dependency of another deck) still opens by link and by the bridge's `open`.
    package var isListed: Bool
    /// `lockout`: the content service has blocked it; its slides and files are refused.
    package var isLockedOut: Bool
    /// `needConfirmation`: leaving it through the viewer's close asks "Save the session?" first.
    package var needsConfirmation: Bool

    /// The content service no longer offers it (sync catalog state `withdrawn`): `serve` no longer
    /// offers it, and its files stay on disk until sync removes them after the grace period.
    package var isWithdrawn: Bool

    /// Why `storybridge verify` quarantined the served revision (its files differ from its
    /// manifest); `nil` when it is not quarantined. A quarantined deck stays listed, but its slides
    /// and files are withheld until the next sync repairs it or `verify --release` clears it.
    package var quarantine: String?

    /// Its slides and files are refused: blocked by the service, or quarantined.
    package var isWithheld: Bool { isLockedOut || quarantine != nil }

    /// Listed, not blocked, closing without a question.
    package static let defaults = PresentationFlags()

    package init(isListed: Bool = true, isLockedOut: Bool = false, needsConfirmation: Bool = false, isWithdrawn: Bool = false) {
        self.isListed = isListed
        self.isLockedOut = isLockedOut
        self.needsConfirmation = needsConfirmation
        self.isWithdrawn = isWithdrawn
    }
}
