import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// `storybridge serve` of Veeva deliveries as agencies send them, through the real binary.
@Suite("serve of Veeva deliveries", .serialized)
struct VeevaServeTests {
    @Test("a folder of key-message zips and a zip of zips are served, opening at the loader CSV's first key message")
    func servesDeliveries() async throws {
        try await withDelivery(
            folder: { try VeevaDeliveryFixture.writeZips(in: $0) }, zip: { try VeevaDeliveryFixture.writeZipOfZips(at: $0) }
        ) { folder, zips, zip in
            for target in [zips.path, zip.path] {
                let serve = try await ServeProcess.start([target, "--port", "0", "--no-watch", "--log-level", "warning"])
                let (status, _, body) = try await httpGet(serve.baseURL + "/p/1/KM_B/KM_B.html")
                #expect(status == 200)
                #expect(String(decoding: body, as: UTF8.self).contains("/__storybridge/client.js"))
                let (cssStatus, _, css) = try await httpGet(serve.baseURL + "/p/1/shared/css/deck.css")
                #expect(cssStatus == 200)
                #expect(String(decoding: css, as: UTF8.self).contains("rgb(1, 2, 3)"))
                #expect(await serve.interrupt() == 0)
            }
        }
    }

    @Test("a malformed CRM data set is refused naming the place; --dialect storyclm reads the delivery as StoryCLM")
    func refusals() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let broken = folder.appendingPathComponent("broken")
            try VeevaDeliveryFixture.writeZips(in: broken, crmData: "{\n  \"objects\": {\"Account\": [{\"Name\": \"no id\"}]}\n}")
            // The child's temporary folder is one of its own: other tests running beside this one
            // serve deliveries too, each with its unpacked copy in the shared one while it runs.
            let temporary = folder.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = temporary.path
            let result = try await runStorybridge(
                ["serve", broken.path, "--port", "0", "--data-dir", folder.path], environment: environment)
            #expect(result.status == 64)
            #expect(result.errors.contains("is refused at objects.Account[0]: has no id"))
            // The unpacked copy is not left behind.
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)

            let unpacked = folder.appendingPathComponent("unpacked")
            try DeliveryUnpacking.unpack(folder: folder.appendingPathComponent("broken"), to: unpacked)
            let forced = try await runStorybridge([
                "serve", unpacked.path, "--dialect", "storyclm", "--port", "0", "--data-dir", folder.path,
            ])
            #expect(forced.status != 0)
            #expect(forced.errors.contains("has no index.html"))
        }
    }
}
