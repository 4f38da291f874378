import Foundation
import Hummingbird
import StoryBridge

/// What the inspector's Rollback and Unpin buttons change: the library's served and kept
/// revisions (``LibraryStore/rollback(id:at:)``, ``LibraryStore/unpin(id:)``), each change made
/// while no sync can install a revision, as `storybridge rollback` does.
package struct RevisionControl: Sendable {
    package var store: LibraryStore
    /// Runs `change` holding what keeps a sync from installing meanwhile (`storybridge serve`:
    /// the data folder's sync lock); throws ``SyncIsRunning`` without running it when a sync
    /// holds it.
    var whileNoSyncRuns: @Sendable (_ change: () throws -> Void) throws -> Void

    package init(store: LibraryStore, whileNoSyncRuns: @escaping @Sendable (_ change: () throws -> Void) throws -> Void = { try $0() }) {
        self.store = store
        self.whileNoSyncRuns = whileNoSyncRuns
    }
}

/// A sync holds the lock a rollback needs (answered 409).
package struct SyncIsRunning: Error, Sendable {
    package init() {}
}

/// `/__storybridge/revisions`, with the launch token: `GET` lists each served presentation's
/// revision, the kept ones and its pin; `POST /__storybridge/revisions/{id}/rollback` serves the
/// newest kept revision older than the served one again and pins it; `POST …/{id}/unpin` lifts
/// the pin. No file is touched and nothing goes over the network; a running `serve` reloads the
/// presentation's viewers at their next slide change, as after an update. A host without a
/// library (``RevisionControl``) answers 404.
struct RevisionRoutes: Sendable {
    /// The endpoint's path; `POST` under it takes writes (``ReadOnlyMiddleware``).
    static let path = "/__storybridge/revisions"

    /// Whether `path` is one of the endpoint's `POST` addresses.
    static func takesWrites(_ path: String) -> Bool {
        path.hasPrefix(Self.path + "/") && (path.hasSuffix("/rollback") || path.hasSuffix("/unpin"))
    }

    let control: RevisionControl?
    let token: LaunchToken
    let refusals: RefusalLog

    func add(to router: Router<HostRequestContext>) {
        let group = router.tokenGuarded(Self.path, token: token, refusals: refusals)
        // Each reads or writes the catalog and takes the sync lock synchronously: on the blocking pool.
        group.get { _, _ in try await BlockingIO.run { try overview() } }
        group.post(":id/rollback") { _, context in
            let id = context.parameters.get("id").flatMap { Int($0) }
            return try await BlockingIO.run { try rollback(id) }
        }
        group.post(":id/unpin") { _, context in
            let id = context.parameters.get("id").flatMap { Int($0) }
            return try await BlockingIO.run { try unpin(id) }
        }
    }

    private func overview() throws -> Response {
        let decks: [RevisionOverview]
        do {
            decks = try available().store.revisionOverview()
        } catch let error as HostHTTPError {
            throw error
        } catch {
            throw HostHTTPError(.internalServerError, "Cannot read the library's revisions: \(SystemProblem(error))")
        }
        return .json(["presentations": .array(decks.map(Self.json))])
    }

    private func rollback(_ id: Int?) throws -> Response {
        let control = try available()
        guard let id else { throw HostHTTPError.notFound("No such presentation") }
        var outcome: RollbackOutcome?
        let started = ContinuousClock.now
        try change(control, id: id) { outcome = try control.store.rollback(id: id) }
        let took = (ContinuousClock.now - started).components
        let milliseconds = Double(took.seconds) * 1000 + Double(took.attoseconds) / 1e15
        guard let outcome else { throw HostHTTPError(.internalServerError, "The rollback did not say what it did") }
        return .json([
            "presentation": .int(id),
            "from": ["revision": .int(outcome.fromRevision), "packageRevision": outcome.fromPackageRevision.map(JSONValue.int) ?? .null],
            "to": ["revision": .int(outcome.toRevision), "packageRevision": outcome.toPackageRevision.map(JSONValue.int) ?? .null],
            "ms": .double(milliseconds), "pinned": .bool(true),
        ])
    }

    private func unpin(_ id: Int?) throws -> Response {
        let control = try available()
        guard let id else { throw HostHTTPError.notFound("No such presentation") }
        try change(control, id: id) { try control.store.unpin(id: id) }
        return .json(["presentation": .int(id), "pinned": .bool(false)])
    }

    /// Runs a change under the sync lock; its refusals become HTTP answers.
    private func change(_ control: RevisionControl, id: Int, _ body: () throws -> Void) throws {
        do {
            try control.whileNoSyncRuns(body)
        } catch is SyncIsRunning {
            throw HostHTTPError(.conflict, "A sync is installing revisions; try again when it ends")
        } catch let error as RollbackError {
            switch error {
            case .notInstalled: throw HostHTTPError.notFound(error.description)
            case .noEarlierRevision, .notPinned: throw HostHTTPError(.conflict, error.description)
            case .storage: throw HostHTTPError(.internalServerError, error.description)
            }
        } catch {
            throw HostHTTPError(.internalServerError, "Cannot change the revision of presentation \(id): \(SystemProblem(error))")
        }
    }

    private func available() throws -> RevisionControl {
        guard let control else {
            throw HostHTTPError.notFound("This host serves no library (storybridge serve of the library keeps revisions)")
        }
        return control
    }

    private static func json(_ deck: RevisionOverview) -> JSONValue {
        let date = ISO8601DateFormatter()
        return [
            "id": .int(deck.presentationId), "name": .string(deck.name), "revision": .int(deck.revision),
            "packageRevision": deck.packageRevision.map(JSONValue.int) ?? .null, "canRollBack": .bool(deck.canRollBack),
            "pin": deck.pin.map { pin in
                [
                    "revision": .int(pin.revision), "packageRevision": pin.packageRevision.map(JSONValue.int) ?? .null,
                    "rolledBackFromRevision": .int(pin.rolledBackFromRevision),
                    "rolledBackFromPackageRevision": pin.rolledBackFromPackageRevision.map(JSONValue.int) ?? .null,
                    "pinnedAt": .string(date.string(from: pin.pinnedAt)),
                ]
            } ?? .null,
            "kept": .array(
                deck.kept.map { kept in
                    [
                        "revision": .int(kept.revision), "packageRevision": kept.packageRevision.map(JSONValue.int) ?? .null,
                        "keptAt": .string(date.string(from: kept.keptAt)), "sizeBytes": .int(Int(kept.sizeBytes)),
                    ]
                }),
        ]
    }
}
