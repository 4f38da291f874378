import Foundation

/// The presentation's key-message order, from the first of these the delivery has:
///
/// 1. a Vault multichannel loader CSV in its root (the first `*.csv` by name): its rows in
///    `display_order__v` order (rows without it keep their place), each naming its key message
///    by `filename` (the zip's name), else `name__v`; rows of another `type__v` than a slide
///    (the presentation's own row), and the shared resource's row, are skipped;
/// 2. the `keyMessages` list of `veeva.json` in its root;
/// 3. name order.
///
/// Key messages the source does not name follow, in name order; a name the source gives that the
/// delivery does not hold is refused, naming the row or the entry.
enum VeevaKeyMessageOrder {
    /// The order of `keyMessages` (folder names) in the delivery at `root`.
    package static func read(root: URL, entries: [String], keyMessages: [String]) throws(PresentationFolderError) -> [String] {
        let listed: [String]
        if let csv = entries.filter({ $0.lowercased().hasSuffix(".csv") }).sorted().first {
            listed = try fromLoaderCSV(root.appendingPathComponent(csv), keyMessages: keyMessages)
        } else if entries.contains(VeevaDelivery.settingsFile) {
            listed = try VeevaSettings.read(root.appendingPathComponent(VeevaDelivery.settingsFile)).keyMessages ?? []
            for name in listed where !keyMessages.contains(name) {
                throw .unreadable(
                    path: root.appendingPathComponent(VeevaDelivery.settingsFile).path,
                    reason:
                        "keyMessages names '\(name)', which the delivery does not hold (it holds \(keyMessages.joined(separator: ", ")))")
            }
        } else {
            listed = []
        }
        var seen = Set<String>()
        let ordered = listed.filter { seen.insert($0).inserted }
        return ordered + keyMessages.sorted().filter { !seen.contains($0) }
    }

    /// The columns of a loader CSV this reads (header names compared without case, with any
    /// `slide.` / `pres.` prefix removed).
    package enum Column {
        static let kind = "type__v"
        static let fileName = ["filename", "file", "filename__v"]
        static let name = "name__v"
        static let order = "display_order__v"
        static let shared = "crm_shared_resource__v"
    }

    static func fromLoaderCSV(_ file: URL, keyMessages: [String]) throws(PresentationFolderError) -> [String] {
        let text: String
        do {
            text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        } catch {
            throw .unreadable(path: file.path, reason: SystemProblem(error).description)
        }
        let rows = CSVText.rows(text)
        guard let header = rows.first else { return [] }
        let names = header.map { column -> String in
            var name = column.trimmingSpaces().lowercased()
            for prefix in ["slide.", "pres."] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
            return name
        }
        func index(_ column: String) -> Int? { names.firstIndex(of: column) }
        let fileColumn = Column.fileName.lazy.compactMap(index).first
        let nameColumn = index(Column.name)
        guard fileColumn != nil || nameColumn != nil else {
            throw .unreadable(
                path: file.path, reason: "its header has neither a filename nor a name__v column: not a multichannel loader CSV")
        }
        var found: [(order: Double, row: Int, name: String)] = []
        for (number, row) in rows.enumerated().dropFirst() {
            func value(_ column: Int?) -> String {
                guard let column, column < row.count else { return "" }
                return row[column].trimmingSpaces()
            }
            if row.allSatisfy({ $0.trimmingSpaces().isEmpty }) { continue }
            let type = value(index(Column.kind)).lowercased()
            if !type.isEmpty, !type.contains("slide") { continue }
            if ["yes", "true", "1"].contains(value(index(Column.shared)).lowercased()) { continue }
            var name = value(fileColumn)
            if name.isEmpty { name = value(nameColumn) }
            if name.lowercased().hasSuffix(".zip") { name = String(name.dropLast(4)) }
            guard !name.isEmpty else { continue }
            guard keyMessages.contains(name) else {
                throw .unreadable(
                    path: file.path, reason: "row \(number + 1) names key message '\(name)', which the delivery does not hold")
            }
            let order = Double(value(index(Column.order))) ?? Double(found.count)
            found.append((order, number, name))
        }
        return found.sorted { ($0.order, $0.row) < ($1.order, $1.row) }.map(\.name)
    }
}

/// A minimal CSV reader (RFC 4180: commas, double-quoted fields with doubled quotes, CRLF or LF).
enum CSVText {
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"": quoted = true
            case ",": row.append(field); field = ""
            case "\n", "\r\n", "\r":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            default: field.append(character)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
