import Foundation

/// `oce.json` in an OCE delivery's root (all members optional):
/// `{"order": ["Intro", "Efficacy"], "sequences": {"SEQ-0001": "Intro.zip"}}`: the order of the
/// sequences (for `goNextSequence` / `goPreviousSequence`; name order without it), and the
/// sequence ids content passes to `CLMPlayer.gotoSlide` mapped to the sequence zips (or folders)
/// they name. Without a mapping, a sequence id is its zip's base name.
struct OceSettings: Sendable, Hashable {
    /// The file's name in the delivery's root.
    static let fileName = "oce.json"

    /// Sequence folders (zip names without `.zip`), first to last.
    var order: [String]?
    /// Sequence id → sequence folder (zip name without `.zip`).
    var sequences: [String: String] = [:]

    init() {}

    /// Reads `file`, naming the member at fault.
    static func read(_ file: URL) throws(PresentationFolderError) -> OceSettings {
        let value: JSONValue
        do {
            value = try JSONValue.parse(try Data(contentsOf: file))
        } catch {
            throw .unreadable(path: file.path, reason: "not a JSON object: \(error)")
        }
        guard let members = value.objectValue else { throw .unreadable(path: file.path, reason: "not a JSON object") }
        for key in members.keys where !["order", "sequences"].contains(key) {
            throw .unreadable(path: file.path, reason: "unknown member '\(key)' (oce.json takes 'order' and 'sequences')")
        }
        var settings = OceSettings()
        if let list = members["order"] {
            guard let items = list.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw .unreadable(path: file.path, reason: "order must be an array of sequence names")
            }
            settings.order = items.compactMap(\.stringValue).map(Self.folderName)
        }
        if let map = members["sequences"] {
            guard let object = map.objectValue else {
                throw .unreadable(path: file.path, reason: "sequences must map sequence ids to sequence zips")
            }
            for (id, target) in object {
                guard let name = target.stringValue else {
                    throw .unreadable(path: file.path, reason: "sequences.\(id) must be a sequence zip's name")
                }
                settings.sequences[id] = folderName(name)
            }
        }
        return settings
    }

    /// `Intro.zip` → `Intro`.
    static func folderName(_ name: String) -> String {
        let trimmed = name.trimmingSpaces()
        return trimmed.lowercased().hasSuffix(".zip") ? String(trimmed.dropLast(4)) : trimmed
    }
}
