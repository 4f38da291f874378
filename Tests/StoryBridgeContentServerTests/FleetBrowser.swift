import Foundation
import StoryBridgeTesting

/// A browser for the fleet's pages in tests: raw HTTP/1.1 on loopback (redirects are not
/// followed, so a 303 is seen as one), with the cookies the server set.
struct FleetBrowser {
    /// The server's port.
    let port: Int
    /// The cookies held, by name.
    var cookies: [String: String] = [:]

    /// Sends `method path` with the cookies, a form (URL-encoded) when given, and `headers`
    /// (`Name: value` lines); keeps the cookie the answer sets (or drops it at `Max-Age=0`).
    mutating func send(
        _ method: String, _ path: String, form: [String: String]? = nil, headers: [String] = []
    ) async throws -> RawHTTP.Response {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"]
        if !cookies.isEmpty {
            lines.append("Cookie: " + cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        var body = ""
        if let form {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            body = form.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
                .joined(separator: "&")
            lines += ["Content-Type: application/x-www-form-urlencoded"]
        }
        if method == "POST" { lines.append("Content-Length: \(body.utf8.count)") }
        lines += headers
        let response = try await RawHTTP.exchange(
            port: port, lines.joined(separator: "\r\n") + "\r\n\r\n" + body, timeout: 20, stopWhenComplete: true)
        if let set = response.headers["set-cookie"], let pair = set.split(separator: ";").first, let equals = pair.firstIndex(of: "=") {
            let name = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            if set.contains("Max-Age=0") || value.isEmpty { cookies[name] = nil } else { cookies[name] = value }
        }
        return response
    }

    /// Opens the login form and sends it with `username` and `password` (and the form's token).
    mutating func login(_ username: String, _ password: String, headers: [String] = []) async throws -> RawHTTP.Response {
        _ = try await send("GET", "/fleet/login")
        return try await send(
            "POST", "/fleet/login", form: ["csrf": cookies["sb_fleet_login"] ?? "", "username": username, "password": password],
            headers: headers)
    }

    /// The value of the hidden `csrf` field in `html`.
    static func csrf(in html: String) -> String? {
        guard let start = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        let rest = html[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
