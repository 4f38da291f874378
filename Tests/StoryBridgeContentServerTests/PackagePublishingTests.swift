import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Synchronization
import Testing

@Suite("Content server: packages are published in the background with their own ids and revisions")
struct PackagePublishingTests {
    @Test("The package has its own id and revision: a reinstall and a republish each add a package revision")
    func ownIdAndRevision() async throws {
        let lab = try ContentLab()
        try lab.install(id: 17)
        try await lab.withRunningServer { client, running in
            let token = try await client.serviceToken()
            let first = try await client.get("/v1/presentations/17", token: token).object()
            let folder = try #require(first["sourcesFolder"] as? [String: Any])
            #expect(first["revision"] as? Int == 1)
            #expect(folder["id"] as? Int == 1, "package ids are a counter of their own")
            #expect(folder["revision"] as? Int == 1)
            let firstLink = try await client.packageLink(17, token: token)
            #expect(firstLink.contains("/blobs/packages/1-r1.zip?"))

            // A republish: a new package revision, blob id and link under the same presentation revision.
            let republished = try await running.republish(17)
            #expect(republished.id == 1)
            #expect(republished.revision == 2)
            #expect(republished.presentationRevision == 1)
            let second = try await client.get("/v1/presentations/17", token: token).object()
            let secondFolder = try #require(second["sourcesFolder"] as? [String: Any])
            #expect(second["revision"] as? Int == 1)
            #expect(secondFolder["revision"] as? Int == 2)
            #expect(secondFolder["id"] as? Int == 1)
            #expect(secondFolder["blobId"] as? String != folder["blobId"] as? String)
            let secondLink = try await client.packageLink(17, token: token)
            #expect(secondLink.contains("/blobs/packages/1-r2.zip?"))
            #expect(try await client.get(firstLink).status == 404)
            #expect(try await client.get(secondLink).status == 200)

            // A reinstall: presentation revision 2, package revision 3, the same package id.
            try lab.install(id: 17, title: "second edition")
            try await running.waitForPackages()
            let third = try await client.get("/v1/presentations/17", token: token).object()
            #expect(third["revision"] as? Int == 2)
            #expect((third["sourcesFolder"] as? [String: Any])?["revision"] as? Int == 3)

            // A second presentation gets the next package id.
            try lab.install(id: 5)
            try await running.waitForPackages()
            let other = try await client.get("/v1/presentations/5", token: token).object()
            #expect((other["sourcesFolder"] as? [String: Any])?["id"] as? Int == 2)
        }
        // The ids and revisions are kept across a restart.
        try await lab.withServer { client in
            let token = try await client.serviceToken()
            let again = try await client.get("/v1/presentations/17", token: token).object()
            #expect((again["sourcesFolder"] as? [String: Any])?["revision"] as? Int == 3)
        }
    }

    @Test("A request never waits for a build: while a large deck's package is built, its presentation answers 503 at once")
    func neverWaitsForABuild() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1, mediaBytes: 1000)
        var configuration = lab.configuration()
        // Only the request below asks for the new deck's package (no scan in between).
        configuration.packageScanInterval = .seconds(3600)
        try await lab.withRunningServer(configuration) { client, running in
            let token = try await client.serviceToken()
            try lab.install(id: 2, mediaBytes: 60_000_000)
            let buildStarted = ContinuousClock.now
            var times: [Duration] = []
            var statuses: [Int] = []
            for _ in 0..<10 {
                let started = ContinuousClock.now
                let reply = try await client.get("/v1/presentations/2", token: token)
                times.append(ContinuousClock.now - started)
                statuses.append(reply.status)
                if reply.status == 200 { break }
                #expect(reply.status == 503)
                #expect(reply.header("retry-after") == "1")
                #expect(try reply.object()["error"] as? String == "the package of presentation 2 is being built; try again shortly")
                try await Task.sleep(for: .milliseconds(20))
            }
            try await running.waitForPackages()
            let build = ContinuousClock.now - buildStarted
            // The first request queued the build and was answered without waiting for it.
            #expect(statuses.first == 503)
            #expect(times[0] < build, "the first request took \(times[0]), the build \(build)")
            print("503 round trips while a 60 MB package was built (\(build)): \(times)")
            #expect(try await client.get("/v1/presentations/2", token: token).status == 200)
        }
    }

    @Test("A presentation installed while the server runs gets its package without any request, with progress reported")
    func builtOnInstall() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        let reports = Mutex<[PackageBuildProgress]>([])
        var configuration = lab.configuration()
        configuration.packageScanInterval = .milliseconds(100)
        configuration.onPackageBuilt = { progress in reports.withLock { $0.append(progress) } }
        try await lab.withServer(configuration) { _ in
            #expect(reports.withLock { $0.map(\.presentationId) } == [1])
            try lab.install(id: 2)
            // The package's file is in place before its build reports its end: both are waited for.
            let deadline = ContinuousClock.now + .seconds(10)
            while (try? cachedPackage(lab, id: 2, revision: 1)) == nil || reports.withLock({ $0.last?.presentationId }) != 2,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect((try? cachedPackage(lab, id: 2, revision: 1)) != nil, "no package built after the install")
            let last = try #require(reports.withLock { $0.last })
            #expect(last.presentationId == 2)
            #expect(last.finished == 2)
            #expect(!last.failed)
        }
    }

    @Test("A package that cannot be built answers 500 whose body names no local path")
    func failedBuildNamesNoPath() async throws {
        let lab = try ContentLab()
        let entry = try lab.install(id: 1)
        try FileManager.default.removeItem(at: entry.presentation.root)
        try await lab.withServer { client in
            let token = try await client.serviceToken()
            let reply = try await client.get("/v1/presentations/1", token: token)
            #expect(reply.status == 500)
            #expect(try reply.object()["error"] as? String == "the package of presentation 1 cannot be built (the server's log says why)")
            #expect(!reply.text.contains(lab.folder.path))
            #expect(!reply.text.contains("/data/"))
        }
    }
}
