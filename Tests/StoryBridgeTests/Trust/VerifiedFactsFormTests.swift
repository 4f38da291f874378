import Foundation
import Testing

@testable import StoryBridge

/// The verified-facts file's binary form (``VerifiedFacts/encoded()``): what is written reads back
/// the same, and anything else (a cut file, a byte too many, the JSON form before hashes, a damaged
/// length) reads as no facts, without reading out of bounds.
@Suite("Verified facts: the file's form")
struct VerifiedFactsFormTests {
    static let sample = VerifiedFacts(
        manifestHash: String(repeating: "ab", count: 32),
        files: [
            "index.html": VerifiedFile(
                facts: FileFacts(size: 1_234, dev: 64_769, ino: 9_007_199_254_740_993, ctimeNs: 1_764_470_000_123_456_789, mtimeNs: -5),
                sha256: String(repeating: "0f", count: 32)),
            "slides/Ünïcode slide ✓.html": VerifiedFile(
                facts: FileFacts(size: 0, dev: .max, ino: 1, ctimeNs: .min, mtimeNs: .max), sha256: String(repeating: "e3", count: 32)),
            "media/big.mp4": VerifiedFile(
                facts: FileFacts(size: 300 << 20, dev: 2, ino: 3, ctimeNs: 4, mtimeNs: 5), sha256: String(repeating: "9c", count: 32)),
        ])

    @Test("what is written reads back the same: paths in any script, every integer's full range, the hashes")
    func roundTrip() throws {
        let bytes = Self.sample.encoded()
        #expect(bytes.starts(with: VerifiedFacts.magic))
        #expect(VerifiedFacts.decode(Data(bytes)) == Self.sample)
        let empty = VerifiedFacts(manifestHash: "h", files: [:])
        #expect(VerifiedFacts.decode(Data(empty.encoded())) == empty)
        // The same facts give the same bytes whatever the dictionary's order.
        var reordered = VerifiedFacts(manifestHash: Self.sample.manifestHash, files: [:])
        for (path, file) in Self.sample.files.sorted(by: { $0.key > $1.key }) { reordered.files[path] = file }
        #expect(reordered.encoded() == bytes)
    }

    @Test("a file cut at any length, or with a byte more, reads as no facts")
    func cutOrLonger() {
        let bytes = Self.sample.encoded()
        for length in 0..<bytes.count {
            #expect(VerifiedFacts.decode(Data(bytes[0..<length])) == nil, "cut at \(length) of \(bytes.count)")
        }
        #expect(VerifiedFacts.decode(Data(bytes + [0])) == nil)
    }

    @Test("the JSON form written before the facts carried hashes, a damaged length and bytes that are not UTF-8 read as no facts")
    func otherBytes() throws {
        let json = #"{"files":[{"ctimeNs":1,"dev":2,"ino":3,"mtimeNs":4,"path":"index.html","size":5}],"manifestHash":"ab"}"#
        #expect(VerifiedFacts.decode(Data(json.utf8)) == nil)
        // The manifest hash's length said to be far beyond the file.
        var bytes = VerifiedFacts.magic
        withUnsafeBytes(of: UInt64.max.littleEndian) { bytes.append(contentsOf: $0) }
        #expect(VerifiedFacts.decode(Data(bytes)) == nil)
        // A file count beyond what the file could hold.
        var counted = VerifiedFacts.magic
        withUnsafeBytes(of: UInt64(1).littleEndian) { counted.append(contentsOf: $0) }
        counted.append(UInt8(ascii: "h"))
        withUnsafeBytes(of: UInt64(1 << 40).littleEndian) { counted.append(contentsOf: $0) }
        #expect(VerifiedFacts.decode(Data(counted)) == nil)
        // A path that is not UTF-8.
        let good = VerifiedFacts(manifestHash: "h", files: ["a": try #require(Self.sample.files["index.html"])]).encoded()
        var broken = good
        let pathByte = try #require(good.lastIndex(of: UInt8(ascii: "a")))
        broken[pathByte] = 0xFF
        #expect(VerifiedFacts.decode(Data(broken)) == nil)
        #expect(VerifiedFacts.decode(Data(good)) != nil)
    }
}
