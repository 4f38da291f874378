import Foundation
import Logging
import Synchronization

/// The Story context API of a host (docs/PROTOCOL.md §9): each presentation's context for the
/// host's user, its definition (the presentation's `story-context.json` over the configured one),
/// the objects the host fills, changes from either side, and the `storyChange` pushes to every
/// open page of the presentation after a change.
package final class StoryContextService: Sendable {
    /// The event that carries the new context to pages: `{presentation, story, revision, version}`
    /// (and `restore: true` when a page gets the state back after a refused change).
    package static let changeEvent = "storyChange"

    package let store: StoryContextStore
    let library: PresentationLibrary
    package let identity: HostIdentity
    /// The definition every presentation starts from (the config's `storyContext` file).
    let base: StoryContextDefinition
    /// Where pushes go; `nil` for a host without pages (the CLI).
    let viewers: ViewerRegistry?
    let logger: Logger
    /// Each presentation's definition, with the stamp of the file it was read from.
    private let definitions = Mutex<[Int: CachedDefinition]>([:])
    /// Each presentation's `window._story` as JSON text, with what it was read under.
    private let pageStories = Mutex<[Int: CachedPageStory]>([:])
    /// Changes applied by this process: a cached page story older than the last one is read again.
    private let localChanges = Mutex<Int>(0)
    /// Each presentation's `window._story` as JSON text as its pages were last given it (a slide
    /// load or a push): what a change by another process is told apart by.
    private let shownStories = Mutex<[Int: String]>([:])
    /// Each presentation's last push: the `revision` of every state a page is given (a slide or
    /// a push), so a page tells an older state from a newer one. It grows by one a push from
    /// ``revisionBase``.
    private let revisions = Mutex<[Int: Int]>([:])
    /// The revision before this process's first push: its start in microseconds since 1970, so
    /// the pushes of a restarted host are newer to a page that stayed open than the old host's
    /// (below 2^53, exact as a JavaScript number).
    private let revisionBase = Int(Date().timeIntervalSince1970 * 1_000_000)

    private struct CachedDefinition {
        let file: URL
        let stamp: FileStamp?
        let definition: Result<StoryContextDefinition, StoryContextError>
    }

    /// What a page story depends on besides the stored objects of this process's changes.
    private struct PageStoryKey: Hashable {
        let definition: FileStamp?
        let changes: FileStamp?
        let localChanges: Int
        let name: String
        let revision: Int
    }

    private struct CachedPageStory {
        let key: PageStoryKey
        let text: String
        let version: String
    }

    /// A state of a context as a slide gets it: its JSON text, the revision it was read under,
    /// and its version (which names the content: equal texts, equal versions).
    package struct PageStory: Sendable, Equatable {
        package let text: String
        package let revision: Int
        package let version: String

        package init(text: String, revision: Int, version: String) {
            self.text = text
            self.revision = revision
            self.version = version
        }
    }

    package init(
        store: StoryContextStore, library: PresentationLibrary, identity: HostIdentity,
        base: StoryContextDefinition = StoryContextDefinition(), viewers: ViewerRegistry?, logger: Logger
    ) {
        self.store = store
        self.library = library
        self.identity = identity
        self.base = base
        self.viewers = viewers
        self.logger = logger
    }

    /// The presentation with `id`; throws when the library has none.
    package func presentation(_ id: Int) throws(StoryContextError) -> Presentation {
        guard let presentation = library.presentation(id: id) else { throw .unknownPresentation(id) }
        return presentation
    }

    /// The definition of `presentation`: its `story-context.json` over the configured one. Read
    /// again when the file's modification date changes (live reload, a new install).
    package func definition(for presentation: Presentation) throws(StoryContextError) -> StoryContextDefinition {
        let file = Self.definitionFile(of: presentation)
        let stamp = FileStamp(path: file.path)
        let cached = definitions.withLock { $0[presentation.id] }
        let entry: CachedDefinition
        if let cached, cached.file == file, cached.stamp == stamp {
            entry = cached
        } else {
            let read: Result<StoryContextDefinition, StoryContextError>
            do throws(StoryContextError) {
                read = .success(base.overlaid(by: try StoryContextDefinition.read(from: file) ?? StoryContextDefinition()))
            } catch {
                logger.error("story context: the presentation's definition is refused", metadata: ["error": "\(error)"])
                read = .failure(error)
            }
            entry = CachedDefinition(file: file, stamp: stamp, definition: read)
            definitions.withLock { $0[presentation.id] = entry }
        }
        return try entry.definition.get()
    }

    private static func definitionFile(of presentation: Presentation) -> URL {
        presentation.root.appendingPathComponent(StoryContextDefinition.fileName)
    }

    /// `window._story` for a slide of `presentation`, as JSON text. Kept from one slide load to
    /// the next until the context changes (here or in another process, ``StoryContextStore``),
    /// the presentation's definition file changes, or the presentation is re-read: two `stat`
    /// calls instead of a database read and a JSON rendering per slide.
    package func pageStoryText(for presentation: Presentation) async throws -> String {
        try await pageStory(for: presentation).text
    }

    /// ``pageStoryText(for:)`` with its revision and version. The revision is taken before the
    /// text is read, so a push that follows carries a greater one.
    package func pageStory(for presentation: Presentation) async throws -> PageStory {
        let revision = currentRevision(presentationId: presentation.id)
        // Two `stat` calls, on the blocking pool (``BlockingIO``) like the slide's own file.
        let (definition, changes) = await BlockingIO.run { [store, file = Self.definitionFile(of: presentation).path] in
            (FileStamp(path: file), store.changeStamp)
        }
        let key = PageStoryKey(
            definition: definition, changes: changes, localChanges: localChanges.withLock { $0 }, name: presentation.name,
            revision: presentation.revision)
        if let cached = pageStories.withLock({ $0[presentation.id] }), cached.key == key {
            shownStories.withLock { $0[presentation.id] = cached.text }
            return PageStory(text: cached.text, revision: revision, version: cached.version)
        }
        // Read after the key: a change meanwhile makes the next key differ, so it is read again.
        let text = try await story(presentationId: presentation.id).jsonString()
        let version = Self.version(ofStoryText: text)
        pageStories.withLock { $0[presentation.id] = CachedPageStory(key: key, text: text, version: version) }
        shownStories.withLock { $0[presentation.id] = text }
        return PageStory(text: text, revision: revision, version: version)
    }

    /// The revision of presentation `id`'s last push (``revisionBase`` before its first).
    package func currentRevision(presentationId id: Int) -> Int {
        revisions.withLock { $0[id] ?? revisionBase }
    }

    /// The version of a context's JSON text: its FNV-1a 64-bit hash in hex. It only tells states
    /// apart (a page compares it with the one it has); it is no digest against tampering.
    package static func version(ofStoryText text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What a page that was given `version` of presentation `id`'s context and has just connected
    /// must be sent to be current: the event with the current state when it differs, `nil` when
    /// the page is current or when a push went out while the state was read (that push reached
    /// the page, whose viewer is on the presentation by then). For a viewer that arrives from
    /// another presentation between its slide being served and its socket opening: no push
    /// went to it meanwhile.
    package func catchUp(pageVersion version: String, presentation: Presentation) async -> HostEvent? {
        let before = currentRevision(presentationId: presentation.id)
        guard let current = try? await pageStory(for: presentation), current.version != version,
            currentRevision(presentationId: presentation.id) == before,
            let story = try? JSONValue.parse(current.text)
        else { return nil }
        return Self.event(story: story, text: current.text, presentationId: presentation.id, revision: before)
    }

    /// The objects the host fills for `presentation`.
    package func hostObjects(for presentation: Presentation) -> StoryHostObjects {
        StoryHostObjects(identity: identity, presentation: presentation)
    }

    /// The current context of presentation `id`.
    package func context(presentationId id: Int) async throws -> StoryContext {
        let presentation = try presentation(id)
        return try await store.context(
            presentationId: id, userId: identity.user.id, definition: try definition(for: presentation))
    }

    /// The context of presentation `id` as the page sees it in `window._story`.
    package func story(presentationId id: Int) async throws -> JSONValue {
        let presentation = try presentation(id)
        let context = try await store.context(
            presentationId: id, userId: identity.user.id, definition: try definition(for: presentation))
        return context.story(filled: hostObjects(for: presentation))
    }

    /// The value at `address` in presentation `id`'s context; `nil` when no key is there.
    package func value(at address: StoryAddress, presentationId id: Int) async throws -> JSONValue? {
        let presentation = try presentation(id)
        let context = try await context(presentationId: id)
        return context.value(at: address, filled: hostObjects(for: presentation))
    }

    /// Applies `changes` asked for by `writer` to presentation `id`'s context; when anything
    /// changed, sends the new context to every page of the presentation. Each refusal is logged
    /// with its reason.
    package func apply(_ changes: [StoryChange], by writer: StoryWriter, presentationId id: Int) async throws -> StoryContextOutcome {
        let presentation = try presentation(id)
        let outcome = try await store.apply(
            changes, by: writer, presentationId: id, userId: identity.user.id, definition: try definition(for: presentation))
        if outcome.changed { localChanges.withLock { $0 += 1 } }
        for (change, refusal) in zip(changes, outcome.refusals) {
            guard let refusal else { continue }
            logger.warning(
                "story context: change refused",
                metadata: [
                    "presentation": "\(id)", "from": "\(writer.rawValue)", "address": "\(change.address)",
                    "reason": "\(refusal)",
                ])
        }
        if outcome.changed { await publish(presentationId: id) }
        return outcome
    }

    /// The event that hands `story` (whose JSON text is `text`) to a page of presentation `id`,
    /// as the state of push `revision`. `restore` asks the page to take it even when it has that
    /// version already (it changed its own copy past the scheme).
    static func event(
        story: JSONValue, text: String, presentationId id: Int, revision: Int, restore: Bool = false
    ) -> HostEvent {
        var data: [String: JSONValue] = [
            "presentation": .int(id), "story": story, "revision": .int(revision),
            "version": .string(version(ofStoryText: text)),
        ]
        if restore { data["restore"] = .bool(true) }
        return HostEvent(name: changeEvent, data: .object(data))
    }

    /// The event that gives the page that made a refused change the state again, at the
    /// current revision.
    func restoreEvent(story: JSONValue, presentationId id: Int) -> HostEvent {
        Self.event(
            story: story, text: story.jsonString(), presentationId: id, revision: currentRevision(presentationId: id),
            restore: true)
    }

    /// Sends presentation `id`'s context as it is now to every viewer showing it (a viewer
    /// between two slides gets it when its next page connects), as the presentation's next
    /// revision. The revision is taken before the context is read, as a slide's is: of two pushes
    /// that overlap, the one with the higher revision read the store after the other took its
    /// revision, so the highest revision holds every change committed before it was taken, and a
    /// page, which keeps the highest revision it is given, ends with the newest state whatever
    /// order the pushes go out in. (A push that carried the state its change had in hand could
    /// take its revision after a later change's push, when it was the slower of the two: the
    /// page then kept the older state, seen on a loaded machine.)
    package func publish(presentationId id: Int) async {
        guard let viewers else { return }
        let revision = revisions.withLock { revisions in
            revisions[id, default: revisionBase] += 1
            return revisions[id]!
        }
        let story: JSONValue
        do {
            story = try await self.story(presentationId: id)
        } catch {
            logger.warning("story context: cannot read the context to send it", metadata: ["presentation": "\(id)", "error": "\(error)"])
            return
        }
        let text = story.jsonString()
        shownStories.withLock { $0[id] = text }
        let event = Self.event(story: story, text: text, presentationId: id, revision: revision)
        for viewer in await viewers.all where viewer.latestState.presentationId == id {
            await viewer.send(event)
        }
    }

    /// Sends each presentation with an open page its current context when that differs from what
    /// its pages were last given: how a change written by another process (`storybridge context
    /// set` on the same data folder) reaches open pages. Reads the database once per presentation
    /// shown. Returns `false`, sending nothing, when this process changed a context while it read
    /// (what it read may be older than what that change sent): the caller tries again.
    func publishChangesFromElsewhere() async -> Bool {
        guard let viewers else { return true }
        let changesBefore = localChanges.withLock { $0 }
        let shown = Set(await viewers.all.compactMap { $0.latestState.presentationId })
        var current: [(id: Int, story: JSONValue)] = []
        for id in shown.sorted() {
            do {
                current.append((id, try await story(presentationId: id)))
            } catch {
                logger.warning(
                    "story context: cannot read the context to show a change", metadata: ["presentation": "\(id)", "error": "\(error)"])
            }
        }
        guard localChanges.withLock({ $0 }) == changesBefore else { return false }
        for (id, story) in current where shownStories.withLock({ $0[id] }) != story.jsonString() {
            logger.info("story context: presentation \(id) changed by another process; sending it to its pages")
            await publish(presentationId: id)
        }
        return true
    }
}
