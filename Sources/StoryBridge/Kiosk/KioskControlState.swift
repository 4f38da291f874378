import Foundation

/// What `serve` knows of the attached `storybridge kiosk` (docs/design/FLEET.md §9.3), as a plain
/// value: each event returns the actions to take, which the control route performs. One kiosk is
/// attached at a time; a new one replaces the old, whose socket is closed with 4409.
package struct KioskControlState: Sendable, Equatable {
    /// The attached kiosk.
    package struct Attached: Sendable, Equatable {
        /// The control connection's number.
        package var connection: Int
        /// What it said when it attached.
        package var attach: KioskControlMessage.Attach
        /// Its latest counters, once it has sent any.
        package var status: KioskControlMessage.Status?
    }

    /// The attached kiosk's `idle {viewer}`: serve ends that viewer's session, then answers with
    /// ``KioskControlState/idleHandled(_:)`` (docs/design/FLEET.md §9.4).
    package struct IdleReport: Sendable, Equatable {
        /// The kiosk's connection.
        package var connection: Int
        /// The viewer whose screen was idle.
        package var viewer: String
        /// The kiosk's idle time in seconds (its `attach`'s): the screen's last input was that long
        /// ago.
        package var idleSeconds: Int

        /// A report of `viewer` from `connection`, whose idle time is `idleSeconds`.
        package init(connection: Int, viewer: String, idleSeconds: Int) {
            self.connection = connection
            self.viewer = viewer
            self.idleSeconds = idleSeconds
        }
    }

    /// What the route does.
    package enum Action: Sendable, Equatable {
        /// Send `message` on `connection`.
        case send(connection: Int, KioskControlMessage)
        /// Close `connection` with `code` and `reason`.
        case close(connection: Int, code: UInt16, reason: String)
    }

    /// The close code of a kiosk replaced by a newer one.
    static let replacedCode: UInt16 = 4409

    /// The attached kiosk, if any.
    package private(set) var attached: Attached?
    /// The URL a kiosk is told to open: the scheduled deck's start page.
    package private(set) var startURL: String

    /// A state with no kiosk attached, telling kiosks to open `startURL`.
    package init(startURL: String) {
        self.startURL = startURL
    }

    /// `connection` said `attach`: it is the kiosk now, and opens the start URL; a kiosk attached
    /// before is closed.
    package mutating func attach(_ message: KioskControlMessage.Attach, on connection: Int) -> [Action] {
        var actions: [Action] = []
        if let previous = attached, previous.connection != connection {
            actions.append(
                .close(connection: previous.connection, code: Self.replacedCode, reason: "another storybridge kiosk attached"))
        }
        attached = Attached(connection: connection, attach: message, status: nil)
        actions.append(.send(connection: connection, .start(url: startURL)))
        return actions
    }

    /// `connection` sent its counters; those of a connection that is not the attached kiosk are
    /// ignored.
    package mutating func status(_ message: KioskControlMessage.Status, on connection: Int) {
        guard attached?.connection == connection else { return }
        attached?.status = message
    }

    /// `connection` said `idle {viewer}`: the report to act on, or nil when `connection` is not
    /// the attached kiosk (a replaced kiosk's word no longer counts).
    package func idle(viewer: String, on connection: Int) -> IdleReport? {
        guard let attached, attached.connection == connection else { return nil }
        return IdleReport(connection: connection, viewer: viewer, idleSeconds: attached.attach.idleResetSeconds)
    }

    /// The session of `report`'s viewer has ended: the kiosk is told so, and opens a fresh page.
    package func idleHandled(_ report: IdleReport) -> [Action] {
        [.send(connection: report.connection, .idleDone(viewer: report.viewer))]
    }

    /// `connection` closed; when it was the attached kiosk, none is attached.
    package mutating func closed(_ connection: Int) {
        if attached?.connection == connection { attached = nil }
    }

    /// The scheduled deck changed: the attached kiosk opens `url`.
    package mutating func startURLChanged(to url: String) -> [Action] {
        guard url != startURL else { return [] }
        startURL = url
        guard let attached else { return [] }
        return [.send(connection: attached.connection, .start(url: url))]
    }
}
