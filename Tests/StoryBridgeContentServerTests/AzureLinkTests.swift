import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: --blob-links azure (sas links in the Azure SAS form)")
struct AzureLinkTests {
    func azureConfiguration(_ lab: ContentLab, clock: ManualHostClock? = nil, linkLifetime: Int = 3600) -> ContentServerConfiguration {
        var configuration = lab.configuration(linkLifetime: linkLifetime, clock: clock)
        configuration.blobLinks = .azure
        return configuration
    }

    @Test("The link has sv, sr=b, a percent-encoded Base64 sig, st, se and sp=r; the package downloads whole and resumes with Range")
    func packageThroughAzureLink() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1, mediaBytes: 300_000)
        try await lab.withServer(azureConfiguration(lab)) { client in
            let token = try await client.serviceToken()
            let sas = try await client.packageLink(1, token: token)
            let match = try #require(
                sas.wholeMatch(
                    of: /http:\/\/127\.0\.0\.1:\d+\/blobs\/packages\/1-r1\.zip\?sv=2016-05-31&sr=b&sig=([^&]+)&st=([^&]+)&se=([^&]+)&sp=r/),
                "\(sas)")
            let encodedSignature = String(match.1)
            #expect(encodedSignature.contains("%3D"), "the Base64 padding is percent-encoded: \(encodedSignature)")
            #expect(!encodedSignature.contains("+") && !encodedSignature.contains("/") && !encodedSignature.contains("="))
            let signature = try #require(encodedSignature.removingPercentEncoding)
            #expect(Data(base64Encoded: signature)?.count == 32)
            let expiry = try #require(String(match.3).removingPercentEncoding)
            #expect(expiry.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(expiry)")

            let zip = try cachedPackage(lab, id: 1, revision: 1)
            let whole = try await client.get(sas)
            #expect(whole.status == 200)
            #expect(whole.body == zip)
            let rest = try await client.get(sas, headers: ["Range": "bytes=1000-"])
            #expect(rest.status == 206)
            #expect(rest.body == zip.subdata(in: 1000..<zip.count))

            // Media files get the same form.
            let presentation = try await client.get("/v1/presentations/1", token: token).object()
            let mediaId = try #require((presentation["mediaFiles"] as? [[String: Any]])?.first?["id"] as? Int)
            let media = try await client.get("/v1/mediafiles/\(mediaId)", token: token).object()
            let mediaLink = try #require(media["sas"] as? String)
            #expect(mediaLink.contains("&sr=b&sig="))
            #expect(try await client.get(mediaLink).body.count == 300_000)
        }
    }

    @Test("A changed signature, a changed expiry, a repeated sig and an expired link answer 403")
    func refusals() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        let clock = ManualHostClock(start: Date())
        try await lab.withServer(azureConfiguration(lab, clock: clock, linkLifetime: 60)) { client in
            let sas = try await client.packageLink(1, token: try await client.serviceToken())
            let signature = try #require(sas.firstMatch(of: /sig=([^&]+)/)).1
            let expiry = try #require(sas.firstMatch(of: /se=([^&]+)/)).1
            let flipped = (signature.first == "A" ? "B" : "A") + signature.dropFirst()
            let later = expiry.replacingOccurrences(of: "T", with: "T0").replacingOccurrences(of: "T00", with: "T01")
            for variant in [
                sas.replacingOccurrences(of: "sig=\(signature)", with: "sig=\(flipped)"),
                sas.replacingOccurrences(of: "se=\(expiry)", with: "se=\(later)"),
                sas + "&sig=\(signature)",
                sas.replacingOccurrences(of: "&sp=r", with: "&sp=rw"),
            ] {
                #expect(try await client.get(variant).status == 403, "\(variant)")
            }
            #expect(try await client.get(sas).status == 200)
            clock.advance(by: .seconds(61))
            let expired = try await client.get(sas)
            #expect(expired.status == 403)
            #expect(try expired.object()["error"] as? String == "the link has expired")
        }
    }
}
