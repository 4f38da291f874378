import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// `storybridge serve` of IQVIA OCE deliveries as agencies send them, through the real binary.
@Suite("serve of OCE deliveries", .serialized)
struct OceServeTests {
    @Test("a folder of sequence zips, a zip of zips and a zip of zips with --dialect oce are served with the OCE adapter")
    func servesDeliveries() async throws {
        try await withDelivery(
            folder: { try OceDeliveryFixture.writeZips(in: $0) }, zip: { try OceDeliveryFixture.writeZipOfZips(at: $0) }
        ) { folder, zips, zip in
            for arguments in [[zips.path], [zip.path], [zip.path, "--dialect", "oce"]] {
                let serve = try await ServeProcess.start(arguments + ["--port", "0", "--no-watch", "--log-level", "warning"])
                let (status, _, body) = try await httpGet(serve.baseURL + "/p/1/Intro/01_welcome.html")
                #expect(status == 200)
                let page = String(decoding: body, as: UTF8.self)
                #expect(page.contains("/__storybridge/client.js") && page.contains("data-storybridge-dialect=\"oce\""))
                let (thumbStatus, _, _) = try await httpGet(serve.baseURL + "/p/1/Efficacy/10_thumbnail.jpg")
                #expect(thumbStatus == 200)
                let (scriptStatus, _, script) = try await httpGet(serve.baseURL + "/__storybridge/oce.js")
                #expect(scriptStatus == 200)
                #expect(String(decoding: script, as: UTF8.self).contains("nativeCall"))
                #expect(await serve.interrupt() == 0)
            }
        }
    }

    @Test("inspect names each slide's thumbnail, in its table and its JSON")
    func inspectThumbnails() async throws {
        try await withDelivery(
            folder: { try OceDeliveryFixture.writeZips(in: $0) }, zip: { try OceDeliveryFixture.writeZipOfZips(at: $0) }
        ) { _, _, zip in
            let table = try await runCLI(["inspect", zip.path])
            #expect(table.status == 0, "\(table.errors)")
            #expect(table.output.contains("Intro/01_welcome.html  links: [") && table.output.contains("thumbnail: Intro/01_thumbnail.jpg"))
            let json = try await runCLI(["inspect", zip.path, "--json"])
            #expect(json.status == 0, "\(json.errors)")
            let slides = try JSONValue.parse(json.output)["slides"]?.arrayValue ?? []
            #expect(
                slides.map { $0["thumbnail"]?.stringValue ?? "-" }
                    == OceDeliveryFixture.order.map {
                        $0.replacingOccurrences(of: #"_[a-z]+\.html$"#, with: "_thumbnail.jpg", options: .regularExpression)
                    })
        }
    }
}
