import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The content API's five GET routes, with a bearer token from ``AccessTokenProvider``: one
/// renewal and retry on a 401, back-off with jitter on 5xx, 429 (honouring `Retry-After`) and
/// dropped connections.
public struct ContentAPIClient: Sendable {
    public let http: HTTPClient
    public let apiURL: URL
    public let tokens: AccessTokenProvider
    public var retry: RetryPolicy
    public var timeout: TimeAmount = .seconds(60)
    public var logger: Logger

    public init(http: HTTPClient, apiURL: URL, tokens: AccessTokenProvider, retry: RetryPolicy = RetryPolicy(), logger: Logger) {
        self.http = http
        self.apiURL = apiURL
        self.tokens = tokens
        self.retry = retry
        self.logger = logger
    }

    /// `/v1/clients/`: the clients the token sees, each with its presentations' ids and revisions.
    public func clients() async throws(SyncError) -> [RemoteClient] {
        try await get("/v1/clients/")
    }

    /// `/v1/presentations/{id}`.
    public func presentation(id: Int) async throws(SyncError) -> RemotePresentation {
        try await get("/v1/presentations/\(id)")
    }

    /// `/v1/contentpackages/{presentationId}`: the package with a fresh download link.
    public func contentPackage(presentationId: Int) async throws(SyncError) -> RemoteContentPackage {
        try await get("/v1/contentpackages/\(presentationId)")
    }

    /// `/v1/mediafiles/{id}`, with a fresh download link.
    public func mediaFile(id: Int) async throws(SyncError) -> RemoteMediaFile {
        try await get("/v1/mediafiles/\(id)")
    }

    /// `/v1/slides/{id}`.
    public func slide(id: Int) async throws(SyncError) -> RemoteSlide {
        try await get("/v1/slides/\(id)")
    }

    func get<Value: Decodable>(_ path: String) async throws(SyncError) -> Value {
        let body = try await fetch(path)
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

    private func fetch(_ path: String) async throws(SyncError) -> ByteBuffer {
        var token = try await tokens.token()
        var renewedAfter401 = false
        var attempt = 0
        let url = apiURL.absoluteString.trimmingTrailingSlashes() + path
        while true {
            attempt += 1
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Accept", value: "application/json")
            let status: Int
            let retryAfter: String?
            let body: ByteBuffer
            do {
                let response = try await http.execute(request, timeout: timeout)
                status = Int(response.status.code)
                retryAfter = response.headers.first(name: "Retry-After")
                body = try await response.body.collect(upTo: 64 << 20)
            } catch {
                if Task.isCancelled { throw .interrupted }
                guard NetworkFailure.isTransient(error), attempt < retry.maxAttempts else {
                    throw .unreachable(host: NetworkFailure.hostDescription(apiURL), reason: NetworkFailure.reason(error))
                }
                try await pause(retry.delay(afterAttempt: attempt), path: path, why: NetworkFailure.reason(error))
                continue
            }
            switch status {
            case 200..<300:
                return body
            case 401 where !renewedAfter401:
                renewedAfter401 = true
                token = try await tokens.tokenAfterRejection(of: token)
                attempt -= 1
            case 401:
                throw .refreshRefused(oauthError: "the API refused a freshly renewed token")
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
