import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeSync

struct InstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install a presentation package (.zip) into the library.",
        discussion: """
            The package is checked before anything is written (entry names, types, sizes), unpacked \
            into a staging folder while sizes and compression ratios are watched, and only then put in \
            place. A refused or failed install leaves nothing behind. Reinstalling an id replaces the \
            old presentation only once the new one is complete, and bumps its revision; the replaced \
            revision stays on disk (--keep-revisions, default 1, as sync keeps them), so \
            storybridge diff ID --from OLD --to NEW and storybridge rollback ID work after a reinstall.
            """)

    @Argument(
        help:
            "The package: a .zip whose root holds index.html; or a Veeva or OCE delivery: a zip of key-message (sequence) zips, or a folder of them."
    )
    var package: String

    @Option(help: "Presentation id (presId); default: the next free id. An installed id is replaced.")
    var id: Int?

    @Option(help: "Name shown in the library (default: the file name without .zip).")
    var name: String?

    @Option(help: "Short description.")
    var shortDescription: String?

    @Option(help: "Long description.")
    var longDescription: String?

    @Option(help: "Sort order in the library (default: the id).")
    var order: Int?

    @Option(help: "How to read the zip: storyclm, veeva (key-message zips) or oce (sequence zips); default: detected.")
    var dialect: DialectName?

    @Option(
        help:
            "Earlier revisions of the presentation kept on disk when it is replaced, for storybridge diff and rollback (as sync's --keep-revisions; 0 removes the replaced one)."
    )
    var keepRevisions = 1

    @Option(help: "Refuse packages with more entries than this.")
    var maxEntries: Int = PackageLimits().maxEntries

    @Option(help: "Refuse packages that unpack to more than this many megabytes.")
    var maxSizeMb: Int64 = PackageLimits().maxUncompressedBytes / 1_000_000

    @Option(help: "Refuse entries compressed more than this ratio (zip bombs).")
    var maxRatio: Int = PackageLimits().maxCompressionRatio

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        guard keepRevisions >= 0 else { throw ValidationError("--keep-revisions must be 0 or more") }
    }

    func run() throws {
        let store = try library.openLibrary()
        var options = LibraryStore.InstallOptions(id: id, name: name)
        options.keptRevisions = keepRevisions
        options.shortDescription = shortDescription
        options.longDescription = longDescription
        options.order = order
        options.dialect = dialect
        options.limits = PackageLimits(
            maxEntries: maxEntries, maxUncompressedBytes: maxSizeMb * 1_000_000, maxCompressionRatio: maxRatio)
        let progress = ProgressBar(label: "installing")
        let started = Date()
        let entry: LibraryStore.Entry
        do {
            entry = try store.install(zip: URL(fileURLWithPath: package), options: options) { done, total in
                progress.update(done: done, total: total)
            }
        } catch {
            progress.finish()
            throw CommandFailure(ErrorWording.describe(error), status: CommandFailure.badInput)
        }
        progress.finish()
        let presentation = entry.presentation
        Terminal.say(
            String(
                format: "installed \"%@\" as presentation %d (revision %d): %d slides, %d media files, %d files, %.1f MB in %.2f s",
                presentation.name, presentation.id, presentation.revision, presentation.slides.count,
                presentation.mediaFiles.count, entry.fileCount, Double(entry.sizeBytes) / 1e6,
                Date().timeIntervalSince(started)))
    }
}

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the installed presentations.",
        discussion: """
            Presentations the content service hides (visibility: false, usually decks that other \
            presentations open) are left out, as on the launcher page; --all lists them too. A \
            presentation the service blocked (lockout) is listed and marked: serve refuses its slides. \
            A presentation the service no longer offers (withdrawn by sync) is listed and marked: \
            serve no longer offers it, and sync removes its files after the grace period.
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Also list the presentations the content service hides (visibility: false).")
    var all = false

    @OptionGroup var library: LibraryOptions

    func run() throws {
        let installed = try library.openLibrary().entries()
        let entries = all ? installed : installed.filter(\.presentation.flags.isListed)
        let hidden = installed.count - entries.count
        if json {
            Terminal.say(JSONValue.array(entries.map(Self.describe)).jsonString())
            return
        }
        if installed.isEmpty {
            Terminal.say("The library in \(library.directory.root.path) is empty. Install with: storybridge install deck.zip")
            return
        }
        if !entries.isEmpty { Terminal.say("  ID  REV  SLIDES  MEDIA       SIZE  NAME") }
        for entry in entries {
            let p = entry.presentation
            Terminal.say(
                String(
                    format: "%4d  %3d  %6d  %5d  %7.1f MB  %@%@", p.id, p.revision, p.slides.count, p.mediaFiles.count,
                    Double(entry.sizeBytes) / 1e6, p.name, Self.marks(p.flags)))
        }
        if hidden > 0 {
            Terminal.say("\(hidden) hidden presentation\(hidden == 1 ? "" : "s") not listed (storybridge list --all shows them).")
        }
    }

    /// What the content service's flags change, after the name: `  [hidden, blocked]`.
    static func marks(_ flags: PresentationFlags) -> String {
        let marks = [
            (!flags.isListed, "hidden"), (flags.isLockedOut, "blocked"), (flags.isWithdrawn, "withdrawn"),
            (flags.needsConfirmation, "asks on close"),
        ]
        .filter(\.0).map(\.1)
        return marks.isEmpty ? "" : "  [" + marks.joined(separator: ", ") + "]"
    }

    static func describe(_ entry: LibraryStore.Entry) -> JSONValue {
        let p = entry.presentation
        return [
            "presId": .int(p.id), "name": .string(p.name), "revision": .int(p.revision), "order": .int(p.order),
            "slides": .int(p.slides.count), "mediaFiles": .int(p.mediaFiles.count), "sizeBytes": .int(Int(entry.sizeBytes)),
            "files": .int(entry.fileCount), "source": .string(entry.source), "folder": .string(p.root.path),
            "visibility": .bool(p.flags.isListed), "lockout": .bool(p.flags.isLockedOut),
            "needConfirmation": .bool(p.flags.needsConfirmation), "withdrawn": .bool(p.flags.isWithdrawn),
        ]
    }
}

struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an installed presentation.",
        discussion: """
            Deletes the presentation's folder and its library entry. For a synced presentation, \
            --content-only deletes its files (and any partial download) but keeps what the sync \
            catalog knows about it, so storybridge sync --content ID brings it back.
            """)

    @Argument(help: "The presentation id.")
    var id: Int

    @Flag(help: "For a synced presentation: delete its files, keep its metadata (state: not downloaded).")
    var contentOnly = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let store = try library.openLibrary()
        let maintenance = SyncMaintenance(library: store)
        if contentOnly {
            do {
                try await maintenance.removeContent(id: id)
            } catch {
                throw SyncExitStatus.fail("remove", error)
            }
            Terminal.say("removed the content of presentation \(id); its metadata stays (storybridge sync --content \(id) brings it back)")
            return
        }
        do {
            try store.remove(id: id)
        } catch {
            throw CommandFailure(ErrorWording.describe(error))
        }
        // A synced presentation's catalog row now says its content is gone.
        if (try? await maintenance.catalog.presentation(id: id)) != nil {
            try? await maintenance.contentRemoved(id: id)
        }
        Terminal.say("removed presentation \(id)")
    }
}

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a package's or an installed presentation's slides, links, map, media and size.",
        discussion: "A .zip is checked and unpacked into a temporary folder, which is removed afterwards.")

    @Argument(help: "A .zip package, an installed id, or a presentation folder.")
    var target: String

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() throws {
        let source: PresentationSource
        do {
            source = try PresentationSource.resolve(target, library: library, id: 1)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(ErrorWording.describe(error), status: CommandFailure.badInput)
        }
        defer { source.cleanUp() }
        let presentation = source.presentations[0]
        let size = Self.folderSize(presentation.root)
        let description = Self.describe(presentation, sizeBytes: size.bytes, files: size.files)
        if json {
            Terminal.say(description.jsonString())
            return
        }
        Terminal.say("\(presentation.name) (presId \(presentation.id), revision \(presentation.revision))")
        Terminal.say(String(format: "  %d files, %.1f MB", size.files, Double(size.bytes) / 1e6))
        Terminal.say("  slides (\(presentation.slides.count)):")
        for slide in presentation.slides {
            let meta = slide.metadata
            Terminal.say(
                "    \(slide.name)  links: [\(meta.links.joined(separator: ", "))]  previous: \(meta.swipePrevious ?? "-")  next: \(meta.swipeNext ?? "-")"
                    + (slide.thumbnail.map { "  thumbnail: \($0)" } ?? "")
            )
        }
        Terminal.say("  map:")
        let map = presentation.map
        func show(_ slide: String, depth: Int) {
            Terminal.say(String(repeating: "  ", count: depth + 2) + slide)
            for child in map.children[slide] ?? [] { show(child, depth: depth + 1) }
        }
        if presentation.hasSlide(presentation.entrySlide) { show(presentation.entrySlide, depth: 0) }
        Terminal.say("  media files (\(presentation.mediaFiles.count)):")
        for file in presentation.mediaFiles { Terminal.say("    \(file.fileName)  \"\(file.title)\"") }
    }

    static func describe(_ presentation: Presentation, sizeBytes: Int64, files: Int) -> JSONValue {
        [
            "presId": .int(presentation.id), "name": .string(presentation.name), "revision": .int(presentation.revision),
            "sizeBytes": .int(Int(sizeBytes)), "files": .int(files),
            "slides": .array(
                presentation.slides.map {
                    [
                        "name": .string($0.name), "links": .array($0.metadata.links.map(JSONValue.string)),
                        "swipeNext": $0.metadata.swipeNext.map(JSONValue.string) ?? .null,
                        "swipePrevious": $0.metadata.swipePrevious.map(JSONValue.string) ?? .null,
                        "title": $0.metadata.title.map(JSONValue.string) ?? .null,
                        "thumbnail": $0.thumbnail.map(JSONValue.string) ?? .null,
                    ]
                }),
            "map": presentation.map.json,
            "mediaFiles": .array(presentation.mediaFiles.map { ["fileName": .string($0.fileName), "title": .string($0.title)] }),
        ]
    }

    static func folderSize(_ folder: URL) -> (bytes: Int64, files: Int) {
        var bytes: Int64 = 0
        var files = 0
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true {
                files += 1
                bytes += Int64(values?.fileSize ?? 0)
            }
        }
        return (bytes, files)
    }
}
