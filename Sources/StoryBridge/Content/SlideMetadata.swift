/// The navigation facts a slide declares in its `<meta>` tags (PROTOCOL.md §4):
/// `clm-swipe-next`, `clm-swipe-previous` and `clm` (linked slides, previous first).
package struct SlideMetadata: Sendable, Hashable, Codable {
    package var swipeNext: String?
    package var swipePrevious: String?
    package var links: [String]
    /// The text of the page's `<title>`, if any.
    package var title: String?

    package init(swipeNext: String? = nil, swipePrevious: String? = nil, links: [String] = [], title: String? = nil) {
        self.swipeNext = swipeNext
        self.swipePrevious = swipePrevious
        self.links = links
        self.title = title
    }

    /// Reads the meta tags and title of an HTML page. Tolerant: unknown markup is skipped, names
    /// and attributes are case-insensitive, quotes may be single, double or absent.
    package init(html: String) {
        self.init()
        var scanner = TagScanner(html)
        while let tag = scanner.nextTag() {
            switch tag.name {
            case "meta":
                guard let name = tag.attributes["name"]?.lowercased(), let content = tag.attributes["content"] else {
                    continue
                }
                let value = content.trimmingSpaces()
                switch name {
                case "clm-swipe-next": swipeNext = value.isEmpty ? nil : value
                case "clm-swipe-previous": swipePrevious = value.isEmpty ? nil : value
                case "clm":
                    links = value.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
                default: break
                }
            case "title":
                if title == nil {
                    let text = scanner.text(until: "</title").trimmingSpaces()
                    title = text.isEmpty ? nil : text
                }
            case "/head", "body":
                return
            default:
                break
            }
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}

/// A minimal forward scanner over HTML start tags, enough to read `<meta>` and `<title>`.
struct TagScanner {
    struct Tag {
        var name: String
        var attributes: [String: String]
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ html: String) {
        bytes = Array(html.utf8)
    }

    /// The next tag, skipping comments; `nil` at the end.
    mutating func nextTag() -> Tag? {
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            if matches("<!--") {
                index = find("-->").map { $0 + 3 } ?? bytes.count
                continue
            }
            index += 1
            let nameStart = index
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">"),
                !(bytes[index] == UInt8(ascii: "/") && index > nameStart)
            {
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            var attributes: [String: String] = [:]
            while index < bytes.count, bytes[index] != UInt8(ascii: ">") {
                if isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "/") { index += 1; continue }
                let keyStart = index
                while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: "="),
                    bytes[index] != UInt8(ascii: ">")
                {
                    index += 1
                }
                let key = String(decoding: bytes[keyStart..<index], as: UTF8.self).lowercased()
                while index < bytes.count, isSpace(bytes[index]) { index += 1 }
                var value = ""
                if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                    index += 1
                    while index < bytes.count, isSpace(bytes[index]) { index += 1 }
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                        let quote = bytes[index]
                        index += 1
                        let valueStart = index
                        while index < bytes.count, bytes[index] != quote { index += 1 }
                        value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                        index += 1
                    } else {
                        let valueStart = index
                        while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") {
                            index += 1
                        }
                        value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                    }
                }
                if !key.isEmpty, attributes[key] == nil { attributes[key] = value }
            }
            index += 1
            if !name.isEmpty { return Tag(name: name, attributes: attributes) }
        }
        return nil
    }

    /// The raw text from here up to `marker` (case-insensitive), leaving the scanner after the text.
    mutating func text(until marker: String) -> String {
        let start = index
        let end = find(marker) ?? bytes.count
        index = end
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private func matches(_ literal: String) -> Bool {
        let needle = Array(literal.utf8)
        guard index + needle.count <= bytes.count else { return false }
        return Array(bytes[index..<index + needle.count]) == needle
    }

    private func find(_ literal: String) -> Int? {
        let needle = Array(literal.lowercased().utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var position = index
        while position + needle.count <= bytes.count {
            var equal = true
            for offset in 0..<needle.count where lower(bytes[position + offset]) != needle[offset] {
                equal = false
                break
            }
            if equal { return position }
            position += 1
        }
        return nil
    }

    private func lower(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }
}
