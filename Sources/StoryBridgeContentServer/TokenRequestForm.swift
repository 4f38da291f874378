import Foundation
import Hummingbird

/// Reads the fields of a token request: an `application/x-www-form-urlencoded` body, plus client
/// credentials from `Authorization: Basic` (`client_secret_basic`) when the form has none.
enum TokenRequestForm {
    static let maxBodySize = 64 * 1024

    static func fields(of request: Request) async throws -> [String: String] {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            throw TokenEndpointError.invalidRequest("the body must be application/x-www-form-urlencoded")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBodySize)
        } catch {
            throw TokenEndpointError.invalidRequest("the form is larger than \(maxBodySize) bytes")
        }
        var fields = try parse(String(buffer: buffer))
        if fields["client_id"] == nil, let (id, secret) = basicCredentials(request.headers[.authorization]) {
            fields["client_id"] = id
            fields["client_secret"] = secret
        }
        return fields
    }

    /// `a=1&b=two+words` → `["a": "1", "b": "two words"]`; a field given twice is refused.
    static func parse(_ body: String) throws(TokenEndpointError) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw .invalidRequest("the form is not valid percent-encoding")
            }
            guard fields[name] == nil else { throw .invalidRequest("\(name) is given twice") }
            fields[name] = value
        }
        return fields
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    private static func basicCredentials(_ header: String?) -> (String, String)? {
        guard let header, header.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        let id = String(text[..<colon]).removingPercentEncoding ?? ""
        let secret = String(text[text.index(after: colon)...]).removingPercentEncoding ?? ""
        return (id, secret)
    }
}
