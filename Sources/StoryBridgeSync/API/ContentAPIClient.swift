import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The content API's five GET routes, with a bearer token from ``AccessTokenProvider``: one
/// renewal and retry on a 401, back-off with jitter on 5xx, 429 (honouring `Retry-After`) and
/// dropped connections; 204 No Content is "no object" and 403 is ``SyncError/notAllowed(path:)``.
package struct ContentAPIClient: Sendable {
    package let http: HTTPClient
    package let apiURL: URL
    package let tokens: AccessTokenProvider
    package var retry: RetryPolicy
    package var timeout: TimeAmount = .seconds(60)
    package var logger: Logger

    package init(http: HTTPClient, apiURL: URL, tokens: AccessTokenProvider, retry: RetryPolicy = RetryPolicy(), logger: Logger) {
        self.http = http
        self.apiURL = apiURL
        self.tokens = tokens
        self.retry = retry
        self.logger = logger
    }

    /// `/v1/clients/`: the clients the token sees, each with its presentations' ids and revisions.
    /// A 204 (the service's "no object") is an empty list.
    package func clients() async throws(SyncError) -> [RemoteClient] {
        try await get("/v1/clients/") ?? []
    }

    /// `/v1/presentations/{id}`; nil when the service has no such presentation (204 or 404: it was
    /// deleted or deactivated after the client list was read).
    package func presentation(id: Int) async throws(SyncError) -> RemotePresentation? {
        try await get("/v1/presentations/\(id)", absentOn: [404])
    }

    /// `/v1/contentpackages/{presentationId}`: the package with a fresh download link; nil when
    /// the presentation has no package (204).
    package func contentPackage(presentationId: Int) async throws(SyncError) -> RemoteContentPackage? {
        try await get("/v1/contentpackages/\(presentationId)")
    }

    /// `/v1/mediafiles/{id}`, with a fresh download link; nil when there is no such file (204).
    package func mediaFile(id: Int) async throws(SyncError) -> RemoteMediaFile? {
        try await get("/v1/mediafiles/\(id)")
    }

    /// `/v1/slides/{id}`; nil when there is no such slide (204).
    package func slide(id: Int) async throws(SyncError) -> RemoteSlide? {
        try await get("/v1/slides/\(id)")
    }

    /// The API's root without a trailing `/v1` (or slash): the Android app is configured with
    /// `https://api.storyclm.com/v1/`, the routes already start with `/v1`.
    /// `GET /v1/trust/keys`: the service's signed keys document, without a token; `nil` when the
    /// service signs nothing (404).
    func trustKeys() async throws(SyncError) -> Data? {
        guard let body = try await fetch("/v1/trust/keys", absentOn: [404], authorized: false, limit: 1 << 20) else { return nil }
        return Data(body.readableBytesView)
    }

    /// The signed manifest a package answer's `manifest` link names, with the access token. Only the
    /// link's path and query are used, against this client's API root: the token never goes to
    /// another host. A reply larger than `limit` bytes is refused before it is parsed.
    package func manifest(link: String, limit: Int) async throws(SyncError) -> Data {
        guard let url = URLComponents(string: link), url.path.hasPrefix("/") else {
            throw .malformedReply(path: "manifest", reason: "the manifest link '\(link)' is not a URL")
        }
        let path = url.percentEncodedPath + (url.percentEncodedQuery.map { "?\($0)" } ?? "")
        guard let body = try await fetch(path, absentOn: [], limit: limit) else {
            throw .malformedReply(path: path, reason: "no manifest")
        }
        return Data(body.readableBytesView)
    }

    package static func root(of apiURL: URL) -> String {
        var text = apiURL.absoluteString.trimmingTrailingSlashes()
        if text.lowercased().hasSuffix("/v1") { text.removeLast(3) }
        return text.trimmingTrailingSlashes()
    }

    /// Decodes the reply to `path`; nil for 204 No Content, which both official SDKs read as "no
    /// object" (the backend's answer for a null result), and for the statuses in `absentOn`.
    func get<Value: Decodable>(_ path: String, absentOn: Set<Int> = []) async throws(SyncError) -> Value? {
        guard let body = try await fetch(path, absentOn: absentOn) else { return nil }
        do {
            return try ContentDate.decoder().decode(Value.self, from: Data(body.readableBytesView))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .malformedReply(path: path, reason: "'\(key.stringValue)' is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .malformedReply(
                path: path, reason: "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type")
        } catch let DecodingError.dataCorrupted(context) {
            throw .malformedReply(path: path, reason: context.debugDescription)
        } catch {
            throw .malformedReply(path: path, reason: "not JSON")
        }
    }

    private func fetch(
        _ path: String, absentOn: Set<Int>, authorized: Bool = true, limit: Int = 64 << 20
    ) async throws(SyncError) -> ByteBuffer? {
        var token = authorized ? try await tokens.token() : ""
        var renewedAfter401 = false
        var attempt = 0
        let url = Self.root(of: apiURL) + path
        while true {
            attempt += 1
            var request = HTTPClientRequest(url: url)
            if authorized { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            request.headers.add(name: "Accept", value: "application/json")
            let status: Int
            let retryAfter: String?
            let body: ByteBuffer
            do {
                let response = try await http.execute(request, timeout: timeout)
                status = Int(response.status.code)
                retryAfter = response.headers.first(name: "Retry-After")
                body = try await response.body.collect(upTo: limit)
            } catch is NIOTooManyBytesError {
                throw .malformedReply(path: path, reason: "the reply is larger than \(limit) bytes")
            } catch {
                if Task.isCancelled { throw .interrupted }
                guard NetworkFailure.isTransient(error), attempt < retry.maxAttempts else {
                    throw .unreachable(host: NetworkFailure.hostDescription(apiURL), reason: NetworkFailure.reason(error))
                }
                try await pause(retry.delay(afterAttempt: attempt), path: path, why: NetworkFailure.reason(error))
                continue
            }
            switch status {
            case 204:
                return nil
            case _ where absentOn.contains(status):
                return nil
            case 200..<300:
                return body
            case 401 where !renewedAfter401 && authorized:
                renewedAfter401 = true
                token = try await tokens.tokenAfterRejection(of: token)
                attempt -= 1
            case 401:
                throw .refreshRefused(oauthError: "the API refused a freshly renewed token")
            case 403:
                throw .notAllowed(path: path)
            case _ where RetryPolicy.isRetryable(status: status) && attempt < retry.maxAttempts:
                try await pause(retry.delay(afterAttempt: attempt, retryAfter: retryAfter), path: path, why: "HTTP \(status)")
            default:
                throw .unexpectedStatus(path: path, status: status)
            }
        }
    }

    private func pause(_ delay: Duration, path: String, why: String) async throws(SyncError) {
        logger.notice("retrying \(path) after \(why)", metadata: ["delay": "\(delay)"])
        do { try await Task.sleep(for: delay) } catch { throw .interrupted }
    }
}

extension String {
    func trimmingTrailingSlashes() -> String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
