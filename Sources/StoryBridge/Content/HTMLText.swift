/// Escaping text for the HTML pages storybridge writes (the tools' reports, the fleet's pages).
package enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` escaped, for element content and quoted attributes.
    package static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
