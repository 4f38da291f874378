import Foundation
import StoryBridge

extension SyncCommand {
    /// `sync --history [ID]`: every install, update, rollback and removal, oldest first.
    func showHistory(id: Int?) throws {
        let store = try library.openLibrary()
        let lines: [RevisionHistoryEntry]
        do {
            lines = try store.history(id: id)
        } catch {
            throw CommandFailure("cannot read the revision history", error, status: CommandFailure.storage)
        }
        if lines.isEmpty {
            Terminal.say(id.map { "no history for presentation \($0)" } ?? "no history yet")
            return
        }
        Terminal.say(Self.historyHeader)
        for line in lines { Terminal.say(Self.historyLine(line)) }
    }

    static let historyHeader = "time                   presentation  event     revision  package  how       bytes"

    /// One history line in columns: UTC time, presentation id, event, revisions, how, bytes.
    static func historyLine(_ entry: RevisionHistoryEntry) -> String {
        let time = ISO8601DateFormatter().string(from: entry.at)
        func column(_ text: String, _ width: Int) -> String {
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }
        return column(time, 23) + column(String(entry.presentationId), 14) + column(entry.event, 10)
            + column(entry.revision.map(String.init) ?? "-", 10) + column(entry.packageRevision.map(String.init) ?? "-", 9)
            + column(entry.how, 10) + String(entry.bytes)
    }
}
