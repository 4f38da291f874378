/// Finds, in a slide, the URLs of the files it loads while it loads: `<script src>` and
/// `<link rel="stylesheet" href>`, read as an HTML tokenizer reads tags (comments, quoted
/// attribute values, and the raw text of `<script>`, `<style>`, `<textarea>`, `<title>` and the
/// like are read past, not searched). Only plain relative paths are taken (no scheme, no leading
/// `/`, no query, fragment or character reference); a slide with a `<base>` element gives none,
/// since its URLs do not resolve against the slide's folder.
///
/// The host names each such file by its version (``VersionedFiles``) so the browser keeps it from
/// one slide to the next without asking again, as it keeps a plain static server's files.
enum SlideAssetLinks {
    /// One URL: its bytes in the slide and its text.
    struct Link: Equatable {
        /// Where the attribute value is in the slide's bytes.
        let range: Range<Int>
        /// The value, as written (percent-encoded).
        let url: String
    }

    /// The links of `html`, in document order.
    static func links(in html: UnsafeRawBufferPointer) -> [Link] {
        var cursor = Cursor(bytes: html)
        return cursor.links()
    }

    /// Whether `url` is a plain relative path the host can name by version.
    static func isPlainRelativePath(_ url: String) -> Bool {
        guard let first = url.utf8.first, first != UInt8(ascii: "/"), first != UInt8(ascii: ".") else { return false }
        for byte in url.utf8 {
            switch byte {
            case UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: ":"), UInt8(ascii: "\\"): return false
            case 0...0x20, 0x7F: return false
            default: continue
            }
        }
        return true
    }

    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        /// Elements whose content is text up to their end tag, not markup.
        static let rawTextElements = ["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"]

        mutating func links() -> [Link] {
            var found: [Link] = []
            while let open = firstIndex(of: UInt8(ascii: "<"), from: index) {
                index = open + 1
                guard index < bytes.count else { break }
                let next = bytes[index]
                if matches("!--", at: index) {
                    index = commentEnd(from: index + 3)
                } else if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") || next == UInt8(ascii: "/") {
                    index = (firstIndex(of: UInt8(ascii: ">"), from: index) ?? bytes.count - 1) + 1
                } else if isASCIILetter(next) {
                    guard let tag = startTag(at: index) else { break }
                    index = tag.end
                    switch tag.name {
                    case "base": return []
                    case "script":
                        if let src = tag.attributes["src"], let link = link(src) { found.append(link) }
                    case "link":
                        let rel = tag.attributes["rel"].map { text(of: $0).lowercased() } ?? ""
                        if rel.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).contains("stylesheet"),
                            let href = tag.attributes["href"], let link = link(href)
                        {
                            found.append(link)
                        }
                    default: break
                    }
                    if Self.rawTextElements.contains(tag.name) { index = rawTextEnd(of: tag.name, from: index) }
                }
            }
            return found
        }

        func link(_ value: Range<Int>) -> Link? {
            let url = text(of: value)
            return SlideAssetLinks.isPlainRelativePath(url) ? Link(range: value, url: url) : nil
        }

        /// The start tag whose name begins at `start`: its lower-cased name, its attributes' value
        /// ranges (lower-cased names, first one wins) and the index after its `>`; `nil` when the
        /// file ends inside it.
        func startTag(at start: Int) -> (name: String, attributes: [String: Range<Int>], end: Int)? {
            var cursor = start
            while cursor < bytes.count, !isWhitespace(bytes[cursor]), bytes[cursor] != UInt8(ascii: "/"),
                bytes[cursor] != UInt8(ascii: ">")
            {
                cursor += 1
            }
            let name = text(of: start..<cursor).lowercased()
            var attributes: [String: Range<Int>] = [:]
            while true {
                while cursor < bytes.count, isWhitespace(bytes[cursor]) || bytes[cursor] == UInt8(ascii: "/") { cursor += 1 }
                guard cursor < bytes.count else { return nil }
                if bytes[cursor] == UInt8(ascii: ">") { return (name, attributes, cursor + 1) }
                let nameStart = cursor
                cursor += 1  // the first character may be `=`, which then belongs to the name
                while cursor < bytes.count, !endsAttributeName(bytes[cursor]) { cursor += 1 }
                let attribute = text(of: nameStart..<cursor).lowercased()
                while cursor < bytes.count, isWhitespace(bytes[cursor]) { cursor += 1 }
                var value = cursor..<cursor
                if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") {
                    cursor += 1
                    while cursor < bytes.count, isWhitespace(bytes[cursor]) { cursor += 1 }
                    guard cursor < bytes.count else { return nil }
                    let quote = bytes[cursor]
                    if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                        guard let close = firstIndex(of: quote, from: cursor + 1) else { return nil }
                        value = (cursor + 1)..<close
                        cursor = close + 1
                    } else {
                        let valueStart = cursor
                        while cursor < bytes.count, !isWhitespace(bytes[cursor]), bytes[cursor] != UInt8(ascii: ">") { cursor += 1 }
                        value = valueStart..<cursor
                    }
                }
                if attributes[attribute] == nil { attributes[attribute] = value }
            }
        }

        /// The index after `</name` ... `>` following `from`, or the end of the file.
        func rawTextEnd(of name: String, from start: Int) -> Int {
            var cursor = start
            while let open = firstIndex(of: UInt8(ascii: "<"), from: cursor) {
                let nameStart = open + 2
                if open + 1 < bytes.count, bytes[open + 1] == UInt8(ascii: "/"), nameStart + name.utf8.count <= bytes.count,
                    text(of: nameStart..<(nameStart + name.utf8.count)).lowercased() == name
                {
                    let after = nameStart + name.utf8.count
                    if after == bytes.count || isWhitespace(bytes[after]) || bytes[after] == UInt8(ascii: ">")
                        || bytes[after] == UInt8(ascii: "/")
                    {
                        return (firstIndex(of: UInt8(ascii: ">"), from: after) ?? bytes.count - 1) + 1
                    }
                }
                cursor = open + 1
            }
            return bytes.count
        }

        /// The index after the comment whose text starts at `start` (`-->`, `--!>`, or `<!-->`).
        func commentEnd(from start: Int) -> Int {
            if start < bytes.count, bytes[start] == UInt8(ascii: ">") { return start + 1 }
            if matches("->", at: start) { return start + 2 }
            var cursor = start
            while let dash = firstIndex(of: UInt8(ascii: "-"), from: cursor) {
                if matches("-->", at: dash) { return dash + 3 }
                if matches("--!>", at: dash) { return dash + 4 }
                cursor = dash + 1
            }
            return bytes.count
        }

        func firstIndex(of byte: UInt8, from start: Int) -> Int? {
            var cursor = start
            while cursor < bytes.count {
                if bytes[cursor] == byte { return cursor }
                cursor += 1
            }
            return nil
        }

        func matches(_ literal: String, at start: Int) -> Bool {
            let literal = Array(literal.utf8)
            guard start + literal.count <= bytes.count else { return false }
            for offset in 0..<literal.count where bytes[start + offset] != literal[offset] { return false }
            return true
        }

        func text(of range: Range<Int>) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
        }

        func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

        func endsAttributeName(_ byte: UInt8) -> Bool {
            isWhitespace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "=")
        }
    }
}
