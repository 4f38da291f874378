import Foundation

/// Puts the host's client script into a slide, ahead of every content script.
enum ClientScriptInjector {
    /// The `<script>` tag that loads the client, carrying what it needs to connect. Its URL names
    /// the client's version, so the browser keeps it from one slide to the next instead of asking
    /// the host again before every slide can run a script.
    /// `pageAnswers` names the commands the page may answer itself while its socket connects
    /// (``PageAnswers``).
    static func tag(presentationId: Int, slide: String, token: String, pageAnswers: [String] = []) -> String {
        "<script src=\"\(EmbeddedScripts.versionedPath("client.js"))\" data-storybridge=\"1\" data-presentation=\"\(presentationId)\""
            + " data-slide=\"\(escape(slide))\" data-token=\"\(escape(token))\""
            + (pageAnswers.isEmpty ? "" : " data-page-answers=\"\(escape(pageAnswers.joined(separator: " ")))\"") + "></script>"
    }

    /// `html` with `tag` inserted right after the opening `<head>` tag, or before the first
    /// `<script`, whichever comes first; after the doctype/`<html>` tag when there is no head; at
    /// the very start otherwise.
    static func inject(_ tag: String, into html: String) -> String {
        let bytes = Array(html.utf8)
        let firstScript = find("<script", in: bytes, from: 0)
        var headEnd: Int?
        if let head = findTag("<head", in: bytes), let close = find(">", in: bytes, from: head) {
            headEnd = close + 1
        }
        var position: Int
        switch (headEnd, firstScript) {
        case let (head?, script?): position = min(head, script)
        case let (head?, nil): position = head
        case let (nil, script?): position = script
        case (nil, nil):
            position = 0
            if let htmlTag = findTag("<html", in: bytes), let close = find(">", in: bytes, from: htmlTag) {
                position = close + 1
            } else if let doctype = find("<!doctype", in: bytes, from: 0), let close = find(">", in: bytes, from: doctype) {
                position = close + 1
            }
        }
        if let script = firstScript, position > script { position = script }
        var result = bytes[..<position]
        result.append(contentsOf: Array(tag.utf8))
        result.append(contentsOf: bytes[position...])
        return String(decoding: result, as: UTF8.self)
    }

    /// Finds `<name` followed by `>` or whitespace (so `<header` is not taken for `<head`).
    private static func findTag(_ open: String, in bytes: [UInt8], from start: Int = 0) -> Int? {
        var from = start
        while let index = find(open, in: bytes, from: from) {
            let after = index + open.utf8.count
            if after >= bytes.count { return nil }
            let next = bytes[after]
            if next == UInt8(ascii: ">") || next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D {
                return index
            }
            from = after
        }
        return nil
    }

    /// Case-insensitive search of an ASCII needle.
    private static func find(_ needle: String, in bytes: [UInt8], from start: Int) -> Int? {
        let pattern = Array(needle.lowercased().utf8)
        guard start <= bytes.count, bytes.count - start >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= bytes.count {
            var matched = true
            for offset in 0..<pattern.count {
                var byte = bytes[index + offset]
                if byte >= 65 && byte <= 90 { byte += 32 }
                if byte != pattern[offset] { matched = false; break }
            }
            if matched { return index }
            index += 1
        }
        return nil
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
