import ArgumentParser
import Foundation
import StoryBridge

/// `storybridge audit verify|export`: the tamper-evident record of views (docs/design/TRUST.md 4.4).
struct AuditCommand: ParsableCommand {
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

    struct Verify: ParsableCommand {
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
                Not detected locally: someone who can write the database and rewrites the chain from \
                a point on (the chain has no secret); signed checkpoints held elsewhere (not built \
                yet) are what stop that. \
                Exit status: 0 clean; 65 findings; 66 no database or no log; 73 --write-rebuilt names \
                an existing file; 74 the database cannot be read.
                """)

        @Flag(help: "Print {entries, segments, checkpoints, findings: [{kind, position?, table?, key?, detail}]}.")
        var json = false

        @Option(
            name: .customLong("write-rebuilt"),
            help: ArgumentHelp("Write the tables rebuilt from the log to a new SQLite file.", valueName: "PATH"))
        var rebuiltPath: String?

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let verifier = AuditVerifier(file: library.directory.database)
            let report: AuditVerifier.Report
            do throws(AuditVerifyError) {
                report = try verifier.verify(rebuiltFile: rebuiltPath.map { URL(fileURLWithPath: $0) })
            } catch {
                throw CommandFailure(error.description, status: error.exitStatus)
            }
            if json {
                print(report.json.jsonString())
            } else {
                for finding in report.findings { print(finding.line) }
                let verdict = report.findings.isEmpty ? "ok" : "\(report.findings.count) finding\(report.findings.count == 1 ? "" : "s")"
                print("\(report.entries) entries, \(report.segments) segment\(report.segments == 1 ? "" : "s"): \(verdict)")
            }
            if !report.findings.isEmpty { throw ExitCode(65) }
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
