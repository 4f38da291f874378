import Foundation

/// Finds where the host's client script goes in a slide by reading the start of the document as
/// an HTML parser does: the place just before the first thing the parser would put into the
/// document that is not the doctype, a comment, whitespace, the `<html>` or `<head>` start tag or a
/// `<meta>` that declares the character set.
///
/// A `<script>` inserted there is parsed as a script element of the document's head (made by the
/// parser when the slide has none) and runs before anything the slide itself contains. Everything
/// skipped on the way executes nothing, so no content script can come first; a `<script>` inside a
/// comment, a bogus comment (`<![CDATA[`, `<![if !IE]>`, `<?xml …?>`) or an attribute value is
/// read past, not taken for a script; `<noscript>` and `<template>` are content, so the client goes
/// before them, never inside. A UTF-8 byte-order mark stays first, and so does a `<meta charset>`
/// that leads the head. The doctype is never moved behind the client, which would turn the page to
/// quirks mode.
///
/// One pass over the bytes of the prologue only (typically a few hundred bytes): the rest of the
/// slide is not read.
enum SlidePrologueScanner {
    /// The byte offset at which to insert the client into `html`.
    static func clientOffset(in html: UnsafeRawBufferPointer) -> Result<Int, ClientPlacementProblem> {
        var scanner = Cursor(html)
        return scanner.clientOffset()
    }

    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func clientOffset() -> Result<Int, ClientPlacementProblem> {
            if startsWith([0xEF, 0xBB, 0xBF]) {
                index = 3
            } else if startsWith([0xFE, 0xFF]) {
                return .failure(.utf16(bigEndian: true))
            } else if startsWith([0xFF, 0xFE]) {
                return .failure(.utf16(bigEndian: false))
            }
            while true {
                skipWhitespace()
                // Text that is not whitespace is content; so is the end of the file.
                guard index < bytes.count, bytes[index] == ascii("<") else { return .success(index) }
                let start = index
                guard let skipped = skipPrologueMarkup() else { return .success(start) }
                index = skipped
            }
        }

        /// The offset just after the markup at `index` (which is `<`) when the parser consumes it
        /// without adding content: a comment, doctype, bogus comment, `<html>`, `<head>` or a charset
        /// `<meta>`. `nil` when it is content, or unterminated (the parser drops an unterminated tag
        /// and an unterminated comment swallows the rest of the file: the client goes before it).
        func skipPrologueMarkup() -> Int? {
            let next = index + 1
            guard next < bytes.count else { return nil }
            switch bytes[next] {
            case ascii("!"):
                if matches("<!--", at: index) { return commentEnd(from: index + 4) }
                // A doctype, `<![CDATA[` outside SVG/MathML, `<![if !IE]>`: up to the first `>`.
                return firstIndex(of: ascii(">"), from: next + 1).map { $0 + 1 }
            case ascii("?"):
                // `<?xml …?>` is a bogus comment in HTML, up to the first `>`.
                return firstIndex(of: ascii(">"), from: next + 1).map { $0 + 1 }
            case let byte where isASCIILetter(byte):
                return startTagSkipped(nameFrom: next)
            default:
                // An end tag, or a `<` that is text: content either way.
                return nil
            }
        }

        /// The end of a start tag whose name begins at `nameStart`, when the tag is `<html>`,
        /// `<head>` or a `<meta>` declaring the charset; `nil` for any other tag.
        func startTagSkipped(nameFrom nameStart: Int) -> Int? {
            var cursor = nameStart
            while cursor < bytes.count, !isWhitespace(bytes[cursor]), bytes[cursor] != ascii("/"), bytes[cursor] != ascii(">") {
                cursor += 1
            }
            let name = nameStart..<cursor
            let isMeta = equalsIgnoringCase(name, "meta")
            guard isMeta || equalsIgnoringCase(name, "html") || equalsIgnoringCase(name, "head") else { return nil }
            guard let tag = attributes(from: cursor, noting: isMeta) else { return nil }
            return !isMeta || tag.declaresCharset ? tag.end : nil
        }

