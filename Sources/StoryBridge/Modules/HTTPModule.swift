import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP module (§5.6): content reaches remote services through the host.
///
/// Data in: `{url, headers?, body?}` (`body` Base64, for `httppost`/`httpput`). Data out:
/// `{headers, body}` (`body` Base64). As in the iOS app, `ErrorCode` is the remote HTTP status;
/// `Status` is `Success` for 2xx and `Failure` otherwise; `ErrorMessage` is the reason phrase.
/// Requests the settings do not allow, and transport failures, are `Failure`s that say why.
struct HTTPModule: BridgeModule {
    package let name = "HTTP"
    package let settings: HTTPModuleSettings
    package let reserved: HostAddresses

    /// The requests wait on the network: they run on their own task, and the router's deadline
    /// comes 5 s after the module's own timeout. The answer carries the remote status.
    package var commands: CommandTable {
        let policy = AwaitingPolicy.concurrent(.after(.milliseconds(Int64((settings.timeoutSeconds + 5) * 1000))))
        BridgeCommand.replying("httpget", policy) { request, _ in try await fetch(request, method: .GET) }
        BridgeCommand.replying("httppost", policy) { request, _ in try await fetch(request, method: .POST) }
        BridgeCommand.replying("httpput", policy) { request, _ in try await fetch(request, method: .PUT) }
        BridgeCommand.replying("httpdelete", policy) { request, _ in try await fetch(request, method: .DELETE) }
    }

    package init(settings: HTTPModuleSettings, reserved: HostAddresses) {
        self.settings = settings
        self.reserved = reserved
    }

    /// Sends the request `method` asks for, following redirects the settings allow.
    private func fetch(_ request: BridgeRequest, method firstMethod: HTTPMethod) async throws -> ModuleReply {
        let urlText = try request.string("url")
        guard let firstURL = URL(string: urlText.trimmingSpaces()) else {
            throw BridgeError.invalidData(field: "url", reason: "is not a URL")
        }
        var headers = HTTPHeaders()
        if let given = try request.member("headers"), given != .null {
            guard case .object(let members) = given else {
                throw BridgeError.invalidData(field: "headers", reason: "must be an object, got \(given.typeDescription)")
            }
            for (name, value) in members.sorted(by: { $0.key < $1.key }) {
                switch value {
                case .string(let text): headers.add(name: name, value: text)
                case .int, .double, .bool: headers.add(name: name, value: value.jsonString())
                default: throw BridgeError.invalidData(field: "headers.\(name)", reason: "must be a string")
                }
            }
        }
        var body = Data()
        if firstMethod == .POST || firstMethod == .PUT {
            if let encoded = try request.optionalString("body"), !encoded.isEmpty {
                guard let decoded = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
                    throw BridgeError.invalidData(field: "body", reason: "is not Base64")
                }
                body = decoded
            }
            guard body.count <= settings.maxBodyBytes else {
                throw BridgeError.invalidData(field: "body", reason: "is larger than \(settings.maxBodyBytes) bytes")
            }
        }
        var method = firstMethod
        let started = ContinuousClock.now
        let budget = Duration.milliseconds(Int64(settings.timeoutSeconds * 1000))
        var url = firstURL
        var redirects = 0
        while true {
            if let refusal = settings.refusal(for: url, reserved: reserved.all) {
                throw BridgeError.refused("Refused: \(refusal)")
            }
            var outgoing = HTTPClientRequest(url: url.absoluteString)
            outgoing.method = method
            outgoing.headers = headers
            if !body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
            let remaining = budget - (ContinuousClock.now - started)
            guard remaining > .zero else { throw Self.timedOut(settings.timeoutSeconds) }
            let response: HTTPClientResponse
            do {
                response = try await HTTPModuleClient.shared.execute(
                    outgoing,
                    timeout: .nanoseconds(
                        Int64(remaining.components.seconds) * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000))
            } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
                throw Self.timedOut(settings.timeoutSeconds)
            } catch {
                throw BridgeError.custom(
                    code: 502, message: "Cannot reach \(url.host ?? url.absoluteString): \(error)", data: .emptyObject)
            }
            let status = Int(response.status.code)
            if (300..<400).contains(status), status != 304, let location = response.headers.first(name: "Location") {
                guard redirects < settings.maxRedirects else {
                    throw BridgeError.custom(
                        code: 508, message: "Refused: more than \(settings.maxRedirects) redirects", data: .emptyObject)
                }
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw BridgeError.custom(code: 502, message: "Bad redirect location '\(location)'", data: .emptyObject)
                }
                redirects += 1
                url = next
                if status == 303 || ((status == 301 || status == 302) && method == .POST) {
                    method = .GET
                    body = Data()
                }
                continue
            }
            let collected: ByteBuffer
            do {
                collected = try await response.body.collect(upTo: settings.maxBodyBytes)
            } catch {
                throw BridgeError.custom(
                    code: 502, message: "The response body is larger than \(settings.maxBodyBytes) bytes", data: .emptyObject)
            }
            var answerHeaders: [String: JSONValue] = [:]
            for header in response.headers {
                if case .string(let existing)? = answerHeaders[header.name] {
                    answerHeaders[header.name] = .string(existing + ", " + header.value)
                } else {
                    answerHeaders[header.name] = .string(header.value)
                }
            }
            let data: JSONValue = [
                "headers": .object(answerHeaders), "body": .string(Data(collected.readableBytesView).base64EncodedString()),
            ]
            return ModuleReply(
                status: (200..<300).contains(status) ? .success : .failure, code: status,
                message: response.status.reasonPhrase, data: data)
        }
    }

    static func timedOut(_ seconds: Double) -> BridgeError {
        .custom(code: 504, message: "The remote server did not answer within \(seconds) s", data: .emptyObject)
    }
}

/// One HTTP client for the module, for the life of the process (redirects are followed by the
/// module itself, so each hop is checked against the allow-list).
enum HTTPModuleClient {
    static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .enabled(limit: .ratio(100))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}
