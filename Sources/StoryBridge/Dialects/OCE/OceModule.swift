import Foundation
import Logging
import Synchronization

/// The host side of the OCE dialect: one command, `oce.call`, that the client adapter
/// (`js/oce.js`) sends for every message the `CLMPlayer` library posts (`{request, params}`),
/// whichever way it posted it (`webkit.messageHandlers.nativeCall`, or the variant's
/// `parent.postMessage`), and for the swipes the adapter sees. Calls are carried out in the
/// page's order (`ordered`). OCE content gets no answers; the adapter still hears
/// `{"handled": true}`, `{"alert": message}` (it shows the notice) or `{"refused": reason}` (it
/// logs the reason on the page's console).
///
/// What each function does is docs/DIALECTS.md §7.2's table: navigation (`gotoSlide`,
/// `goNextSequence`, `goPreviousSequence`, a swipe), page views (`startTrackingPage`,
/// `stopTrackingPage`: a record with its start, stop and duration), clickstream (`addAction`: a
/// record with the `…__c` fields as content passed them), `saveState` (``OceStateStore``),
/// `alert`, and the no-swipe regions (kept by the adapter; the host only records them).
/// Page views and actions are kept one by one, with the session, in the records content saves
/// (``CRMStore``, objects ``trackedPageObject`` and ``actionObject``) and uploaded with the session.
package struct OceModule: BridgeModule {
    package let name = "OCE"
    let records: CRMStore
    let states: OceStateStore
    let tracking = OpenPageViews()

    package init(records: CRMStore, states: OceStateStore) {
        self.records = records
        self.states = states
    }

    /// The command the adapter sends.
    package static let command = "oce.call"
    /// The record object of a tracked page view (`startTrackingPage` … `stopTrackingPage`).
    package static let trackedPageObject = "CLMPlayer.trackedPage"
    /// The record object of an `addAction` clickstream entry.
    package static let actionObject = "CLMPlayer.addAction"

    package var commands: CommandTable {
        BridgeCommand(Self.command) { request, context in
            let call: OceCall
            do {
                call = try OceCall(request.data)
            } catch {
                return ["refused": .string("CLMPlayer: \(error)")]
            }
            if let refusal = try await carryOut(call, context: context) {
                context.logger.info("OCE \(call.request) refused: \(refusal)")
                return ["refused": .string("CLMPlayer.\(call.request): \(refusal)")]
            }
            if call.request == "alert" { return ["alert": .string(call.text("msg") ?? "")] }
            return ["handled": true]
        }
        BridgeCommand(OceAssets.viewedCommand, .ordered, handler: OceAssets.viewed)
    }

    /// Carries out `call`; `nil` when done, else why not.
    private func carryOut(_ call: OceCall, context: BridgeContext) async throws -> String? {
        switch call.request {
        case "gotoSlide":
            return try await OceNavigation.goto(call, context: context)
        case "goNextSequence", "goPreviousSequence":
            return try await OceNavigation.sequence(forward: call.request == "goNextSequence", context: context)
        case "swipe":
            return try await OceNavigation.swipe(forward: call.text("direction") != "previous", context: context)
        case "startTrackingPage":
            return try await startTracking(call, context: context)
        case "stopTrackingPage":
            return try await stopTracking(context: context)
        case "addAction":
            let presentation = try context.currentPresentation()
            var fields = call.params
            fields["slide"] = context.viewer.latestState.currentSlide.map(JSONValue.string) ?? .null
            fields["created"] = .string(AnalyticsFormat.timestamp(records.clock.now))
            _ = try await records.save(
                presentationId: presentation.id, object: Self.actionObject, recordId: nil, fields: fields,
                sessionId: context.viewer.latestState.sessionId)
            return nil
        case "saveState":
            let presentation = try context.currentPresentation()
            try await states.save(
                presentationId: presentation.id, viewerId: context.viewer.id, sessionId: context.viewer.latestState.sessionId,
                state: call.params["state"] ?? .null)
            return nil
        case "alert":
            context.logger.info("OCE alert: \(call.text("msg") ?? "")")
            return nil
        case "defineNoSwipeRegion", "destroyNoSwipeRegion":
            // The adapter keeps the regions and ignores swipes that start in one.
            return call.text("regionId") == nil ? "no regionId" : nil
        case "getSurveyFlowJsonForCall", "getSurveyFlowJson", "updateFeedback":
            return "not carried out by storybridge: what the OCE app does with it is not documented publicly"
        default:
            return "unknown CLMPlayer function"
        }
    }

    private func startTracking(_ call: OceCall, context: BridgeContext) async throws -> String? {
        guard let pageId = call.text("pageid") else { return "no pageid" }
        // A page still tracked is closed first: the app tracks one page at a time.
        _ = try await stopTracking(context: context)
        let presentation = try context.currentPresentation()
        let now = records.clock.now
        let fields: [String: JSONValue] = [
            "pageid": .string(pageId), "slide": context.viewer.latestState.currentSlide.map(JSONValue.string) ?? .null,
            "started": .string(AnalyticsFormat.timestamp(now)), "stopped": .null, "duration": .null,
        ]
        let saved = try await records.save(
            presentationId: presentation.id, object: Self.trackedPageObject, recordId: nil, fields: fields,
            sessionId: context.viewer.latestState.sessionId)
        tracking.open(viewer: context.viewer.id, OpenPageViews.Open(presentationId: presentation.id, recordId: saved.id, started: now))
        return nil
    }

    private func stopTracking(context: BridgeContext) async throws -> String? {
        guard let open = tracking.close(viewer: context.viewer.id) else { return "no page is tracked" }
        let now = records.clock.now
        let duration = max(0, now.timeIntervalSince(open.started))
        _ = try await records.save(
            presentationId: open.presentationId, object: Self.trackedPageObject, recordId: open.recordId,
            fields: ["stopped": .string(AnalyticsFormat.timestamp(now)), "duration": .double((duration * 1000).rounded() / 1000)],
            sessionId: context.viewer.latestState.sessionId)
        return nil
    }
}

/// The page view each viewer tracks (`startTrackingPage` until `stopTrackingPage`).
final class OpenPageViews: Sendable {
    struct Open: Sendable {
        var presentationId: Int
        var recordId: String
        var started: Date
    }

    private let open = Mutex<[String: Open]>([:])

    func open(viewer: String, _ view: Open) {
        open.withLock { $0[viewer] = view }
    }

    func close(viewer: String) -> Open? {
        open.withLock { $0.removeValue(forKey: viewer) }
    }
}
