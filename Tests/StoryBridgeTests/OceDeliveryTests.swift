import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// IQVIA OCE deliveries read as agencies send them: a zip per sequence, slides `NN_name.html` in
/// numeric order, the sequences in `oce.json`'s order, sequence ids mapped to zips.
@Suite("OCE deliveries")
struct OceDeliveryTests {
    @Test("a folder of sequence zips unpacks to a folder per sequence, read in oce.json's order, slides in numeric order")
    func folderOfZips() throws {
        let root = try scratchFolder("sb-oce")
        defer { try? FileManager.default.removeItem(at: root) }
        let delivery = root.appendingPathComponent("delivery")
        try OceDeliveryFixture.writeZips(in: delivery)
        #expect(DeliveryUnpacking.needsUnpacking(folder: delivery, dialect: nil))
        let unpacked = root.appendingPathComponent("unpacked")
        try DeliveryUnpacking.unpack(folder: delivery, to: unpacked)
        let presentation = try PresentationFolder.load(unpacked, catalog: .init(id: 2))
        #expect(presentation.dialect == .oce)
        #expect(presentation.slides.map(\.name) == OceDeliveryFixture.order)
        #expect(presentation.entrySlide == "Intro/01_welcome.html")
        #expect(FileManager.default.fileExists(atPath: unpacked.appendingPathComponent("Safety/01_thumbnail.jpg").path))
        // Each slide's NN_thumbnail.jpg in its sequence is its thumbnail.
        #expect(
            presentation.slides.map(\.thumbnail) == [
                "Intro/01_thumbnail.jpg", "Intro/02_thumbnail.jpg", "Safety/01_thumbnail.jpg", "Efficacy/01_thumbnail.jpg",
                "Efficacy/02_thumbnail.jpg", "Efficacy/10_thumbnail.jpg",
            ])
        #expect(FileManager.default.fileExists(atPath: unpacked.appendingPathComponent("oce.json").path))
        // Sequence ids: the zip, the folder, oce.json's map, the folder without case.
        #expect(OceNavigation.folder(forSequence: "Efficacy.zip", in: presentation) == "Efficacy")
        #expect(OceNavigation.folder(forSequence: "SEQ-EFF", in: presentation) == "Efficacy")
        #expect(OceNavigation.folder(forSequence: "safety", in: presentation) == "Safety")
        #expect(OceNavigation.folder(forSequence: "Nowhere", in: presentation) == nil)
        // Slides: the file, without .html, without its number.
        #expect(OceNavigation.slide(named: "10_summary.html", in: "Efficacy", of: presentation) == "Efficacy/10_summary.html")
        #expect(OceNavigation.slide(named: "02_study", in: "Efficacy", of: presentation) == "Efficacy/02_study.html")
        #expect(OceNavigation.slide(named: "DATA", in: "Efficacy", of: presentation) == "Efficacy/01_data.html")
        #expect(OceNavigation.sequences(of: presentation).map(\.folder) == ["Intro", "Safety", "Efficacy"])
    }

    @Test("a zip of sequence zips and a single sequence zip are detected as OCE; --dialect oce forces it; install records it")
    func zips() throws {
        let lab = try PackageLab()
        defer { try? FileManager.default.removeItem(at: lab.folder) }
        let zip = lab.folder.appendingPathComponent("oce.zip")
        try OceDeliveryFixture.writeZipOfZips(at: zip)
        let unpacked = lab.folder.appendingPathComponent("unpacked")
        try DeliveryUnpacking.unpack(zip: zip, to: unpacked, dialect: .oce)
        #expect(try PresentationFolder.load(unpacked, catalog: .init(id: 1)).slides.map(\.name) == OceDeliveryFixture.order)

        let single = try lab.zip("Intro.zip") { zip in
            try zip.add("02_b.html", text: "<html></html>")
            try zip.add("01_a.html", text: "<html></html>")
            try zip.add("01_thumbnail.jpg", data: Data([0xFF, 0xD8]))
        }
        let one = lab.folder.appendingPathComponent("one")
        try DeliveryUnpacking.unpack(zip: single, to: one, dialect: nil)
        let sequence = try PresentationFolder.load(one, catalog: .init(id: 2))
        #expect(sequence.dialect == .oce)
        #expect(sequence.slides.map(\.name) == ["Intro/01_a.html", "Intro/02_b.html"])

        var options = LibraryStore.InstallOptions(id: 5)
        options.dialect = nil
        _ = try lab.store().install(zip: zip, options: options)
        let entry = try #require(try lab.store().entry(id: 5))
        #expect(entry.presentation.dialect == .oce)
        #expect(entry.presentation.slides.map(\.name) == OceDeliveryFixture.order)
    }

    @Test("oce.json naming a sequence the delivery lacks is refused, naming the member")
    func badSettings() throws {
        let root = try scratchFolder("sb-oce")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("A"), withIntermediateDirectories: true)
        try Data("<html></html>".utf8).write(to: root.appendingPathComponent("A/01_a.html"))
        try Data(#"{"order": ["A", "B"]}"#.utf8).write(to: root.appendingPathComponent("oce.json"))
        #expect {
            try PresentationFolder.load(root, catalog: .init(id: 1))
        } throws: { error in
            "\(error)".contains("order names 'B', which the delivery does not hold")
        }
        try Data(#"{"sequence": {}}"#.utf8).write(to: root.appendingPathComponent("oce.json"))
        #expect {
            try PresentationFolder.load(root, catalog: .init(id: 1))
        } throws: { error in
            "\(error)".contains("unknown member 'sequence'")
        }
    }
}
