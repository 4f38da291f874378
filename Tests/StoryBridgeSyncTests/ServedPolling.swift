import AsyncHTTPClient
import Foundation
import NIOCore
import StoryBridge
import StoryBridgeSync
import StoryBridgeTesting

/// GET `url` on a client of its own: the status and the body as text.
func fetch(_ url: String) async throws -> (status: Int, body: String) {
    let http = SyncHTTPClient.make()
    defer { Task { try? await http.shutdown() } }
    let response = try await http.execute(.init(url: url), timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body))
}

/// The status `get` gives for `url` once it is `expected`, or the last one when `timeout` has
/// passed (asked again every 100 ms).
func polledStatus(
    of url: String, until expected: Int, timeout: Duration = .seconds(15),
    get: (String) async throws -> (status: Int, body: String) = fetch
) async throws -> Int {
    var status = 0
    let until = ContinuousClock.now + timeout
    repeat {
        status = try await get(url).status
        if status != expected { try await Task.sleep(for: .milliseconds(100)) }
    } while status != expected && ContinuousClock.now < until
    return status
}

/// What `getPresentations` answers `viewer` once it is `expected`, or the last answer after 15 s
/// (asked again every 100 ms).
func polledPresentations(of viewer: ViewerClient, until expected: JSONValue) async throws -> JSONValue {
    var listed = try await viewer.request("getPresentations").data
    let until = ContinuousClock.now + .seconds(15)
    while listed != expected, ContinuousClock.now < until {
        try await Task.sleep(for: .milliseconds(100))
        listed = try await viewer.request("getPresentations").data
    }
    return listed
}
