import Foundation
import StoryBridge

/// `storybridge-bench manifest [--files N] [--rounds N]`: the CPU a kiosk spends on one signed
/// manifest (docs/design/TRUST.md 2.2), step by step, on a manifest of N files (default 406, the
/// delta benchmark's deck) signed here with a fresh key: the parse (`SignedManifest.parse`: the
/// JSON and the body), the signature's check (the canonical bytes made again, Ed25519), the
/// manifest's hash (the canonical bytes again, SHA-256) and the files by path. Each step is run
/// for 0.2 s per round; the best round's time per call is reported (the least disturbed).
struct ManifestBenchmark {
    var files = 406
    var rounds = 7

    func run() throws {
        let key = TrustPrivateKey()
        let keys = KeysDocument(
            version: 1, created: Date(), expires: Date().addingTimeInterval(86_400), root: TrustPrivateKey().publicKey,
            signingKeys: [KeyEntry(key: key.publicKey, since: Date())], revoked: [])
        var list: [ManifestFile] = []
        for index in 0..<files {
            let name: String = index % 2 == 0 ? "index.html" : "images/picture.png"
            let path = "slides/slide-\(index / 2)/" + name
            let digest = String(repeating: String(format: "%02x", index % 256), count: 32)
            list.append(ManifestFile(path: path, size: Int64(200_000 + index), sha256: digest))
        }
        let body = PackageManifest(
            presentationId: 1, presentationRevision: 2, packageId: 1, packageRevision: 2, created: Date(),
            expires: Date().addingTimeInterval(30 * 86_400), keysVersion: 1, files: list)
        let bytes = try SignedManifest(body: body).signed(with: key, context: .manifest).encoded()
        let document = try SignedManifest.parse(bytes)
        print("manifest of \(files) files, \(bytes.count) bytes; best of \(rounds) rounds, µs per call")
        let steps: [(String, () throws -> Void)] = [
            ("parse (JSON and body)", { _ = try SignedManifest.parse(bytes) }),
            ("canonical bytes of the body", { _ = try document.canonicalSigned }),
            ("signature checked (canonical bytes and Ed25519)", { _ = try document.verify(keys: keys) }),
            ("hash (canonical bytes and SHA-256)", { _ = try document.hash }),
            ("files by path", { _ = document.body.filesByPath }),
            (
                "all a sync does: parse, check, hash",
                {
                    let parsed = try SignedManifest.parse(bytes)
                    _ = try parsed.verify(keys: keys)
                    _ = try parsed.hash
                }
            ),
        ]
        let clock = ContinuousClock()
        for (name, step) in steps {
            var best = Double.infinity
            for _ in 0..<rounds {
                var calls = 0
                let started = clock.now
                while clock.now - started < .milliseconds(200) {
                    try step()
                    calls += 1
                }
                let elapsed = clock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                best = min(best, seconds / Double(calls) * 1e6)
            }
            print(String(format: "  %8.1f  %@", best, name))
        }
    }
}
