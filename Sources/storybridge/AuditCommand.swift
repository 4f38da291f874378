import ArgumentParser
import Foundation
import StoryBridge

/// `storybridge audit verify|export`: the tamper-evident record of views (docs/design/TRUST.md 4.4).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Verify the hash-chained record of views, and export its entries.",
        discussion: """
            Every analytics record the host writes (sessions started, their states, slide and media \
            views, custom events, deep links, CRM records content saved, OCE saved states) is also \
            appended, in the same transaction, to an append-only log in the same database whose \
            entries form a hash chain: each carries the hash of the one before, the time, the kind of \
            record, and the presentation revision and manifest hash of the deck on screen. The \
            analytics tables are a view of it: `audit verify` rebuilds them from the log alone and \
            names every difference.
            """,
        subcommands: [Verify.self, Export.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the log's chain and compare the analytics tables with the log's rebuild of them.",
            discussion: """
                Reads the log in position order: each entry's hash recomputed and its link to the one \
                before followed, naming an edited entry (its hash does not match its fields), deleted \
                entries (a gap in the positions), a reordered entry (it links to, or hashes as if it \
                followed, another position) and an inserted one (no later entry follows it, or its link \
                names no entry). Then replays every entry's changes into an empty database and compares \
                the tables row by row: an edited row (the columns that differ, both values, the entry \
                that last wrote it), a deleted row (the log wrote it, it is gone) and an inserted row \
                (no entry wrote it: also what a log cut short leaves). One line per finding. The \
                database is only read; nothing is repaired (--write-rebuilt writes the rebuilt tables \
                to a new file for you to compare or restore from). \
                Checkpoints: the host signs its log's head with its host key every N entries (serve's \
                --audit-checkpoint-every, 1000 by default), every few minutes and at a clean stop, and \
                uploads each as story.content.audit.checkpoint. Each of the host's own checkpoints is \
                checked (signature, and the log's hash at its position). With --checkpoints FILE (the \
                output of `storybridge collector checkpoints --json`, or any JSON array of checkpoint \
                documents held away from the host) each one held elsewhere is checked too: a \
                checkpoint mismatch names a log rewritten or cut after the checkpoint left the host, \
                even when the local checkpoints were re-signed with the host's own key; a checkpoint \
                gap names sequence numbers missing from those held (a checkpoint withheld). \
                Not detected locally: someone who can write the database and the host key and rewrites \
                the chain from a point on; only checkpoints held elsewhere stop that, for what they \
                attest. Gaps the start-up checks recorded (chain.gap: entries lost or changed after \
                their commit, e.g. a database restored from an older copy) are findings, and problems \
                of serve's health, until --acknowledge takes note of them (a chain.acknowledged entry). \
                Exit status: 0 clean; 65 findings; 66 no database or no log; 73 --write-rebuilt names \
                an existing file; 74 the database cannot be read; 64 --checkpoints cannot be read.
                """)

        @Flag(help: "Print {entries, segments, checkpoints, findings: [{kind, position?, table?, key?, detail}]}.")
        var json = false

        @Option(
            help: ArgumentHelp(
                "Check the log against checkpoints held elsewhere: a JSON array of checkpoint documents (collector checkpoints --json).",
                valueName: "FILE"))
        var checkpoints: String?

        @Flag(
            help: ArgumentHelp(
                "Take note of the chain gaps recorded so far (a chain.acknowledged entry): health and later runs no longer list them."))
        var acknowledge = false

        @Option(
            name: .customLong("write-rebuilt"),
            help: ArgumentHelp("Write the tables rebuilt from the log to a new SQLite file.", valueName: "PATH"))
        var rebuiltPath: String?

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() async throws {
            let external = try checkpoints.map(Self.readCheckpoints) ?? []
            let hostId = (try? HostKey.read(at: HostKey.file(in: library.directory).path))?.hostId
            let verifier = AuditVerifier(file: library.directory.database, externalCheckpoints: external, hostId: hostId)
            let report: AuditVerifier.Report
            do throws(AuditVerifyError) {
                report = try verifier.verify(rebuiltFile: rebuiltPath.map { URL(fileURLWithPath: $0) })
            } catch {
                throw CommandFailure(error.description, status: error.exitStatus)
            }
            var acknowledged: [Int] = []
            if acknowledge {
                do {
                    let database = try StoryBridgeDatabase(file: library.directory.database)
                    acknowledged = try await AuditGapRecord.acknowledge(in: database, at: Date())
                } catch {
                    throw CommandFailure("cannot record the acknowledgement", error, status: CommandFailure.storage)
                }
            }
            if json {
                print(report.json.jsonString())
            } else {
                for finding in report.findings { print(finding.line) }
                if !acknowledged.isEmpty {
                    print(
                        "acknowledged the chain gap\(acknowledged.count == 1 ? "" : "s") at position\(acknowledged.count == 1 ? "" : "s") \(acknowledged.map(String.init).joined(separator: ", "))"
                    )
                }
                let verdict = report.findings.isEmpty ? "ok" : "\(report.findings.count) finding\(report.findings.count == 1 ? "" : "s")"
                var summary = "\(report.entries) entries, \(report.segments) segment\(report.segments == 1 ? "" : "s")"
                let local = report.checkpoints.local
                if local > 0 { summary += ", \(local) checkpoint\(local == 1 ? "" : "s")" }
                if checkpoints != nil {
                    summary += ", \(report.checkpoints.matched) of \(report.checkpoints.external) uploaded checkpoints match"
                }
                print("\(summary): \(verdict)")
            }
            if !report.findings.isEmpty { throw ExitCode(65) }
        }

        /// The checkpoint documents of `path`: a JSON array of documents, or of the collector's
        /// records (`collector list --json`) whose `body` is one.
        static func readCheckpoints(_ path: String) throws -> [JSONValue] {
            let value: JSONValue
            do {
                value = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw CommandFailure("cannot read the checkpoints '\(path)': \(error)", status: 64)
            }
            guard let list = value.arrayValue else {
                throw CommandFailure("the checkpoints '\(path)' are not a JSON array of checkpoint documents", status: 64)
            }
            return list.map { $0["signed"] == nil ? ($0["body"] ?? $0) : $0 }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the log's entries, with their positions and hashes, as CSV or JSON.",
            discussion: """
                Columns: segment, position, at, kind, presentationId, presentationRevision, \
                manifestHash, signed, previousHash, hash, payload (hashes in hex, the payload as its \
                JSON text: the row changes the write made). --from and --to take an ISO 8601 time \
                (2026-11-27T10:00:00Z, compared with each entry's host time) or #POSITION; both \
                inclusive, the log's ends when omitted. CSV follows RFC 4180 (CRLF, a header line). \
                Exit status: 0; 64 a bad range; 66 no database or no log; 74 the database cannot be read.
                """)

        @Option(help: ArgumentHelp("The first entry: an ISO 8601 time or #POSITION.", valueName: "TIME|#POS"))
        var from: String?

        @Option(help: ArgumentHelp("The last entry: an ISO 8601 time or #POSITION.", valueName: "TIME|#POS"))
        var to: String?

        @Option(help: "csv or json.")
        var format: String = "csv"

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func validate() throws {
            guard AuditExport.Format(rawValue: format) != nil else { throw ValidationError("--format is csv or json, not '\(format)'") }
            let bounds = try [("--from", from), ("--to", to)].map { name, text -> AuditExport.Bound? in
                guard let text else { return nil }
                guard let bound = AuditExport.Bound(text) else {
                    throw ValidationError("\(name) '\(text)' is neither an ISO 8601 time nor #POSITION (1 or more)")
                }
                return bound
            }
            if case .position(let first)? = bounds[0], case .position(let last)? = bounds[1], first > last {
                throw ValidationError("--from '\(from ?? "")' comes after --to '\(to ?? "")'")
            }
            if case .time(let first)? = bounds[0], case .time(let last)? = bounds[1], first > last {
                throw ValidationError("--from '\(from ?? "")' comes after --to '\(to ?? "")'")
            }
        }

        func run() throws {
            let export = AuditExport(file: library.directory.database)
            let output = FileHandle.standardOutput
            do throws(AuditVerifyError) {
                try export.export(
                    from: from.flatMap(AuditExport.Bound.init), to: to.flatMap(AuditExport.Bound.init),
                    format: AuditExport.Format(rawValue: format) ?? .csv
                ) { output.write(Data($0.utf8)) }
            } catch {
                throw CommandFailure(error.description, status: error.exitStatus)
            }
        }
    }
}