        /// Reads a tag's attributes from `start` to its closing `>`, as the tokenizer does (quoted
        /// values may hold `>`); `nil` when the file ends inside the tag.
        func attributes(from start: Int, noting charset: Bool) -> (end: Int, declaresCharset: Bool)? {
            var cursor = start
            var declaresCharset = false
            while true {
                while cursor < bytes.count, isWhitespace(bytes[cursor]) || bytes[cursor] == ascii("/") { cursor += 1 }
                guard cursor < bytes.count else { return nil }
                if bytes[cursor] == ascii(">") { return (cursor + 1, declaresCharset) }
                let nameStart = cursor
                cursor += 1  // the first character may be `=`, which then belongs to the name
                while cursor < bytes.count, !endsAttributeName(bytes[cursor]) { cursor += 1 }
                let name = nameStart..<cursor
                while cursor < bytes.count, isWhitespace(bytes[cursor]) { cursor += 1 }
                var value = cursor..<cursor
                if cursor < bytes.count, bytes[cursor] == ascii("=") {
                    cursor += 1
                    while cursor < bytes.count, isWhitespace(bytes[cursor]) { cursor += 1 }
                    guard cursor < bytes.count else { return nil }
                    let quote = bytes[cursor]
                    if quote == ascii("\"") || quote == ascii("'") {
                        guard let close = firstIndex(of: quote, from: cursor + 1) else { return nil }
                        value = (cursor + 1)..<close
                        cursor = close + 1
                    } else {
                        let valueStart = cursor
                        while cursor < bytes.count, !isWhitespace(bytes[cursor]), bytes[cursor] != ascii(">") { cursor += 1 }
                        value = valueStart..<cursor
                    }
                }
                if charset {
                    if equalsIgnoringCase(name, "charset")
                        || (equalsIgnoringCase(name, "http-equiv") && equalsIgnoringCase(value, "content-type"))
                    {
                        declaresCharset = true
                    }
                }
            }
        }

        /// The end of a comment whose text starts at `start`: `<!-->` and `<!--->` end at once,
        /// others at `-->` or `--!>`; `nil` when the file ends first.
        func commentEnd(from start: Int) -> Int? {
            if start < bytes.count, bytes[start] == ascii(">") { return start + 1 }
            if matches("->", at: start) { return start + 2 }
            var cursor = start
            while let dash = firstIndex(of: ascii("-"), from: cursor) {
                if matches("-->", at: dash) { return dash + 3 }
                if matches("--!>", at: dash) { return dash + 4 }
                cursor = dash + 1
            }
            return nil
        }

        mutating func skipWhitespace() {
            while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
        }

        func startsWith(_ prefix: [UInt8]) -> Bool {
            bytes.count >= prefix.count && zip(bytes, prefix).allSatisfy { $0 == $1 }
        }

        /// The first `byte` at or after `start` (`memchr`: a long comment is crossed at memory speed).
        func firstIndex(of byte: UInt8, from start: Int) -> Int? {
            guard start < bytes.count, let base = bytes.baseAddress else { return nil }
            guard let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }

        /// Whether the ASCII `text` is at `offset`, exactly.
        func matches(_ text: StaticString, at offset: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard offset >= 0, offset + count <= bytes.count else { return false }
            let pointer = text.utf8Start
            for position in 0..<count where bytes[offset + position] != pointer[position] { return false }
            return true
        }

        /// Whether the bytes in `range` spell the lower-case ASCII `word`, in any case.
        func equalsIgnoringCase(_ range: Range<Int>, _ word: StaticString) -> Bool {
            guard range.count == word.utf8CodeUnitCount else { return false }
            let pointer = word.utf8Start
            for position in 0..<range.count {
                var byte = bytes[range.lowerBound + position]
                if byte >= ascii("A") && byte <= ascii("Z") { byte += 32 }
                if byte != pointer[position] { return false }
            }
            return true
        }
    }
}

/// Why the client cannot be placed ahead of a slide's scripts.
enum ClientPlacementProblem: Error, Equatable, Sendable {
    /// The slide is UTF-16 (it starts with that byte-order mark, which browsers obey over the
    /// server's charset): inserting the client's ASCII bytes would only corrupt it.
    case utf16(bigEndian: Bool)

    /// A sentence for the log and the inspector: what is wrong, what follows, what to do.
    var message: String {
        switch self {
        case .utf16(let bigEndian):
            "the slide is encoded in UTF-16 (byte-order mark \(bigEndian ? "FE FF" : "FF FE")), so the client script cannot be"
                + " placed in it: it is served unchanged and will not connect to the host (no bridge calls, no session)."
                + " Save the file as UTF-8."
        }
    }
}

/// HTML's whitespace: space, tab, line feed, form feed, carriage return.
private func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
}

/// Whitespace, `/`, `>` and `=` end an attribute's name.
private func endsAttributeName(_ byte: UInt8) -> Bool {
    isWhitespace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "=")
}

private func isASCIILetter(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
}

private func ascii(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }
