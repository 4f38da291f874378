/// Finds, in a style sheet, the URLs of the files it names: `url(…)`, quoted or not, and
/// `@import "…"`, read as a CSS tokenizer reads them (comments and other strings are read past, and
/// `url(` counts only where an identifier starts). Only relative paths are taken: no scheme, no
/// leading `/`, no query, fragment or escape (`./` and `../` are fine: they resolve against the
/// style sheet's folder).
///
/// The host names those files by version when it serves a style sheet by version
/// (``VersionedFiles/styleSheetVersion(of:root:)``): a font or image the style sheet names is then
/// kept by the browser from slide to slide, as a plain static server's is, and a changed one gets a
/// new URL.
enum StyleSheetReferences {
    /// One URL: its bytes in the style sheet (inside the quotes or parentheses) and its text.
    struct Reference: Equatable {
        let range: Range<Int>
        let url: String
    }

    /// The references of `css`, in order.
    static func references(in css: [UInt8]) -> [Reference] {
        var found: [Reference] = []
        var index = 0
        var importPending = false
        while index < css.count {
            let byte = css[index]
            if byte == UInt8(ascii: "/"), index + 1 < css.count, css[index + 1] == UInt8(ascii: "*") {
                index = commentEnd(css, from: index + 2)
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                let (content, end) = string(css, quoteAt: index)
                if importPending, let content { take(content, in: css, into: &found) }
                importPending = false
                index = end
            } else if byte == UInt8(ascii: "@"), matches(css, at: index + 1, "import") {
                importPending = true
                index += 7
            } else if byte == UInt8(ascii: "u") || byte == UInt8(ascii: "U"), matches(css, at: index, "url("),
                index == 0 || !isNameByte(css[index - 1])
            {
                let (content, end) = url(css, openAt: index + 4)
                if let content { take(content, in: css, into: &found) }
                importPending = false
                index = end
            } else {
                if !isWhitespace(byte) { importPending = false }
                index += 1
            }
        }
        return found
    }

    /// Whether `url` is a relative path the host can name by version: a slide's plain relative
    /// path (``SlideAssetLinks/isPlainRelativePath(_:)``) after any leading `./` and `../`, with
    /// no `%` (the host resolves it as written).
    static func isRelativeReference(_ url: String) -> Bool {
        var rest = Substring(url)
        while rest.hasPrefix("./") || rest.hasPrefix("../") { rest = rest.dropFirst(rest.hasPrefix("./") ? 2 : 3) }
        return !url.contains("%") && SlideAssetLinks.isPlainRelativePath(String(rest))
    }

    private static func take(_ range: Range<Int>, in css: [UInt8], into found: inout [Reference]) {
        let url = String(decoding: css[range], as: UTF8.self)
        guard isRelativeReference(url) else { return }
        found.append(Reference(range: range, url: url))
    }

    /// The content of the string whose quote is at `quote` (nil when it holds an escape or a
    /// newline, which ends it unclosed), and the index after it.
    private static func string(_ css: [UInt8], quoteAt quote: Int) -> (content: Range<Int>?, end: Int) {
        let mark = css[quote]
        var index = quote + 1
        var plain = true
        while index < css.count {
            switch css[index] {
            case mark: return (plain ? (quote + 1)..<index : nil, index + 1)
            case UInt8(ascii: "\\"):
                plain = false
                index += 2
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C: return (nil, index)
            default: index += 1
            }
        }
        return (nil, css.count)
    }

    /// The URL of the `url(` whose parenthesis closes before `open` (quoted or not; nil when
    /// malformed), and the index after its `)`.
    private static func url(_ css: [UInt8], openAt open: Int) -> (content: Range<Int>?, end: Int) {
        var index = open
        while index < css.count, isWhitespace(css[index]) { index += 1 }
        guard index < css.count else { return (nil, index) }
        let content: Range<Int>?
        if css[index] == UInt8(ascii: "\"") || css[index] == UInt8(ascii: "'") {
            let quoted = string(css, quoteAt: index)
            content = quoted.content
            index = quoted.end
            while index < css.count, isWhitespace(css[index]) { index += 1 }
        } else {
            let start = index
            while index < css.count, css[index] != UInt8(ascii: ")"), !isWhitespace(css[index]),
                css[index] != UInt8(ascii: "\""), css[index] != UInt8(ascii: "'"), css[index] != UInt8(ascii: "(")
            {
                index += 1
            }
            content = index > start ? start..<index : nil
            while index < css.count, isWhitespace(css[index]) { index += 1 }
        }
        guard index < css.count, css[index] == UInt8(ascii: ")") else { return (nil, index) }
        return (content, index + 1)
    }

    private static func commentEnd(_ css: [UInt8], from start: Int) -> Int {
        var index = start
        while index + 1 < css.count {
            if css[index] == UInt8(ascii: "*"), css[index + 1] == UInt8(ascii: "/") { return index + 2 }
            index += 1
        }
        return css.count
    }

    /// Whether `word` (lower-case ASCII) is at `index`, in any case.
    private static func matches(_ css: [UInt8], at index: Int, _ word: String) -> Bool {
        let letters = Array(word.utf8)
        guard index + letters.count <= css.count else { return false }
        for (offset, letter) in letters.enumerated() where css[index + offset] | 0x20 != letter | 0x20 {
            return false
        }
        return true
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            || byte >= 0x80
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }
}
