import AsyncHTTPClient
import Foundation
import NIOCore
import StoryBridge
import StoryBridgeServer
import Synchronization

extension ScriptRunner {
    /// The host a script runs against.
    final class Environment: Sendable {
        let baseURL: String
        let token: String
        let host: TestHost?
        let commandsSeen = Mutex<[String]>([])
        let temporaryFolders: [URL]

        init(baseURL: String, token: String, host: TestHost?, temporaryFolders: [URL]) {
            self.baseURL = baseURL
            self.token = token
            self.host = host
            self.temporaryFolders = temporaryFolders
        }

        static func make(for script: TestScript, target: Target) async throws -> Environment {
            switch target {
            case .running(let url):
                let base = url.hasSuffix("/") ? String(url.dropLast()) : url
                return Environment(
                    baseURL: base, token: try await fetchToken(base, presentationId: script.tests.first?.presentationId ?? 1),
                    host: nil, temporaryFolders: [])
            case .inProcess:
                guard let presentation = script.presentation else {
                    throw StepFailure(description: "the script names no 'presentation' (give one, or run with --url)")
                }
                var folders: [URL] = []
                var catalogs: [PresentationFolder.Catalog] = []
                var temporary: [URL] = []
                for (url, id) in [(presentation, script.presentationId)] + script.extraPresentations {
                    var isDirectory: ObjCBool = false
                    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                        throw StepFailure(description: "presentation '\(url.path)' does not exist")
                    }
                    if isDirectory.boolValue, !DeliveryUnpacking.needsUnpacking(folder: url, dialect: nil) {
                        folders.append(url)
                    } else {
                        // A package zip, or a Veeva delivery (a folder of zips, a zip of zips).
                        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-script-\(UUID().uuidString)")
                        if isDirectory.boolValue {
                            try DeliveryUnpacking.unpack(folder: url, to: folder)
                        } else {
                            try DeliveryUnpacking.unpack(zip: url, to: folder, dialect: nil)
                        }
                        temporary.append(folder)
                        folders.append(folder)
                    }
                    catalogs.append(.init(id: id, name: url.deletingPathExtension().lastPathComponent))
                }
                let configuration = script.configuration
                let host = try await TestHost.start(
                    presentationFolders: folders, catalogs: catalogs, identity: configuration.identity, policy: script.policy,
                    http: configuration.http, tables: configuration.tables, commands: configuration.commands)
                let environment = Environment(
                    baseURL: host.baseURL, token: host.server.token, host: host, temporaryFolders: temporary)
                host.runtime.bridge.observe { [weak environment] exchange in
                    environment?.commandsSeen.withLock { $0.append(CommandNames.canonical(exchange.request.command)) }
                }
                return environment
            }
        }

        /// Reads the launch token from the presentation's start page, as a page would.
        static func fetchToken(_ base: String, presentationId: Int) async throws -> String {
            try await startPageAttribute("data-token", base, presentationId: presentationId)
        }

        /// An attribute of the client's tag on the page `/p/ID` leads to (the presentation's entry
        /// slide, whatever its dialect).
        static func startPageAttribute(_ name: String, _ base: String, presentationId: Int) async throws -> String {
            let url = URL(string: base + "/p/\(presentationId)")!
            let html = try await HTTPFetch.text(url)
            guard let range = html.range(of: " \(name)=\""),
                let end = html[range.upperBound...].firstIndex(of: "\"")
            else { throw StepFailure(description: "\(url) carries no storybridge client: is it a storybridge host?") }
            return String(html[range.upperBound..<end])
        }

        /// The slide a test that names none opens: the presentation's entry slide.
        func entrySlide(presentationId: Int) async throws -> String {
            if let host {
                return host.runtime.library.presentation(id: presentationId)?.entrySlide ?? Presentation.startSlide
            }
            return try await Self.startPageAttribute("data-slide", baseURL, presentationId: presentationId)
        }

        func connect(presentationId: Int, slide: String, viewerId: String) async throws -> ViewerClient {
            try await ViewerClient.connect(
                baseURL: baseURL, token: token, presentationId: presentationId, slide: slide, viewerId: viewerId)
        }

        func slideURL(presentationId: Int, slide: String) -> String {
            baseURL + ContentPaths.slideURL(presentationId: presentationId, slide: slide)
        }

        func sessionId(of viewerId: String) async -> String? {
            guard let host, let viewer = await host.runtime.viewers.existingViewer(id: viewerId) else { return nil }
            return await viewer.state.sessionId
        }

        func waitForCommand(_ command: String, timeout: Double) async throws {
            guard host != nil else {
                throw StepFailure(description: "waitForCommand needs the in-process host (run without --url)")
            }
            let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
            while ContinuousClock.now < deadline {
                if commandsSeen.withLock({ $0.contains(command) }) { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            let seen = commandsSeen.withLock { $0 }
            throw StepFailure(
                description:
                    "the host did not receive '\(command)' within \(timeout) s; it received: \(seen.isEmpty ? "nothing" : seen.suffix(20).joined(separator: ", "))"
            )
        }

        func checkRecords(_ expected: TestScript.RecordExpectation, sessionId: String?) async throws {
            guard let host else { throw StepFailure(description: "expectRecord needs the in-process host (run without --url)") }
            guard let sessionId, let session = try await host.runtime.analytics.session(id: sessionId) else {
                throw StepFailure(description: "the scripted viewer has no session yet")
            }
            let store = host.runtime.analytics
            var problems: [String] = []
            if let state = expected.sessionState, state != session.state.rawValue {
                problems.append("session state: expected \(state), got \(session.state.rawValue)")
            }
            if let complete = expected.complete, complete != session.complete {
                problems.append("complete: expected \(complete), got \(session.complete)")
            }
            if let slides = expected.slideViews {
                let got = try await store.slideViews(sessionId: sessionId).map(\.slideName)
                if got != slides { problems.append("slide views: expected \(slides), got \(got)") }
            }
            if let media = expected.mediaViews {
                let got = try await store.mediaViews(sessionId: sessionId).map(\.fileName)
                if got != media { problems.append("media views: expected \(media), got \(got)") }
            }
            if let events = expected.customEvents {
                let got = Dictionary(
                    try await store.customEvents(sessionId: sessionId).map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
                for (key, value) in events where got[key] != value {
                    problems.append("custom event '\(key)': expected \"\(value)\", got \(got[key].map { "\"\($0)\"" } ?? "none")")
                }
            }
            if !problems.isEmpty { throw StepFailure(description: problems.joined(separator: "\n")) }
        }

        func stop() async {
            await host?.stop()
            for folder in temporaryFolders { try? FileManager.default.removeItem(at: folder) }
        }
    }
}

/// A plain GET on the local host. AsyncHTTPClient rather than URLSession, so the CLI does not link
/// FoundationNetworking (and through it libcurl) into the release binary.
enum HTTPFetch {
    static func text(_ url: URL) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return String(buffer: body)
    }
}
