/// The kinds of audit entries (docs/design/TRUST.md 4.1): what each write was.
package enum AuditKind {
    /// The log began (migration `v18-audit`).
    package static let chainStarted = "chain.started"
    /// Rows the analytics tables held when the log began.
    package static let baseline = "audit.baseline"
    /// A session started (`AnalyticsStore.insert(SessionRecord)`).
    package static let sessionStarted = "session.started"
    /// A session's state changed: saved, not saved, in progress again (restored), left; how it ended.
    package static let sessionState = "session.state"
    /// A session marked complete.
    static let sessionComplete = "session.complete"
    /// A restored session's records merged into the session it continues.
    static let sessionRestored = "session.restored"
    /// A slide view, with its session's recount.
    package static let slideViewed = "slide.viewed"
    /// A media view.
    package static let mediaViewed = "media.viewed"
    /// A custom event set.
    package static let customEventSet = "customEvent.set"
    /// A custom event deleted.
    package static let customEventDeleted = "customEvent.deleted"
    /// A deep link of a session.
    static let deepLinkRecorded = "deepLink.recorded"
    /// A CRM record content saved (Veeva: clickstream and other records).
    static let crmSaved = "crm.saved"
    /// An OCE deck's saved state.
    static let oceStateSaved = "oce.state"
    /// The writes of one group-commit transaction, two or more: deck columns `NULL`, payload
    /// `{"writes":[…]}` with each write's kind, deck and changes (``AuditEntry/writes()``). A
    /// transaction of one write has that write's own kind.
    package static let writes = "writes"
    /// A checkpoint of the head before it was made (signed with the host key, queued for upload).
    package static let checkpoint = "checkpoint"
    /// The host started: how the previous run stopped and what the head file said.
    package static let hostStarted = "host.started"
    /// The start-up checks found entries lost or changed since they were committed.
    package static let chainGap = "chain.gap"
    /// `audit verify --acknowledge` took note of the gaps recorded so far.
    static let chainAcknowledged = "chain.acknowledged"
    /// A fresh database continues the chain of a damaged one moved aside.
    package static let chainContinued = "chain.continued"
}
