import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Talks to the token endpoint, `POST {auth}/connect/token`.
package struct AuthClient: Sendable {
    package let http: HTTPClient
    package let authURL: URL
    package var timeout: TimeAmount = .seconds(30)

    package init(http: HTTPClient, authURL: URL) {
        self.http = http
        self.authURL = authURL
    }

    /// Asks for a token. A 400/401 with an OAuth error becomes ``SyncError/wrongCredentials(oauthError:)``
    /// (``SyncError/refreshRefused(oauthError:)`` for a refresh grant).
    package func requestToken(_ grant: TokenGrant) async throws(SyncError) -> TokenReply {
        let endpoint = authURL.appendingPathComponent("connect").appendingPathComponent("token")
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: grant.formBody))
        let status: Int
        let body: ByteBuffer
        do {
            let response = try await http.execute(request, timeout: timeout)
            status = Int(response.status.code)
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw .unreachable(host: NetworkFailure.hostDescription(authURL), reason: NetworkFailure.reason(error))
        }
        switch status {
        case 200:
            do {
                let reply = try JSONDecoder().decode(TokenReply.self, from: Data(body.readableBytesView))
                guard !reply.accessToken.isEmpty else {
                    throw SyncError.malformedReply(path: "/connect/token", reason: "empty access_token")
                }
                return reply
            } catch let error as SyncError {
                throw error
            } catch {
                throw .malformedReply(path: "/connect/token", reason: "not a token reply")
            }
        case 400, 401:
            let code = Self.oauthError(in: body) ?? "HTTP \(status)"
            throw grant.isRefresh ? .refreshRefused(oauthError: code) : .wrongCredentials(oauthError: code)
        default:
            throw .unexpectedStatus(path: "/connect/token", status: status)
        }
    }

    static func oauthError(in body: ByteBuffer) -> String? {
        struct OAuthError: Decodable { var error: String }
        return (try? JSONDecoder().decode(OAuthError.self, from: Data(body.readableBytesView)))?.error
    }
}
