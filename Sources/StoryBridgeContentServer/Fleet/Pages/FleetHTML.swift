import Foundation
import HTTPTypes
import Hummingbird
import StoryBridge

/// The fleet's server-side HTML: escaping and the headers every page carries
/// (docs/design/FLEET.md §5.5).
enum FleetHTML {
    /// `text` with `&`, `<`, `>`, `"` and `'` escaped, for element content and quoted attributes.
    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// A whole page: `title` (escaped here), the scripts of `scripts` (same-origin paths), and
    /// `body` (already escaped by its maker).
    static func page(title: String, scripts: [String] = [], body: String) -> String {
        let tags = scripts.map { "<script src=\"\(escape($0))\" defer></script>" }.joined()
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>\(tags)</head>
            <body>
            \(body)
            </body></html>
            """
    }

    /// A response carrying `html` with the pages' security headers, and `headers`.
    static func response(status: HTTPResponse.Status = .ok, _ html: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        headers[Self.referrerPolicy] = "same-origin"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// `Referrer-Policy`.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    /// A redirect (303) to `location`.
    static func redirect(to location: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }
}
